// Generates src/client/wire.ts, what the browser client knows of the route table
// (src/schema/routes.ts) without bundling effect's Schema (docs/decisions.md D45): each operation's
// path, method and success shape (from its Schema's AST), the refusals it can be given with their
// statuses (the table's `refusalsOf`, `pathRefusals`, `serverRefusals`), and the refusal bodies'
// shape. `npx tsx scripts/client-wire.ts` writes it; test/client/wire.test.ts fails while the file
// differs from what the table generates now. A Schema node the client's checker cannot follow
// stops the generation, so the table cannot grow past what the client checks.
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { Field, Shape } from "../src/client/shape.js"
import { BlockedReason, BuddyState, GatewayReason, SignInState } from "../src/schema/reasons.js"
import {
  apiRoot,
  BlockedAnswer,
  BuddyAnswer,
  CancelAnswer,
  DeniedAnswer,
  DeniedReason,
  ErrorAnswer,
  OpenApiAnswer,
  operations,
  pathRefusals,
  PlainError,
  PollAnswer,
  refusals,
  refusalsOf,
  serverRefusals,
  SignOutAnswer,
  StartAnswer,
  UnavailableAnswer
} from "../src/schema/routes.js"

const cannot = (ast: SchemaAST.AST, why: string): never => {
  throw new Error(`scripts/client-wire.ts: the client cannot check ${String(ast)} (${ast._tag}): ${why}`)
}

/** The shape a Schema's AST decodes, for the node kinds the route table's answers use, and no others. */
export const shapeOf = (ast: SchemaAST.AST): Shape => {
  switch (ast._tag) {
    case "Literal":
      return typeof ast.literal === "string"
        ? { type: "literal", of: [ast.literal] }
        : cannot(ast, "a literal that is not a string")
    case "StringKeyword":
      return { type: "string" }
    case "UnknownKeyword":
      return { type: "unknown" }
    case "Refinement": {
      const pattern = ast.annotations[Schema.PatternSchemaId] as { readonly regex: RegExp } | undefined
      if (Option.getOrUndefined(SchemaAST.getSchemaIdAnnotation(ast)) !== Schema.PatternSchemaId) {
        return cannot(ast, "a refinement other than Schema.pattern")
      }
      // `g` and `y` make `test` stateful: Schema resets lastIndex before each test, the client does not.
      if (pattern === undefined || ast.from._tag !== "StringKeyword" || /[gy]/.test(pattern.regex.flags)) {
        return cannot(ast, "a pattern on anything but a plain string, or a stateful one")
      }
      return { type: "string", pattern: pattern.regex }
    }
    case "Union": {
      const members = ast.types.map(shapeOf)
      const literals = members.flatMap((member) => member.type === "literal" ? member.of : [])
      return members.every((member) => member.type === "literal")
        ? { type: "literal", of: literals }
        : { type: "union", of: members }
    }
    case "TypeLiteral": {
      const fields = ast.propertySignatures.map((property): Field =>
        typeof property.name === "string"
          ? { name: property.name, optional: property.isOptional, shape: shapeOf(property.type) }
          : cannot(ast, "a member named by a symbol or number")
      )
      const [index, ...more] = ast.indexSignatures
      if (
        more.length > 0 ||
        (index !== undefined && (index.parameter._tag !== "StringKeyword" || index.type._tag !== "UnknownKeyword"))
      ) {
        return cannot(ast, "an index signature other than one Record of string to Unknown")
      }
      return { type: "struct", fields, rest: index !== undefined }
    }
    default:
      return cannot(ast, "no such node in the client's checker")
  }
}

/** Each refusal an operation can be given, by name, with the one status the table gives it. */
const refusalsFor = (operation: (typeof operations)[keyof typeof operations]) =>
  Object.fromEntries(
    [...new Set([...refusalsOf(operation), ...pathRefusals, ...serverRefusals])].map((name) => [
      name,
      refusals[name].status
    ])
  )

/** The refusal bodies, in the order the client used to decode them. */
const refusalShape = shapeOf(Schema.Union(ErrorAnswer, DeniedAnswer, BlockedAnswer, UnavailableAnswer).ast)

/** A value as TypeScript source, indented as the project's formatter wants it. */
const source = (value: unknown, indent: string): string => {
  const inner = `${indent}  `
  if (value instanceof RegExp) return String(value)
  if (Array.isArray(value)) {
    const items = value.map((item) => source(item, inner))
    return items.every((item) => !item.includes("\n")) && items.join(", ").length < 80
      ? `[${items.join(", ")}]`
      : `[\n${items.map((item) => `${inner}${item}`).join(",\n")}\n${indent}]`
  }
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).map(([key, member]) =>
      `${/^[a-zA-Z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${source(member, inner)}`
    )
    return members.every((member) => !member.includes("\n")) && members.join(", ").length < 80
      ? `{ ${members.join(", ")} }`
      : `{\n${members.map((member) => `${inner}${member}`).join(",\n")}\n${indent}}`
  }
  return JSON.stringify(value)
}

/** The text of src/client/wire.ts. */
export const wireSource = (): string => {
  const wire = Object.fromEntries(
    Object.entries(operations).map(([id, operation]) => [id, {
      operationId: operation.operationId,
      path: operation.path,
      method: operation.method,
      success: shapeOf(operation.success.ast),
      refusals: refusalsFor(operation)
    }])
  )
  return [
    "// Generated by scripts/client-wire.ts from the route table (src/schema/routes.ts): do not edit.",
    "// test/client/wire.test.ts fails while it differs from what the table generates now.",
    "import type { OperationId, Shape, WireOperation } from \"./shape.js\"",
    "",
    `export const apiRoot = ${JSON.stringify(apiRoot)}`,
    "",
    `export const operations = ${source(wire, "")} as const satisfies { readonly [Id in OperationId]: WireOperation }`,
    "",
    `export const refusal: Shape = ${source(refusalShape, "")}`,
    ""
  ].join("\n")
}

