// Mounting buddy's routes with HttpRouter.mountApp, the usual Effect way (the README's third
// example): the router cuts the prefix off and the app answers under it, wherever it is.
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type BuddyConfigShape, BuddyHttpApp, BuddyLive } from "@lazurio/buddy"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

export const launchpad = (config: BuddyConfigShape, port: number, prefix: `/${string}` = "/api/buddy") =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", Effect.succeed(HttpServerResponse.text("the Launchpad"))),
    HttpRouter.mountApp(prefix, BuddyHttpApp),
    HttpServer.serve(),
    Layer.provide(BuddyLive(config)),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port }))
  )
