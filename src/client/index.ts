// buddy/client: the Launchpad's front end talking to buddy's routes (C6) from its own page. Built
// from the same table and Schemas the app answers from (src/schema/routes.ts), it decodes every
// answer into a closed result and never throws on one. It relies on what a browser sends by itself
// on a same-origin fetch (Origin, Sec-Fetch-Site, the Launchpad's cookie): it never sets those.
// Browser-safe and alone: it imports nothing, neither Node (docs/decisions.md D20) nor effect, so a
// front end with only @lazurio/buddy installed bundles it, with types that name nothing else (D49).
// The table reaches it as wire.ts and its types as answers.ts, both generated from the Schemas (D45).
import type { BuddyAnswer, CancelAnswer, PollAnswer, SignOutAnswer, StartAnswer } from "./answers.js"
import { type AnswerOf, decodeAnswer, readBody, type Refusal, type Result, type Trouble } from "./decode.js"
import type { OperationId, WireOperation } from "./shape.js"
import { apiRoot, operations } from "./wire.js"

export type {
  BlockedReason,
  BuddyAnswer,
  BuddyState,
  CancelAnswer,
  DeniedReason,
  GatewayReason,
  Locale,
  PlainError,
  PollAnswer,
  SignInEnding,
  SignInState,
  SignOutAnswer,
  StartAnswer
} from "./answers.js"
export type { Refusal, Result, Trouble }

export type StatusResult = Result<BuddyAnswer>
export type StartResult = Result<StartAnswer>
export type PollResult = Result<PollAnswer>
export type CancelResult = Result<CancelAnswer>
export type SignOutResult = Result<SignOutAnswer>
/** `hold` was stopped by its signal before the sign-in ended: nothing was cancelled. */
export type Stopped = { readonly kind: "stopped" }

/** What the client asks of `fetch`; the browser's own `fetch` (and Node's) is one. */
export interface FetchInit {
  readonly method: "GET" | "POST"
  readonly credentials: "same-origin"
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  readonly redirect: "manual"
  readonly cache: "no-store"
}
export interface FetchResponse {
  /** 0 for a redirect a browser does not follow (`redirect: "manual"` gives an opaque redirect). */
  readonly status: number
  text(): Promise<string>
}
export type Fetch = (url: string, init: FetchInit) => Promise<FetchResponse>

/** An `AbortSignal`, as much of it as `hold` uses. */
export interface StopSignal {
  readonly aborted: boolean
  addEventListener(type: "abort", listener: () => void): void
  removeEventListener(type: "abort", listener: () => void): void
}

/**
 * Hermes's `poll_interval` for Codex's device login, in milliseconds. C6's start answer does not
 * carry Hermes's interval, so `hold` polls at this one unless told otherwise (D20).
 */
export const defaultPollInterval = 5_000

export interface BuddyClientOptions {
  /** Where the app is mounted, without a trailing slash: C6's `/api/buddy` unless the Launchpad moved it. */
  readonly root?: string | undefined
  /** The page's own `fetch` unless given (tests give Node's, with the headers a browser would add). */
  readonly fetch?: Fetch | undefined
  /** Milliseconds between `hold`'s polls. */
  readonly pollInterval?: number | undefined
}

export interface HoldOptions {
  /** Called with each poll's result that differs from the one before (the first included). */
  readonly onChange?: ((result: PollResult) => void) | undefined
  /** Stops holding (between polls); it cancels nothing: `cancel` does. */
  readonly signal?: StopSignal | undefined
  /** Milliseconds between polls, for this hold. */
  readonly interval?: number | undefined
}

export interface BuddyClient {
  /** `GET /api/buddy`: Buddy's state and whether a sign-in is held. */
  readonly status: () => Promise<StatusResult>
  /** Starts the sign-in; the page holding it gets the handle, the code and OpenAI's page. */
  readonly start: () => Promise<StartResult>
  readonly poll: (handle: string) => Promise<PollResult>
  readonly cancel: (handle: string) => Promise<CancelResult>
  readonly signOut: () => Promise<SignOutResult>
  /**
   * Polls every interval until Hermes ends the sign-in (any state but pending) or nothing is left
   * to hold (the handle is not the holder's, the request itself is refused, the Launchpad's front
   * door answers instead of buddy); a gateway that does not answer, a failed request or an unknown
   * answer only waits for the next poll, as the CLI does, each such wait twice the one before, up to
   * `maxPollBackoff` (D49).
   */
  readonly hold: (handle: string, options?: HoldOptions) => Promise<PollResult | Stopped>
}

