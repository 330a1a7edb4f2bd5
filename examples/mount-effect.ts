// Mounting buddy's routes in another @effect/platform server (the README's first example).
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type BuddyConfigShape, BuddyHttpApp, BuddyLive } from "@lazurio/buddy"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

export const launchpad = (config: BuddyConfigShape, port: number) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", Effect.succeed(HttpServerResponse.text("the Launchpad"))),
    HttpRouter.all("/api/buddy", BuddyHttpApp),
    HttpRouter.all("/api/buddy/*", BuddyHttpApp),
    HttpServer.serve(),
    Layer.provide(BuddyLive(config)),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port }))
  )
