// The shapes of the route table's answer Schemas, as plain data the browser client checks against
// without bundling effect's Schema (55 KB gzipped at the least: docs/decisions.md D45). wire.ts holds
// them, generated from the Schemas' AST (scripts/client-wire.ts); `decode` follows effect's own
// parser (ParseResult, `onExcessProperty: "error"`) node by node, and test/fuzz/client-answers.test.ts
// proves the two give the same verdict and the same value on valid answers and their near-misses.
import type { OperationId, RefusalName } from "./answers.js"

export type { OperationId }

export type Shape =
  /** One of these strings (Schema.Literal, and a Union of literals). */
  | { readonly type: "literal"; readonly of: ReadonlyArray<string> }
  /** Any string, or one the pattern matches (Schema.String, Schema.pattern). */
  | { readonly type: "string"; readonly pattern?: RegExp }
  /** Anything (Schema.Unknown). */
  | { readonly type: "unknown" }
  /** An object with exactly these fields, or with any others too when `rest` (a Record of Unknown). */
  | { readonly type: "struct"; readonly fields: ReadonlyArray<Field>; readonly rest: boolean }
  /** The first member that takes the value. */
  | { readonly type: "union"; readonly of: ReadonlyArray<Shape> }

export interface Field {
  readonly name: string
  /** Absent is allowed; present, it must fit (`optionalWith(…, { exact: true })`). */
  readonly optional: boolean
  readonly shape: Shape
}

/** What the client knows of one operation (wire.ts). */
export interface WireOperation {
  readonly operationId: OperationId
  /** Under the root: `""` is the root itself. */
  readonly path: string
  readonly method: "GET" | "POST"
  readonly success: Shape
  /** Each refusal it can be given (its own, the route table's, `buddy serve`'s), with its status. */
  readonly refusals: Readonly<Partial<Record<RefusalName, number>>>
}

const isRecord = (input: unknown): input is Readonly<Record<string, unknown>> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/**
 * A value a decoder found, boxed so that a found `undefined` (an absent required field an Unknown
 * takes, as effect's parser does) differs from nothing found (`undefined`). The client imports
 * nothing, effect's Option included: a front end with only @lazurio/buddy installed bundles it.
 */
export type Found = { readonly value: unknown } | undefined

/**
 * What `shape` makes of `input` (a parsed JSON value): the decoded value, or nothing. A struct's value
 * is a new object with its fields in the shape's order, then (with `rest`) the others in the input's.
 */
export const decode = (shape: Shape, input: unknown): Found => {
  switch (shape.type) {
    case "literal":
      return shape.of.some((literal) => literal === input) ? { value: input } : undefined
    case "string":
      return typeof input === "string" && (shape.pattern?.test(input) ?? true) ? { value: input } : undefined
    case "unknown":
      return { value: input }
    case "union":
      return shape.of.reduce<Found>((found, member) => found ?? decode(member, input), undefined)
    case "struct":
      return isRecord(input) ? struct(shape.fields, shape.rest, input) : undefined
  }
}

const struct = (fields: ReadonlyArray<Field>, rest: boolean, input: Readonly<Record<string, unknown>>): Found => {
  const named = (key: string) => fields.some(({ name }) => name === key)
  if (!rest && !Object.keys(input).every(named)) return undefined
  const output: Record<string, unknown> = {}
  for (const { name, optional, shape } of fields) {
    // As effect's parser: an absent field is skipped when optional, else its (undefined) value is checked.
    if (optional && !Object.hasOwn(input, name)) continue
    const found = decode(shape, input[name])
    if (found === undefined) return undefined
    output[name] = found.value
  }
  // Plain assignment, as effect's parser does it (a `__proto__` member sets the prototype there too).
  // Without `rest` every key is named (refused above otherwise), so this finds nothing to add; and a
  // named key's decoded value is what the input holds, for the shapes the wire has (a struct's keys in
  // its own order aside). Stryker's `true` for either condition is equivalent for that reason.
  // Stryker disable next-line ConditionalExpression
  if (rest) {
    // Stryker disable next-line ConditionalExpression
    for (const key of Object.keys(input)) if (!named(key)) output[key] = input[key]
  }
  return { value: output }
}