/**
 * Whether holding ends with this result: an ending, or a refusal no later poll can undo (the handle not
 * the holder's, a refusal of the request itself, the front door). A gateway that cannot answer now, an
 * unforeseen failure inside buddy, another sign-in running, a failed or unknown answer: the next poll.
 */
const settles = (result: PollResult): boolean =>
  result.kind === "sign-in"
    ? result.state !== "pending"
    : result.kind === "blocked"
    ? result.reason === "sign-in-unknown"
    : result.kind === "error"
    ? result.error !== "operation-failed"
    : result.kind === "denied" || result.kind === "front-door"

/** Resolves `true` after `ms`, or `false` as soon as `signal` stops it. */
const sleep = (ms: number, signal: StopSignal | undefined) =>
  new Promise<boolean>((resolve) => {
    if (signal?.aborted === true) return resolve(false)
    const stop = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop)
      resolve(true)
    }, ms)
    signal?.addEventListener("abort", stop)
  })

const networkFailed: Trouble = { kind: "network-failed" }

/**
 * The longest wait between two polls while the gateway is unavailable (or no answer comes): each such
 * poll doubles the wait, from the interval up to this, and a poll that is answered again resets it.
 * Buddy's page stays patient without asking a stopped gateway every 5 s for 15 minutes (D49).
 */
export const maxPollBackoff = 30_000

/** Whether this result says only that nothing could be asked now: the next poll waits longer. */
const unanswered = (result: PollResult) =>
  result.kind === "unavailable" || result.kind === "network-failed" || result.kind === "unknown-answer"

export const makeBuddyClient = (options: BuddyClientOptions = {}): BuddyClient => {
  const root = options.root ?? apiRoot
  // Called as a plain function: a browser's `fetch` refuses to run with another `this`.
  const fetch: Fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init))
  const pollInterval = options.pollInterval ?? defaultPollInterval

  const ask = <Id extends OperationId>(
    operation: Pick<WireOperation, "path" | "method"> & { readonly operationId: Id },
    body?: { readonly handle: string }
  ): Promise<Result<AnswerOf<Id>>> => {
    const init: FetchInit = operation.method === "GET"
      ? { method: "GET", credentials: "same-origin", headers: {}, redirect: "manual", cache: "no-store" }
      : {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
        redirect: "manual",
        cache: "no-store"
      }
    // A fetch that throws at once fails like one that rejects: `then` turns both into the same path.
    return Promise.resolve()
      .then(() => fetch(`${root}${operation.path}`, init))
      .then(
        (response) =>
          response.text().then(
            (text) => readBody(text).then((read) => decodeAnswer(operation, response.status, read)),
            (): Result<AnswerOf<Id>> => networkFailed
          ),
        (): Result<AnswerOf<Id>> => networkFailed
      )
  }

  const poll = (handle: string) => ask(operations.pollSignIn, { handle })

  return {
    status: () => ask(operations.status),
    start: () => ask(operations.startSignIn),
    poll,
    cancel: (handle) => ask(operations.cancelSignIn, { handle }),
    signOut: () => ask(operations.signOut),
    hold: async (handle, { interval = pollInterval, onChange, signal } = {}) => {
      let last: string | undefined
      let wait = interval
      while (await sleep(wait, signal)) {
        const result = await poll(handle)
        const seen = JSON.stringify(result)
        if (seen !== last) onChange?.(result)
        last = seen
        if (settles(result)) return result
        wait = unanswered(result) ? Math.min(wait * 2, Math.max(maxPollBackoff, interval)) : interval
      }
      return { kind: "stopped" }
    }
  }
}
