// The wire of our own routes (C6): request bodies, exact and strict, and every answer body, so
// each byte we send is encoded through a Schema and the OpenAPI document is derived from them.
import { Schema } from "effect"
import { Locale } from "./config.js"
import { BlockedReason, BuddyState, GatewayReason, SignInState } from "./reasons.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/**
 * `{}` and nothing else: start and sign-out take no parameters. (`Schema.Struct({})` would be the
 * `{}` type, which admits any value but null; a record of no possible value admits only `{}`.)
 */
export const EmptyBody = Schema.Record({ key: Schema.String, value: Schema.Never }).annotations({
  identifier: "EmptyBody"
})

/** `{handle}` and nothing else; the handle's own shape is checked apart (invalid-handle). */
export const HandleBody = Schema.Struct({ handle: Schema.String }).annotations({ ...strict, identifier: "HandleBody" })

/** 32 lowercase hex chars (C4.3). */
export const Handle = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{32}$/))

export const BuddyAnswer = Schema.Struct({
  kind: Schema.Literal("buddy"),
  state: BuddyState,
  reason: Schema.optionalWith(GatewayReason, { exact: true }),
  signIn: Schema.Struct({ state: Schema.Literal("none", "pending") }),
  locale: Locale
}).annotations({ identifier: "BuddyAnswer" })
export type BuddyAnswer = typeof BuddyAnswer.Type

export const StartAnswer = Schema.Struct({
  kind: Schema.Literal("sign-in"),
  state: Schema.Literal("pending"),
  handle: Handle,
  code: Schema.String,
  page: Schema.String
}).annotations({ identifier: "SignInStarted" })

/** A poll's answer: the code and page only while pending. */
export const PollAnswer = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("sign-in"),
    state: Schema.Literal("pending"),
    code: Schema.String,
    page: Schema.String
  }),
  Schema.Struct({
    kind: Schema.Literal("sign-in"),
    state: SignInState.pipe(Schema.pickLiteral("signed-in", "expired", "refused", "lost", "failed", "cancelled"))
  })
).annotations({ identifier: "SignInState" })

export const CancelAnswer = Schema.Struct({
  kind: Schema.Literal("sign-in"),
  state: Schema.Literal("cancelled")
}).annotations({ identifier: "SignInCancelled" })

export const SignOutAnswer = Schema.Struct({
  kind: Schema.Literal("sign-out"),
  state: Schema.Literal("signed-out")
}).annotations({ identifier: "SignedOut" })

export const BlockedAnswer = Schema.Struct({
  kind: Schema.Literal("blocked"),
  reason: BlockedReason
}).annotations({ identifier: "Blocked" })

export const UnavailableAnswer = Schema.Struct({
  error: Schema.Literal("buddy-unavailable"),
  reason: GatewayReason
}).annotations({ identifier: "Unavailable" })

export const DeniedAnswer = Schema.Struct({
  error: Schema.Literal("denied"),
  reason: Schema.Literal("origin-mismatch")
}).annotations({ identifier: "Denied" })

/** The plain errors of C6 that carry no reason. */
export const PlainError = Schema.Literal(
  "buddy-absent",
  "not-found",
  "method-not-allowed",
  "invalid-content-type",
  "body-too-large",
  "invalid-request",
  "invalid-handle",
  "operation-failed"
)
export type PlainError = typeof PlainError.Type

export const ErrorAnswer = Schema.Struct({ error: PlainError }).annotations({ identifier: "Error" })