/**
 * A shape as a TypeScript type: readonly, optional fields exact (`exactOptionalPropertyTypes`), and a
 * set of literals that one of `named` holds exactly written as that name.
 */
export const typeOf = (shape: Shape, named: ReadonlyMap<string, string> = new Map(), indent = ""): string => {
  const inner = `${indent}  `
  switch (shape.type) {
    case "literal":
      return named.get(JSON.stringify(shape.of)) ?? shape.of.map((literal) => JSON.stringify(literal)).join(" | ")
    case "string":
      return "string"
    case "unknown":
      return "unknown"
    case "union":
      return shape.of.map((member) => typeOf(member, named, indent)).join(" | ")
    case "struct": {
      const members = [
        ...shape.fields.map(({ name, optional, shape: field }) =>
          `${inner}readonly ${name}${optional ? "?" : ""}: ${typeOf(field, named, inner)}`
        ),
        ...(shape.rest ? [`${inner}readonly [key: string]: unknown`] : [])
      ]
      return members.length === 0 ? "{}" : `{\n${members.join("\n")}\n${indent}}`
    }
  }
}

/** The closed values the client's types and the card's words name, each set by its name. */
export const closedValues = {
  GatewayReason: GatewayReason.literals,
  BlockedReason: BlockedReason.literals,
  SignInState: SignInState.literals,
  SignInEnding: SignInState.literals.filter((state) => state !== "none" && state !== "pending"),
  BuddyState: BuddyState.literals,
  Locale: ["cs", "en"],
  DeniedReason: DeniedReason.literals,
  PlainError: PlainError.literals,
  OperationId: Object.keys(operations),
  RefusalName: Object.keys(refusals)
} as const

const closedDocs: Readonly<Record<keyof typeof closedValues, string>> = {
  GatewayReason: "Why the gateway could not be used (C7).",
  BlockedReason: "Why a sign-in operation changed nothing (C4.5, C6 409).",
  SignInState: "The closed sign-in states (C4).",
  SignInEnding: "How a sign-in ended (C4): every state but none and pending.",
  BuddyState: "Buddy's state (C5).",
  Locale: "The words' language a status answer names (the Launchpad's own).",
  DeniedReason: "Why a request was not admitted (C6 403).",
  PlainError: "A plain error's closed name.",
  OperationId: "The route table's operations.",
  RefusalName: "Every refusal the table names."
}

/** `export type name = …`, one literal a line (as the formatter writes it) when one line is too long. */
const literalType = (name: string, values: ReadonlyArray<string>) => {
  const quoted = values.map((value) => JSON.stringify(value))
  const line = `export type ${name} = ${quoted.join(" | ")}`
  return line.length <= 120 ? line : `export type ${name} =\n${quoted.map((value) => `  | ${value}`).join("\n")}`
}

/**
 * The text of src/client/answers.ts: the answers' and the closed values' types as plain TypeScript,
 * so the client's declarations name nothing of effect (a front end with only @lazurio/buddy installed
 * type-checks them exactly, issue 37), and the closed values as constants the card's words are held
 * to; test/client/answers.test.ts holds each type equal to its Schema's.
 */
export const answersSource = (): string => {
  const named = new Map(
    Object.entries(closedValues).map(([name, values]) => [JSON.stringify(values), name])
  )
  const answer = (
    name: string,
    schema: Schema.Schema.Any,
    doc: string
  ) => [`/** ${doc} */`, `export type ${name} = ${typeOf(shapeOf(schema.ast), named)}`, ""]
  return [
    "// Generated by scripts/client-wire.ts from the route table (src/schema/routes.ts): do not edit.",
    "// test/client/wire.test.ts fails while it differs from what the table generates now.",
    "",
    ...Object.entries(closedValues).flatMap(([name, values]) => [
      `/** ${closedDocs[name as keyof typeof closedValues]} */`,
      literalType(name, values),
      ""
    ]),
    ...answer("BuddyAnswer", BuddyAnswer, "`GET /api/buddy`: Buddy's state, whether a sign-in is held, the locale."),
    ...answer("StartAnswer", StartAnswer, "A started sign-in: its handle, code and OpenAI's page."),
    ...answer("PollAnswer", PollAnswer, "A held sign-in: pending with its code and page, or its ending."),
    ...answer("CancelAnswer", CancelAnswer, "A cancel's ending."),
    ...answer("SignOutAnswer", SignOutAnswer, "Signed out."),
    ...answer("OpenApiAnswer", OpenApiAnswer, "`GET /api/buddy/openapi.json`: an OpenAPI 3.1 document."),
    "/** A refusal body of the table's: `{error}`, `{error:\"denied\",reason}`, `{kind:\"blocked\",reason}`, `{error:\"buddy-unavailable\",reason}`. */",
    `export type RefusalAnswer = ${typeOf(refusalShape, named)}`,
    ""
  ].join("\n")
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(fileURLToPath(new URL("../src/client/wire.ts", import.meta.url)), wireSource())
  writeFileSync(fileURLToPath(new URL("../src/client/answers.ts", import.meta.url)), answersSource())
}
