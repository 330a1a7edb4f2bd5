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
import {
  apiRoot,
  BlockedAnswer,
  DeniedAnswer,
  ErrorAnswer,
  operations,
  pathRefusals,
  refusals,
  refusalsOf,
  serverRefusals,
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

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(fileURLToPath(new URL("../src/client/wire.ts", import.meta.url)), wireSource())
}
