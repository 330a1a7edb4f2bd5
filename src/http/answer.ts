// Every answer the app sends: JSON encoded through its Schema, with the three security headers
// of C6 on every one of them, errors included. Each refusal's status comes from the one table
// (`refusals` in src/schema/routes.ts), which the OpenAPI document and the browser client read too.
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Schema } from "effect"
import { BlockedAnswer, DeniedAnswer, ErrorAnswer, refusals, UnavailableAnswer } from "../schema/routes.js"
import type { Blocked, Unavailable } from "../services/SignIn.js"
import type { Refused } from "./refusal.js"

export const securityHeaders = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
} as const

/** `body` encoded by `schema` as the JSON answer with `status`. An encoding failure is a defect (500). */
export const answer = <A, I>(
  schema: Schema.Schema<A, I>,
  status: number,
  body: NoInfer<A>,
  headers: Record<string, string> = {}
) =>
  Schema.encode(schema)(body).pipe(
    Effect.orDie,
    Effect.map((encoded) => json(JSON.stringify(encoded), status, headers))
  )

/** Text that is already JSON (the OpenAPI document, built once), with the security headers. */
export const json = (text: string, status: number, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(text, {
    status,
    contentType: "application/json",
    headers: { ...headers, ...securityHeaders }
  })

/** C6 checks 1–4 on the wire. */
export const refusedAnswer = (refusal: Refused) => {
  const { status } = refusals[refusal.reason]
  switch (refusal.reason) {
    case "origin-mismatch":
      return answer(DeniedAnswer, status, { error: "denied", reason: refusal.reason })
    case "method-not-allowed":
      // Stryker disable next-line ArrayDeclaration: a 405 always names its path's methods
      return answer(ErrorAnswer, status, { error: refusal.reason }, { allow: (refusal.allow ?? []).join(", ") })
    case "body-too-large":
      // The rest of the body is never read: the connection closes after this answer.
      return answer(ErrorAnswer, status, { error: refusal.reason }, { connection: "close" })
    default:
      return answer(ErrorAnswer, status, { error: refusal.reason })
  }
}

export const blockedAnswer = (blocked: Blocked) =>
  answer(BlockedAnswer, refusals[blocked.reason].status, { kind: "blocked", reason: blocked.reason })

export const unavailableAnswer = (unavailable: Unavailable) =>
  answer(UnavailableAnswer, refusals["buddy-unavailable"].status, {
    error: "buddy-unavailable",
    reason: unavailable.reason
  })

/** Anything unforeseen: never a stack or a message. */
export const failedAnswer = answer(ErrorAnswer, refusals["operation-failed"].status, { error: "operation-failed" })
