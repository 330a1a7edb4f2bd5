// Every answer the app sends: JSON encoded through its Schema, with the three security headers
// of C6 on every one of them, errors included.
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Schema } from "effect"
import { BlockedAnswer, DeniedAnswer, ErrorAnswer, type PlainError, UnavailableAnswer } from "../schema/routes.js"
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
    Effect.map((encoded) =>
      HttpServerResponse.text(JSON.stringify(encoded), {
        status,
        contentType: "application/json",
        headers: { ...headers, ...securityHeaders }
      })
    )
  )

const plain = (status: number, error: PlainError, headers?: Record<string, string>) =>
  answer(ErrorAnswer, status, { error }, headers)

/** C6 checks 1–4 on the wire. */
export const refusedAnswer = (refusal: Refused) => {
  switch (refusal.reason) {
    case "buddy-absent":
    case "not-found":
      return plain(404, refusal.reason)
    case "method-not-allowed":
      return plain(405, refusal.reason, { allow: (refusal.allow ?? []).join(", ") })
    case "origin-mismatch":
      return answer(DeniedAnswer, 403, { error: "denied", reason: "origin-mismatch" })
    case "invalid-content-type":
      return plain(415, refusal.reason)
    case "body-too-large":
      // The rest of the body is never read: the connection closes after this answer.
      return plain(413, refusal.reason, { connection: "close" })
    case "invalid-request":
    case "invalid-handle":
      return plain(400, refusal.reason)
  }
}

export const blockedAnswer = (blocked: Blocked) =>
  answer(BlockedAnswer, 409, { kind: "blocked", reason: blocked.reason })

export const unavailableAnswer = (unavailable: Unavailable) =>
  answer(UnavailableAnswer, 503, { error: "buddy-unavailable", reason: unavailable.reason })

/** Anything unforeseen: never a stack or a message. */
export const failedAnswer = plain(500, "operation-failed")
