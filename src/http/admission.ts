// C6 checks 1–3: is Buddy here at all, does the path and method exist, and does a POST come
// from the Launchpad's own page. Each answers before the next runs and before Hermes is asked.
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import type { BuddyConfigShape } from "../services/BuddyConfig.js"
import { refused } from "./refusal.js"

/** Check 1: Buddy exists only on a hosted personal environment with a recorded Buddy origin. */
export const buddyPresent = (config: BuddyConfigShape) =>
  config.buddyOrigin !== undefined && config.environment === "hosted-personal"

/**
 * Check 3, for every POST: `Sec-Fetch-Site: same-origin` and `Origin` exactly the Launchpad's
 * origin, which is never Buddy's own (a Buddy page must not drive his own sign-in).
 */
export const requireSameOrigin = (config: BuddyConfigShape) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const site = request.headers["sec-fetch-site"]
    const origin = request.headers["origin"]
    const admitted = site === "same-origin" && origin === config.launchpadOrigin && origin !== config.buddyOrigin
    return admitted ? Effect.void : Effect.fail(refused("origin-mismatch"))
  })

/** The path without its query. */
export const pathOf = (request: HttpServerRequest.HttpServerRequest) => request.url.split("?", 1)[0] ?? ""
