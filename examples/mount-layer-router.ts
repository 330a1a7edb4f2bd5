// buddy's routes beside a Launchpad's own HttpApi on HttpLayerRouter (the README's second example):
// the router cuts the prefix off, and buddy's operations join the Launchpad's OpenAPI document
// through OpenApi.Transform. The config comes from the environment through Effect's Config
// (BUDDY_LAUNCHPAD_ORIGIN, BUDDY_ORIGIN, BUDDY_ENVIRONMENT); run it with `Layer.launch`.
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiSchema,
  HttpLayerRouter,
  OpenApi
} from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { BuddyLiveConfig, BuddyRoutes, withBuddyOperations } from "@lazurio/buddy"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"

export const prefix = "/launchpad/buddy"

export class LaunchpadApi extends HttpApi.make("launchpad")
  .add(HttpApiGroup.make("pages").add(HttpApiEndpoint.get("home", "/").addSuccess(HttpApiSchema.Text())))
  .annotate(OpenApi.Transform, withBuddyOperations(prefix))
{}

const PagesLive = HttpApiBuilder.group(
  LaunchpadApi,
  "pages",
  (handlers) => handlers.handle("home", () => Effect.succeed("the Launchpad"))
)

export const Routes = Layer.mergeAll(
  HttpLayerRouter.addHttpApi(LaunchpadApi, { openapiPath: "/openapi.json" }).pipe(Layer.provide(PagesLive)),
  BuddyRoutes({ prefix })
)

export const launchpad = (port: number) =>
  HttpLayerRouter.serve(Routes, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(BuddyLiveConfig()),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port }))
  )
