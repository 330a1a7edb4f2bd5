// The HTTP app a Launchpad imports (C6): the five routes behind C6's checks in order, every
// answer with the security headers, built from the same layers as the CLI. `BuddyHttpApp` is a
// plain @effect/platform HttpApp; `makeBuddyWebHandler` serves hosts that are not Effect programs.
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Cause, Effect, Layer } from "effect"
import type { ConfigFile } from "../schema/config.js"
import { BuddyConfig, type BuddyConfigShape } from "../services/BuddyConfig.js"
import { JournalLive } from "../services/Journal.js"
import { BuddyServicesLive } from "../services/layers.js"
import { buddyPresent, pathOf, requireSameOrigin } from "./admission.js"
import { blockedAnswer, failedAnswer, refusedAnswer, unavailableAnswer } from "./answer.js"
import { isJsonMediaType } from "./body.js"
import { Refused, refused } from "./refusal.js"
import { inputOf, routes } from "./routes.js"

const apiRoot = "/api/buddy"

/** C6 checks 1–2: Buddy here at all, then the route for this path and method. */
const routeOf = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const config = yield* BuddyConfig
  const path = pathOf(request)
  const ours = path === apiRoot || path.startsWith(`${apiRoot}/`)
  if (ours && !buddyPresent(config)) return yield* Effect.fail(refused("buddy-absent"))
  const atPath = routes.filter((route) => route.path === path)
  if (atPath.length === 0) return yield* Effect.fail(refused("not-found"))
  const route = atPath.find((candidate) => candidate.method === request.method)
  if (route === undefined) {
    return yield* Effect.fail(
      new Refused({ reason: "method-not-allowed", allow: atPath.map((candidate) => candidate.method) })
    )
  }
  return { route, config }
})

/** The app: checks 1–4 in order, then the route's work; blocked, unavailable and the unforeseen mapped. */
export const BuddyHttpApp = Effect.gen(function*() {
  const { config, route } = yield* routeOf
  if (route.method === "POST") yield* requireSameOrigin(config)
  if (route.body !== "none") {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!isJsonMediaType(request.headers["content-type"])) return yield* Effect.fail(refused("invalid-content-type"))
  }
  const input = yield* inputOf(route)
  return yield* route.run(input)
}).pipe(
  Effect.catchTags({
    Refused: refusedAnswer,
    Blocked: blockedAnswer,
    Unavailable: unavailableAnswer
  }),
  // A caller gone away is not an operation that failed; anything else unforeseen is, without a word of why.
  Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : failedAnswer))
)

/** BuddyConfig from its file form (C6 "Config") plus the contract's deadlines and limits. */
export const configFrom = (file: ConfigFile): BuddyConfigShape => BuddyConfig.make(file)

/** Everything `BuddyHttpApp` needs: the services on the gateway client, the journal on stdout, the config. */
export const BuddyLive = (config: BuddyConfigShape) =>
  BuddyServicesLive.pipe(Layer.provide(JournalLive), Layer.provideMerge(BuddyConfig.layer(config)))

/**
 * `(Request) => Promise<Response>` for a host that is not an Effect program. Call `dispose` when
 * the host stops: it closes the layers and cancels nothing on Hermes (C4.9).
 */
export const makeBuddyWebHandler = (config: BuddyConfigShape) =>
  HttpApp.toWebHandlerLayer(BuddyHttpApp, BuddyLive(config))
