// The errno code of a failed Node fs or child_process call: they reject with errno errors; the guard
// is for the type, since an `unknown` rejection could be anything.
import { Predicate } from "effect"

export const errnoOf = (error: unknown): string =>
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: every fs rejection carries a string code; the fallback is for the type
  Predicate.hasProperty(error, "code") && Predicate.isString(error.code) ? error.code : "EUNKNOWN"
