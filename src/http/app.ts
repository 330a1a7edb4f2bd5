// The HTTP app a Launchpad imports (C6): the routes behind C6's checks in order, every answer
// with the security headers, built from the same layers as the CLI. `BuddyHttpApp` is a plain
// @effect/platform HttpApp that answers wherever it is mounted (D20); ./hosts.ts serves it under a
// prefix to hosts that do not cut one off, ./live.ts makes the layers it needs.
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Option } from "effect"
import type { ConfigFile } from "../schema/config.js"
import { BuddyConfig, type BuddyConfigShape, type ConfigInvalid } from "../services/BuddyConfig.js"
import { buddyPresent, placeOf, requireSameOrigin } from "./admission.js"
import { blockedAnswer, refusedAnswer, unavailableAnswer } from "./answer.js"
import { isJsonMediaType } from "./body.js"
import { Refused, refused } from "./refusal.js"
import { respond, routes } from "./routes.js"
import { unforeseen } from "./unforeseen.js"

/**
 * The method a route is found by. HEAD is answered wherever GET is, as GET answers it (RFC 9110
 * §9.3.2, D52): same checks, status and headers; every host the app runs in (Node's, a web handler)
 * leaves the body out of an answer to HEAD itself, so its Content-Length is still GET's.
 */
const routeMethod = (method: string) => (method === "HEAD" ? "GET" : method)

/** What a path's `Allow` names: its routes' methods, HEAD beside every GET. */
const allowed = (atPath: ReadonlyArray<{ readonly method: string }>) =>
  atPath.flatMap(({ method }) => (method === "GET" ? ["GET", "HEAD"] : [method]))

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
  const route = atPath.find((candidate) => candidate.method === routeMethod(request.method))
  if (route === undefined) {
    return yield* Effect.fail(new Refused({ reason: "method-not-allowed", allow: allowed(atPath) }))
  }
  return { route, root, config, request }
})

/** The app: checks 1–4 in order, then the route's work; blocked, unavailable and the unforeseen mapped. */
export const BuddyHttpApp = routeOf.pipe(
  Effect.flatMap(({ config, request, root, route }) =>
    Effect.gen(function*() {
      if (route.method === "POST") yield* requireSameOrigin(config, request)
      if (route.body !== "none" && !isJsonMediaType(request.headers["content-type"])) {
        return yield* Effect.fail(refused("invalid-content-type"))
      }
      return yield* respond(route, root)
    }).pipe(
      Effect.catchTags({ Refused: refusedAnswer, Blocked: blockedAnswer, Unavailable: unavailableAnswer }),
      Effect.catchAllCause(unforeseen(route.operationId))
    )
  ),
  Effect.catchTag("Refused", refusedAnswer),
  Effect.catchAllCause(unforeseen("a request"))
)

/**
 * A config file's fields as code gives them: the file's form (JSON has no undefined, so the Schema's
 * optional fields are exact), each optional field also taking an explicit `undefined` (D51).
 */
export type ConfigFileFields = Omit<ConfigFile, "hermesHome" | "buddyOrigin" | "socketGroup"> & {
  readonly hermesHome?: ConfigFile["hermesHome"] | undefined
  readonly buddyOrigin?: ConfigFile["buddyOrigin"] | undefined
  readonly socketGroup?: ConfigFile["socketGroup"] | undefined
}

/**
 * BuddyConfig from its file form (C6 "Config") plus the contract's deadlines and limits, checked as
 * `BuddyConfig.make` checks. `socketGroup` is `buddy serve`'s own and not the app's.
 */
export const configFrom = (
  { socketGroup: _, ...fields }: ConfigFileFields
): Effect.Effect<BuddyConfigShape, ConfigInvalid> => BuddyConfig.make(fields)
