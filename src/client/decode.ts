// Every answer of the app, decoded into one closed result: the operation's success body, one of
// the refusals the one table (src/schema/routes.ts) gives that operation or any path, or a
// trouble of its own (no answer at all, or one the table does not know). Nothing here throws.
// It checks against the table's Schemas as generated into wire.ts, not the Schemas themselves:
// effect's Schema alone would weigh 55 KB gzipped in a Launchpad's page (docs/decisions.md D45).
import * as Option from "effect/Option"
import type { BlockedReason, GatewayReason } from "../schema/reasons.js"
import type {
  BlockedAnswer,
  DeniedAnswer,
  DeniedReason,
  ErrorAnswer,
  operations as table,
  PlainError,
  RefusalName,
  UnavailableAnswer
} from "../schema/routes.js"
import { decode, type OperationId, type Shape } from "./shape.js"
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

/** No answer the table knows: the request never got one, or the answer is of no known shape. */
export type Trouble =
  /** fetch failed: offline, the connection reset, the body cut short. */
  | { readonly kind: "network-failed" }
  /** An answer whose status and body are not one of the operation's: a proxy's page, a redirect. */
  | { readonly kind: "unknown-answer"; readonly status: number }

export type Result<A> = A | Refusal | Trouble

/** What an operation answers on success: its Schema's type. */
export type AnswerOf<Id extends OperationId> = (typeof table)[Id]["success"]["Type"]

export type RefusalAnswer = ErrorAnswer | DeniedAnswer | BlockedAnswer | UnavailableAnswer

// JSON.parse throws on what is not JSON; Schema.parseJson fails there, and so does this.
const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

/**
 * The body `text` holds when it is JSON of `shape`. The one cast of the client: wire.ts's shapes are
 * generated from the Schemas whose type `A` is, and decode exactly as they do
 * (test/fuzz/client-answers.test.ts), so what a shape accepts is an `A`.
 */
const bodyOf = <A>(shape: Shape, text: string): Option.Option<A> =>
  Option.flatMap(parseJson(text), (json) => decode(shape, json) as Option.Option<A>)

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

/**
 * The answer of `operation` with this status and body text: its success body on 200; on another
 * status, a refusal only when the table gives that refusal this status and the operation (or the
 * route table: not-found, method-not-allowed; or `buddy serve`'s server: `serverRefusals`) can
 * give it; anything else is an unknown answer.
 */
export const decodeAnswer = <Id extends OperationId>(
  operation: { readonly operationId: Id },
  status: number,
  text: string
): Result<AnswerOf<Id>> => {
  const unknown: Trouble = { kind: "unknown-answer", status }
  const { refusals, success } = operations[operation.operationId]
  if (status === 200) return Option.getOrElse(bodyOf<AnswerOf<Id>>(success, text), (): Result<AnswerOf<Id>> => unknown)
  return Option.match(bodyOf<RefusalAnswer>(refusal, text), {
    onNone: () => unknown,
    onSome: (body) => {
      const [name, said] = refusalOf(body)
      const possible: Readonly<Partial<Record<RefusalName, number>>> = refusals
      return possible[name] === status ? said : unknown
    }
  })
}
