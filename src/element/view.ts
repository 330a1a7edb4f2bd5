// What the card shows, as a closed value made from the client's results (C10): no DOM here, so each
// step from an answer to what the person sees is a pure function the tests (and mutants) reach
// without a browser. The element (./card.ts) draws a view and reports it; nothing of a view but its
// closed values ever leaves the card (`changeOf`): never the code, the page or the handle.
import type {
  BlockedReason,
  BuddyState,
  DeniedReason,
  GatewayReason,
  PlainError,
  SignInEnding
} from "../client/answers.js"
import type {
  CancelResult,
  PollResult,
  Refusal,
  SignOutResult,
  StartResult,
  StatusResult,
  Trouble
} from "../client/index.js"

/** What went wrong instead of an answer: a refusal of the table, or trouble of the client's. */
export type Problem =
  | { readonly kind: "blocked"; readonly reason: BlockedReason }
  | { readonly kind: "unavailable"; readonly reason: GatewayReason }
  | { readonly kind: "denied"; readonly reason: DeniedReason }
  | { readonly kind: "error"; readonly error: PlainError }
  | { readonly kind: "front-door" }
  | { readonly kind: "network-failed" }
  | { readonly kind: "unknown-answer" }

export type View =
  | { readonly kind: "loading" }
  /** Buddy's state, and whether a sign-in is held (elsewhere: this page holds none). */
  | {
    readonly kind: "buddy"
    readonly state: BuddyState
    readonly reason: GatewayReason | undefined
    readonly signIn: "none" | "pending"
  }
  | { readonly kind: "starting" }
  /** This page's sign-in, waiting for the person; `since` is when the code was first shown (ms). */
  | { readonly kind: "pending"; readonly code: string; readonly page: string; readonly since: number }
  | { readonly kind: "cancelling"; readonly code: string; readonly page: string; readonly since: number }
  | { readonly kind: "ended"; readonly state: SignInEnding }
  | { readonly kind: "confirm-sign-out" }
  | { readonly kind: "signing-out" }
  | { readonly kind: "signed-out" }
  /** An operation's answer was not its success: what it was, and whether trying again may help. */
  | { readonly kind: "problem"; readonly problem: Problem }

/** The closed values of a view: what the card's change event carries (C10), and nothing else. */
export type Change =
  | { readonly view: "loading" | "starting" | "confirm-sign-out" | "signing-out" | "signed-out" }
  | {
    readonly view: "buddy"
    readonly state: BuddyState
    readonly reason?: GatewayReason
    readonly signIn: "none" | "pending"
  }
  | { readonly view: "pending" | "cancelling" }
  | { readonly view: "ended"; readonly state: SignInEnding }
  | { readonly view: "blocked"; readonly reason: BlockedReason }
  | { readonly view: "unavailable"; readonly reason: GatewayReason }
  | { readonly view: "denied"; readonly reason: DeniedReason }
  | { readonly view: "error"; readonly error: PlainError }
  | { readonly view: "front-door" | "network-failed" | "unknown-answer" }

const problemOf = (result: Refusal | Trouble): Problem => {
  switch (result.kind) {
    case "blocked":
      return { kind: "blocked", reason: result.reason }
    case "unavailable":
      return { kind: "unavailable", reason: result.reason }
    case "denied":
      return { kind: "denied", reason: result.reason }
    case "error":
      return { kind: "error", error: result.error }
    default:
      return { kind: result.kind }
  }
}

const problem = (result: Refusal | Trouble): View => ({ kind: "problem", problem: problemOf(result) })

export const fromStatus = (result: StatusResult): View =>
  result.kind === "buddy"
    ? { kind: "buddy", state: result.state, reason: result.reason, signIn: result.signIn.state }
    : problem(result)

export const fromStart = (result: StartResult, now: number): View =>
  result.kind === "sign-in" ? { kind: "pending", code: result.code, page: result.page, since: now } : problem(result)

/**
 * A poll's result while this page holds the sign-in: still pending (keeping when it began), an ending,
 * or a problem. A poll that only could not ask (unavailable, failed, unknown) keeps the code on screen:
 * `hold` goes on polling, and the person may still approve it.
 */
export const fromPoll = (result: PollResult, held: View): View => {
  const since = held.kind === "pending" || held.kind === "cancelling" ? held.since : 0
  if (result.kind === "sign-in") {
    return result.state === "pending"
      ? { kind: "pending", code: result.code, page: result.page, since }
      : { kind: "ended", state: result.state }
  }
  const waitsOn = result.kind === "unavailable" || result.kind === "network-failed" || result.kind === "unknown-answer"
  return waitsOn && held.kind === "pending" ? held : problem(result)
}

export const fromCancel = (result: CancelResult): View =>
  result.kind === "sign-in" ? { kind: "ended", state: result.state } : problem(result)

export const fromSignOut = (result: SignOutResult): View =>
  result.kind === "sign-out" ? { kind: "signed-out" } : problem(result)

/** The closed values of `view`, as its change event carries them. */
export const changeOf = (view: View): Change => {
  switch (view.kind) {
    case "buddy":
      return view.reason === undefined
        ? { view: "buddy", state: view.state, signIn: view.signIn }
        : { view: "buddy", state: view.state, reason: view.reason, signIn: view.signIn }
    case "ended":
      return { view: "ended", state: view.state }
    case "problem": {
      const { problem: said } = view
      switch (said.kind) {
        case "blocked":
          return { view: "blocked", reason: said.reason }
        case "unavailable":
          return { view: "unavailable", reason: said.reason }
        case "denied":
          return { view: "denied", reason: said.reason }
        case "error":
          return { view: "error", error: said.error }
        default:
          return { view: said.kind }
      }
    }
    default:
      return { view: view.kind }
  }
}

/** Whole minutes from `since` to `now`, never below zero (a clock set back). */
export const minutesWaited = (since: number, now: number) => Math.max(0, Math.floor((now - since) / 60_000))
