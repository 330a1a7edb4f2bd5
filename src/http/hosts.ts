// The app in every host a Launchpad uses, under any prefix (D43). A router that cuts the prefix off
// (`HttpRouter.mountApp`, `HttpLayerRouter` routes added with a prefix) mounts `BuddyHttpApp` as it
// is; a host that hands over every request whole (a web handler, @effect/platform-node's
// `makeHandler` in a plain node:http server) takes `buddyHttpAppAt(prefix)`, which cuts it the same
// way. Either way the app finds its root from the cut (./admission.ts `placeOf`) and C6's checks
// run unchanged beneath it.
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, Layer } from "effect"
import { apiRoot } from "../schema/routes.js"
import { BuddyConfig, type BuddyConfigFields, type ConfigInvalid } from "../services/BuddyConfig.js"
import type { SignIn } from "../services/SignIn.js"
import type { Status } from "../services/Status.js"
import { targetOf } from "./admission.js"
import { refusedAnswer } from "./answer.js"
import { BuddyHttpApp } from "./app.js"
import { BuddyLive } from "./live.js"
import { refused } from "./refusal.js"

/** A path prefix such as `/launchpad/buddy`; a trailing slash is dropped, as the platform's routers drop it. */
export type Prefix = `/${string}`

const trimmed = (prefix: Prefix) => prefix.replace(/\/+$/, "")

/**
 * `BuddyHttpApp` for a host that hands it every request whole: a request under `prefix` has the
 * prefix cut off its `url` as `HttpRouter.mountApp` cuts it, and the app answers under it; any other
 * is not Buddy's, and answers 404 not-found.
 */
export const buddyHttpAppAt = (prefix: Prefix) => {
  const root = trimmed(prefix)
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const target = targetOf(request.url)
    const rest = target.slice(root.length)
    return target.startsWith(root) && (rest === "" || rest.startsWith("/") || rest.startsWith("?"))
      ? Effect.provideService(
        BuddyHttpApp,
        HttpServerRequest.HttpServerRequest,
        request.modify({ url: rest === "" ? "/" : rest })
      )
      : refusedAnswer(refused("not-found"))
  })
}

/**
 * The app as `HttpLayerRouter` routes under `prefix` (C6's `/api/buddy` by default): the router cuts
 * the prefix off, so the app sits beside a Launchpad's own routes and its `HttpApi`.
 */
export const BuddyRoutes = (options: { readonly prefix?: Prefix | undefined } = {}) =>
  HttpLayerRouter.addAll([
    HttpLayerRouter.route("*", "/", BuddyHttpApp),
    HttpLayerRouter.route("*", "/*", BuddyHttpApp)
  ], { prefix: trimmed(options.prefix ?? apiRoot) })

const isFields = <E>(
  services: BuddyConfigFields | Layer.Layer<SignIn | Status | BuddyConfig, E>
): services is BuddyConfigFields => !Layer.isLayer(services)

/**
 * The fields checked now, as `BuddyConfig.make` checks them, so a host that is no Effect program
 * hears a bad config where it makes the handler, not as a rejected promise at every request (D50).
 */
const checkedNow = (fields: BuddyConfigFields): BuddyConfigFields =>
  Either.match(Effect.runSync(Effect.either(BuddyConfig.make(fields))), {
    onLeft: (invalid) => {
      // A plain function's refusal is its exception: the host that calls it is no Effect program.
      // eslint-disable-next-line no-restricted-syntax -- as above
      throw invalid
    },
    onRight: () => fields
  })

/**
 * `(Request) => Promise<Response>` for a host that speaks web `Request`, on the layers given (or
 * `BuddyLive` of the fields given), under `prefix` when given (else served whole, at C6's
 * `/api/buddy`). Call `dispose` when the host stops: it closes the layers and cancels nothing on
 * Hermes (C4.9).
 *
 * @throws {ConfigInvalid} fields that cannot serve, at once: its `reason` names the field, its
 * message says what the field must be. A layer given is built at the first request, as any layer is.
 */
export const makeBuddyWebHandler = <E = never>(
  services: BuddyConfigFields | Layer.Layer<SignIn | Status | BuddyConfig, E>,
  options: { readonly prefix?: Prefix | undefined } = {}
) => {
  const layer: Layer.Layer<SignIn | Status | BuddyConfig, E | ConfigInvalid> = isFields(services)
    ? BuddyLive(checkedNow(services))
    : services
  return HttpApp.toWebHandlerLayer(options.prefix === undefined ? BuddyHttpApp : buddyHttpAppAt(options.prefix), layer)
}
