// Property 1 of every decoder: an outcome is a value or one closed reason, never a defect, an
// interruption or a thrown exception. The reasons are C7's, written out again from the contract.
import { Cause, Exit, Option } from "effect"

/** C7 gateway reasons. */
export const gatewayReasons: ReadonlySet<string> = new Set([
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
])

/** C7 blocked reasons. */
export const blockedReasons: ReadonlySet<string> = new Set([
  "hermes-outdated",
  "sign-in-running",
  "sign-in-unknown",
  "lock-unavailable"
])

/** The one tagged error an exit failed with, or a description of why it is not one. */
export const failureOf = <A, E>(exit: Exit.Exit<A, E>): { readonly _tag: string; readonly reason: string } => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const cause = exit.cause
  const failure = Cause.failureOption(cause)
  if (!Cause.isFailType(cause) || Option.isNone(failure)) {
    throw new Error(`not one closed failure: ${Cause.pretty(cause)}`)
  }
  const error: unknown = failure.value
  if (typeof error !== "object" || error === null || !("_tag" in error) || !("reason" in error)) {
    throw new Error(`not a tagged error with a reason: ${String(error)}`)
  }
  return { _tag: String(error._tag), reason: String(error.reason) }
}

/**
 * The exit is a success, or a failure with exactly one error tagged one of `tags` whose reason is
 * in `reasons`; anything else (a defect, an interruption, two failures, another error) throws.
 */
export const expectClosed = <A, E>(
  exit: Exit.Exit<A, E>,
  tags: ReadonlyArray<string>,
  reasons: ReadonlySet<string> = gatewayReasons
): void => {
  if (Exit.isSuccess(exit)) return
  const { _tag, reason } = failureOf(exit)
  if (!tags.includes(_tag) || !reasons.has(reason)) throw new Error(`not a closed failure: ${_tag} ${reason}`)
}
