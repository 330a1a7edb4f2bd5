// The HTTP app a Launchpad imports (C6): the routes behind C6's checks in order, every answer
// with the security headers, built from the same layers as the CLI. `BuddyHttpApp` is a plain
// @effect/platform HttpApp that answers wherever it is mounted (D20); `makeBuddyWebHandler` serves
// hosts that are not Effect programs.
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Cause, Effect, Layer, Option } from "effect"
import type { ConfigFile } from "../schema/config.js"
import { BuddyConfig, type BuddyConfigShape, type ConfigInvalid } from "../services/BuddyConfig.js"
import { type Journal, JournalLive } from "../services/Journal.js"
import { BuddyServicesLive } from "../services/layers.js"
import { buddyPresent, placeOf, requireSameOrigin } from "./admission.js"
import { blockedAnswer, failedAnswer, refusedAnswer, unavailableAnswer } from "./answer.js"
import { isJsonMediaType } from "./body.js"
import { Refused, refused } from "./refusal.js"
import { respond, routes } from "./routes.js"

/** C6 checks 1–2: Buddy here at all, then the route for this path and method. */
const routeOf = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* BuddyConfig
  const place = placeOf(request)
  // Outside Buddy's paths the app says nothing of Buddy: a plain not-found, present or not.
  if (Option.isNone(place)) return yield* Effect.fail(refused("not-found"))
  if (!buddyPresent(config)) return yield* Effect.fail(refused("buddy-absent"))
  const { path, root } = place.value
  const atPath = routes.filter((route) => route.path === path)
  if (atPath.length === 0) return yield* Effect.fail(refused("not-found"))
  const route = atPath.find((candidate) => candidate.method === request.method)
  if (route === undefined) {
    return yield* Effect.fail(
      new Refused({ reason: "method-not-allowed", allow: atPath.map((candidate) => candidate.method) })
    )
  }
  return { route, root, config, request }
})

/** The app: checks 1–4 in order, then the route's work; blocked, unavailable and the unforeseen mapped. */
export const BuddyHttpApp = Effect.gen(function*() {
  const { config, request, root, route } = yield* routeOf
  if (route.method === "POST") yield* requireSameOrigin(config, request)
  if (route.body !== "none" && !isJsonMediaType(request.headers["content-type"])) {
    return yield* Effect.fail(refused("invalid-content-type"))
  }
  return yield* respond(route, root)
}).pipe(
  Effect.catchTags({
    Refused: refusedAnswer,
    Blocked: blockedAnswer,
    Unavailable: unavailableAnswer
  }),
  // A caller gone away is not an operation that failed; anything else unforeseen is, without a word of why.
  Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : failedAnswer))
)

/** BuddyConfig from its file form (C6 "Config") plus the contract's deadlines and limits, checked as `BuddyConfig.make` checks. */
export const configFrom = (file: ConfigFile): Effect.Effect<BuddyConfigShape, ConfigInvalid> => BuddyConfig.make(file)

/**
 * Everything `BuddyHttpApp` needs: the services on the gateway client, the config, and the
 * journal (C6): on stdout unless the Launchpad gives its own (`makeJournal`).
 */
export const BuddyLive = (config: BuddyConfigShape, journal: Layer.Layer<Journal> = JournalLive) =>
  BuddyServicesLive.pipe(Layer.provide(journal), Layer.provideMerge(Layer.succeed(BuddyConfig, config)))

/**
 * `(Request) => Promise<Response>` for a host that is not an Effect program. Call `dispose` when
 * the host stops: it closes the layers and cancels nothing on Hermes (C4.9).
 */
export const makeBuddyWebHandler = (config: BuddyConfigShape, journal: Layer.Layer<Journal> = JournalLive) =>
  HttpApp.toWebHandlerLayer(BuddyHttpApp, BuddyLive(config, journal))
