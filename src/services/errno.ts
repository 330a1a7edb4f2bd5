// The errno code of a failed Node fs or child_process call: they reject with errno errors; the guard
// is for the type, since an `unknown` rejection could be anything.
import { Effect, Predicate } from "effect"

export const errnoOf = (error: unknown): string =>
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: every fs rejection carries a string code; the fallback is for the type
  Predicate.hasProperty(error, "code") && Predicate.isString(error.code) ? error.code : "EUNKNOWN"

/** A Node fs call as an Effect that fails with its errno code (ENOENT, EACCES, ...), for a caller to say in its words. */
export const fsCall = <A>(run: () => Promise<A>): Effect.Effect<A, string> =>
  Effect.tryPromise({ try: run, catch: errnoOf })
