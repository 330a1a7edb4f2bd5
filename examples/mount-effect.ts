// Serving buddy's routes whole with HttpRouter.all at C6's /api/buddy (the README's last example).
// The config is the Launchpad's own settings, given as fields and checked by BuddyLive.
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type BuddyConfigFields, BuddyHttpApp, BuddyLive } from "@lazurio/buddy"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

export const launchpad = (settings: BuddyConfigFields, port: number) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", Effect.succeed(HttpServerResponse.text("the Launchpad"))),
    HttpRouter.all("/api/buddy", BuddyHttpApp),
    HttpRouter.all("/api/buddy/*", BuddyHttpApp),
    HttpServer.serve(),
    Layer.provide(BuddyLive(settings)),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port }))
  )
