// Mounting buddy's routes with HttpRouter.mountApp, the usual Effect way (the README's first
// example): the router cuts the prefix off and the app answers under it, wherever it is. The config
// comes from the environment through Effect's Config: BUDDY_LAUNCHPAD_ORIGIN, BUDDY_ORIGIN and
// BUDDY_ENVIRONMENT (BUDDY_LOCALE and BUDDY_HERMES_HOME optional); run it with `Layer.launch`.
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { BuddyHttpApp, BuddyLiveConfig } from "@lazurio/buddy"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

export const BuddyLayer = BuddyLiveConfig()

export const launchpad = (port: number, prefix: `/${string}` = "/api/buddy") =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/", Effect.succeed(HttpServerResponse.text("the Launchpad"))),
    HttpRouter.mountApp(prefix, BuddyHttpApp),
    HttpServer.serve(),
    Layer.provide(BuddyLayer),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port }))
  )
