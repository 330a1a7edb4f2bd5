// Every answer of the app, decoded into one closed result: the operation's success body, one of
// the refusals the one table (src/schema/routes.ts) gives that operation or any path, or a
// trouble of its own (no answer at all, or one the table does not know). Nothing here throws.
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { BlockedReason, GatewayReason } from "../schema/reasons.js"
import {
  BlockedAnswer,
  DeniedAnswer,
  type DeniedReason,
  ErrorAnswer,
  type Operation,
  pathRefusals,
  type PlainError,
  type RefusalName,
  refusals,
  refusalsOf,
  serverRefusals,
  UnavailableAnswer
} from "../schema/routes.js"

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

const strict = { onExcessProperty: "error" } as const

const RefusalAnswer = Schema.parseJson(Schema.Union(ErrorAnswer, DeniedAnswer, BlockedAnswer, UnavailableAnswer))
const decodeRefusal = Schema.decodeUnknownEither(RefusalAnswer, strict)

/** The refusal a body says, and the table's name for it. */
const refusalOf = (body: typeof RefusalAnswer.Type): readonly [RefusalName, Refusal] => {
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
export const decodeAnswer = <A, I>(
  operation: Operation & { readonly success: Schema.Schema<A, I> },
  status: number,
  text: string
): Result<A> => {
  const unknown: Trouble = { kind: "unknown-answer", status }
  if (status === 200) {
    return Either.getOrElse(
      Schema.decodeUnknownEither(Schema.parseJson(operation.success), strict)(text),
      (): Result<A> => unknown
    )
  }
  const possible = [...refusalsOf(operation), ...pathRefusals, ...serverRefusals].filter((name) =>
    refusals[name].status === status
  )
  return Either.match(decodeRefusal(text), {
    onLeft: () => unknown,
    onRight: (body) => {
      const [name, refusal] = refusalOf(body)
      return possible.includes(name) ? refusal : unknown
    }
  })
}
