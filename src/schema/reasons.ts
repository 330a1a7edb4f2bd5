// The closed reasons of contract C7 and the closed states of C4/C5: contracts for automation,
// never renamed, never translated, never carrying Hermes's own text.
import * as Schema from "effect/Schema"

/** Why the gateway could not be used (C7 gateway reasons). */
export const GatewayReason = Schema.Literal(
  "not-running",
  "not-ready",
  "incompatible",
  "unsafe-home",
  "unsafe-socket",
  "unsafe-pointer",
  "foreign-origin",
  "timeout",
  "too-large",
  "malformed",
  "refused",
  "http-error",
  "lost"
)
export type GatewayReason = typeof GatewayReason.Type

/**
 * Why a sign-in operation changed nothing (C4 rule 5, C6 409); `lock-unavailable`: the holder lock
 * (C4.1) cannot be taken at all, so a start or a sign-out refuses rather than run unlocked.
 */
export const BlockedReason = Schema.Literal("hermes-outdated", "sign-in-running", "sign-in-unknown", "lock-unavailable")
export type BlockedReason = typeof BlockedReason.Type

/** The closed sign-in states (C4 rule 10). */
export const SignInState = Schema.Literal(
  "none",
  "pending",
  "signed-in",
  "expired",
  "refused",
  "lost",
  "failed",
  "cancelled"
)
export type SignInState = typeof SignInState.Type

/** Buddy's state (C5): a pure function of one fresh provider-card reading. */
export const BuddyState = Schema.Literal("works", "waits", "unknown")
export type BuddyState = typeof BuddyState.Type
