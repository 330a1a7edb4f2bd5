// The journal line of C6: the operation, its outcome and the closed reason, nothing else.
import { Schema } from "effect"
import { BlockedReason, GatewayReason, SignInState } from "./reasons.js"

export const JournalOperation = Schema.Literal("start", "poll", "cancel", "sign-out")
export type JournalOperation = typeof JournalOperation.Type

/** A sign-in state, `signed-out`, or the refusal families. */
export const JournalOutcome = Schema.Union(SignInState, Schema.Literal("signed-out", "blocked", "unavailable"))
export type JournalOutcome = typeof JournalOutcome.Type

export const JournalLine = Schema.Struct({
  scope: Schema.Literal("buddy-sign-in"),
  operation: JournalOperation,
  outcome: JournalOutcome,
  reason: Schema.optionalWith(Schema.Union(BlockedReason, GatewayReason), { exact: true })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type JournalLine = typeof JournalLine.Type
