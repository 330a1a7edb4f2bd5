// C6 checks 1–3: is Buddy here at all, does the path and method exist, and does a POST come
// from the Launchpad's own page. Each answers before the next runs and before Hermes is asked.
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Option } from "effect"
import { apiRoot } from "../schema/routes.js"
import { absentBy, type BuddyConfigShape } from "../services/BuddyConfig.js"
import { SetupReport } from "../services/SetupReport.js"
import { originCause, originWords, setupCause } from "./origin-words.js"
import { type Refused, refused } from "./refusal.js"

/** Check 1: Buddy exists only on a hosted personal environment with a recorded Buddy origin. */
export const buddyPresent = (config: BuddyConfigShape) => absentBy(config) === undefined

/**
 * Check 3, for every POST: `Sec-Fetch-Site: same-origin` and `Origin` exactly the Launchpad's
 * origin, which is never Buddy's own (a Buddy page must not drive his own sign-in).
 */
export const requireSameOrigin = (
  config: BuddyConfigShape,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<void, Refused> => {
  const cause = originCause(config, request.headers["sec-fetch-site"], request.headers["origin"])
  if (cause === undefined) return Effect.void
  // Said once per cause on the Launchpad's logger (D50): the answer is the same for every cause.
  return Effect.flatMap(SetupReport, (report) => report.once(setupCause(cause), () => originWords(config, cause))).pipe(
    Effect.zipRight(Effect.fail(refused("origin-mismatch")))
  )
}

/** The path without its query. */
const withoutQuery = (target: string) => {
  const query = target.indexOf("?")
  return query === -1 ? target : target.slice(0, query)
}

/** A request target without scheme and host, as the platform makes `url` of an absolute one. */
export const targetOf = (url: string) => {
  if (url.startsWith("/")) return url
  const path = url.indexOf("/", url.indexOf("//") + 2)
  return path === -1 ? "/" : url.slice(path)
}

/** Where the request is, for the app: the root it is served under and the path below it. */
export interface Place {
  readonly root: string
  /** Under the root; `""` is the root itself. */
  readonly path: string
}

/**
 * The request's place under the app's root, or none when it is not for Buddy at all.
 *
 * A router that mounts the app under a prefix (`HttpRouter.mountApp`, `HttpRouter.mount`) cuts the
 * prefix off `url` and leaves `originalUrl` whole: the cut is the root, wherever it is, and what is
 * left is the path under it (the platform leaves `/` when nothing is left, and the query alone when
 * only the query is). Served whole (`HttpServer.serve`, `HttpRouter.all`, `makeHandler`, the web
 * handler), `url` is the whole target and the root is C6's `/api/buddy`. Matching is exact either
 * way, so the checks of C6 hold under every mounting: `/api/buddy/` or `/api/buddy/x` is
 * not-found, `/api/buddyx` is not Buddy's.
 */
export const placeOf = (
  request: Pick<HttpServerRequest.HttpServerRequest, "originalUrl" | "url">
): Option.Option<Place> => {
  const original = targetOf(request.originalUrl)
  const url = request.url
  if (url !== original) {
    const whole = withoutQuery(original)
    // `/` for a target the cut left empty: the prefix alone is the root itself.
    if (url === "/" && !original.endsWith("/")) return Option.some({ root: whole, path: "" })
    if (original.endsWith(url)) {
      const path = withoutQuery(url)
      return Option.some({ root: whole.slice(0, whole.length - path.length), path })
    }
  }
  const path = withoutQuery(url)
  if (path === apiRoot || path.startsWith(`${apiRoot}/`)) {
    return Option.some({ root: apiRoot, path: path.slice(apiRoot.length) })
  }
  return Option.none()
}
