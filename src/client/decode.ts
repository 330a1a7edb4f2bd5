// Every answer of the app, decoded into one closed result: the operation's success body, one of
// the refusals the one table (src/schema/routes.ts) gives that operation or any path, or a
// trouble of its own (no answer at all, the Launchpad's front door answering instead of buddy, or an
// answer the table does not know). Nothing here throws. It checks against the table's Schemas as
// generated into wire.ts, not the Schemas themselves: effect's Schema alone would weigh 55 KB
// gzipped in a Launchpad's page (docs/decisions.md D45), and the client imports nothing at all, so a
// front end with only @lazurio/buddy installed bundles it (issue 37, D49).
import type {
  BlockedReason,
  BuddyAnswer,
  CancelAnswer,
  DeniedReason,
  GatewayReason,
  OpenApiAnswer,
  OperationId,
  PlainError,
  PollAnswer,
  RefusalAnswer,
  RefusalName,
  SignOutAnswer,
  StartAnswer
} from "./answers.js"
import { decode, type Shape } from "./shape.js"
import { operations, refusal } from "./wire.js"

/** A refusal, tagged by `kind` like the success bodies: what the app said instead of doing it. */
export type Refusal =
  /**
   * 409: nothing changed (C4.5); `sign-in-unknown`: the handle is not the current holder's;
   * `lock-unavailable`: buddy's sign-in lock cannot be taken (an operator must fix its place).
   */
  | { readonly kind: "blocked"; readonly reason: BlockedReason }
  /** 503: the gateway could not be reached or failed, with its closed reason (C7). */
  | { readonly kind: "unavailable"; readonly reason: GatewayReason }
  /**
   * 403: the request did not come from the Launchpad's own page (C6 check 3, `origin-mismatch`),
   * or its Host does not name `buddy serve` (`host-mismatch`).
   */
  | { readonly kind: "denied"; readonly reason: DeniedReason }
  /** 400, 404, 405, 413, 415, 500, and from `buddy serve`'s own server 408, 417, 431: a plain error. */
  | { readonly kind: "error"; readonly error: PlainError }

/** No answer the table knows: the request never got one, or the answer is not buddy's. */
export type Trouble =
  /** fetch failed: offline, the connection reset, the body cut short. */
  | { readonly kind: "network-failed" }
  /**
   * The Launchpad's front door answered instead of buddy (C10): a 401, a 403 that is not buddy's,
   * a redirect (`status` 0 for a browser's opaque redirect, else its 3xx) or a page of HTML. The
   * Launchpad's own sign-in has most likely expired; asking again will not help until the person
   * signs in to the Launchpad again, so `hold` stops on it.
   */
  | { readonly kind: "front-door"; readonly status: number }
  /** An answer whose status and body are not one of the operation's, nor the front door's. */
  | { readonly kind: "unknown-answer"; readonly status: number }

export type Result<A> = A | Refusal | Trouble

export type { RefusalAnswer }

/** What each operation answers on success. */
export interface Answers {
  readonly status: BuddyAnswer
  readonly openApi: OpenApiAnswer
  readonly startSignIn: StartAnswer
  readonly pollSignIn: PollAnswer
  readonly cancelSignIn: CancelAnswer
  readonly signOut: SignOutAnswer
}

/** What an operation answers on success. */
export type AnswerOf<Id extends OperationId> = Answers[Id]

/** An answer's body: the JSON it parsed to, or the text that is not JSON. */
export type Body = { readonly json: unknown } | { readonly text: string }

/**
 * The body of `text`. JSON.parse throws on what is not JSON; thrown inside the promise's executor it
 * rejects, which is how the client says "not JSON" without a try/catch.
 */
export const readBody = (text: string): Promise<Body> =>
  new Promise<unknown>((resolve) => resolve(JSON.parse(text))).then(
    (json): Body => ({ json }),
    (): Body => ({ text })
  )

/**
 * The body `body` holds when it is JSON of `shape`. The one cast of the client: wire.ts's shapes are
 * generated from the Schemas whose type `A` is, and decode exactly as they do
 * (test/fuzz/client-answers.test.ts), so what a shape accepts is an `A`.
 */
const bodyOf = <A>(shape: Shape, body: Body): A | undefined => {
  const found = "json" in body ? decode(shape, body.json) : undefined
  return found === undefined ? undefined : found.value as A
}

/** The refusal a body says, and the table's name for it. */
export const refusalOf = (body: RefusalAnswer): readonly [RefusalName, Refusal] => {
  if ("kind" in body) return [body.reason, { kind: "blocked", reason: body.reason }]
  switch (body.error) {
    case "denied":
      return [body.reason, { kind: "denied", reason: body.reason }]
    case "buddy-unavailable":
      return ["buddy-unavailable", { kind: "unavailable", reason: body.reason }]
    default:
      return [body.error, { kind: "error", error: body.error }]
  }
}

/** HTML, as a front door's sign-in page is: buddy never answers anything but JSON. */
const looksLikeHtml = (body: Body) => "text" in body && /^\s*</.test(body.text)

/**
 * What an answer that is none of the operation's own is: the Launchpad's front door (401; a 403 that is
 * not one buddy gives this operation; a redirect; a 200 page of HTML, a sign-in page served in buddy's
 * place), or an answer of no known shape (a proxy's 502 page among them: buddy is down, not the
 * person's sign-in).
 */
export const troubleOf = (status: number, body: Body): Trouble =>
  status === 401 || status === 403 || status === 0 || (status >= 300 && status < 400) ||
    (status === 200 && looksLikeHtml(body))
    ? { kind: "front-door", status }
    : { kind: "unknown-answer", status }

/**
 * The answer of `operation` with this status and body: its success body on 200; on another
 * status, a refusal only when the table gives that refusal this status and the operation (or the
 * route table: not-found, method-not-allowed; or `buddy serve`'s server: `serverRefusals`) can
 * give it; anything else is trouble (`troubleOf`).
 */
export const decodeAnswer = <Id extends OperationId>(
  operation: { readonly operationId: Id },
  status: number,
  body: Body
): Result<AnswerOf<Id>> => {
  const { refusals, success } = operations[operation.operationId]
  const said = status === 200 ? bodyOf<AnswerOf<Id>>(success, body) : refused(refusals, status, body)
  return said ?? troubleOf(status, body)
}

const refused = (possible: Readonly<Partial<Record<RefusalName, number>>>, status: number, body: Body) => {
  const answer = bodyOf<RefusalAnswer>(refusal, body)
  if (answer === undefined) return undefined
  const [name, said] = refusalOf(answer)
  return possible[name] === status ? said : undefined
}
