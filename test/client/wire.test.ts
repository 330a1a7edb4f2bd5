// src/client/wire.ts is generated from the route table (scripts/client-wire.ts, docs/decisions.md
// D45): it must be exactly what the table generates now, and the generator must stop at any Schema
// node the client's checker does not follow rather than let it through unchecked.
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { answersSource, shapeOf, wireSource } from "../../scripts/client-wire.js"

describe("src/client/wire.ts", () => {
  it("is what the route table generates now (else run `npx tsx scripts/client-wire.ts`)", () => {
    const written = readFileSync(new URL("../../src/client/wire.ts", import.meta.url), "utf8")
    expect(written).toBe(wireSource())
  })
})

describe("src/client/answers.ts", () => {
  it("is what the route table generates now (else run `npx tsx scripts/client-wire.ts`)", () => {
    const written = readFileSync(new URL("../../src/client/answers.ts", import.meta.url), "utf8")
    expect(written).toBe(answersSource())
  })
})

describe("the generator", () => {
  it("makes a shape of each node the route table's answers use", () => {
    expect(shapeOf(Schema.Literal("a", "b").ast)).toStrictEqual({ type: "literal", of: ["a", "b"] })
    expect(shapeOf(Schema.String.pipe(Schema.pattern(/^x+$/)).ast)).toStrictEqual({ type: "string", pattern: /^x+$/ })
    expect(
      shapeOf(Schema.Struct({ a: Schema.String, b: Schema.optionalWith(Schema.Unknown, { exact: true }) }).ast)
    ).toStrictEqual({
      type: "struct",
      fields: [
        { name: "a", optional: false, shape: { type: "string" } },
        { name: "b", optional: true, shape: { type: "unknown" } }
      ],
      rest: false
    })
    expect(shapeOf(Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown })).ast))
      .toStrictEqual({ type: "struct", fields: [], rest: true })
    expect(shapeOf(Schema.Union(Schema.Struct({ a: Schema.Literal("x") }), Schema.Literal("y")).ast)).toStrictEqual({
      type: "union",
      of: [
        {
          type: "struct",
          fields: [{ name: "a", optional: false, shape: { type: "literal", of: ["x"] } }],
          rest: false
        },
        { type: "literal", of: ["y"] }
      ]
    })
  })

  it("stops at every other node: the client would not check it as the Schema does", () => {
    const unsupported = {
      number: Schema.Number,
      "a literal number": Schema.Literal(1),
      "another refinement": Schema.String.pipe(Schema.minLength(1)),
      "a global pattern": Schema.String.pipe(Schema.pattern(/x/g)),
      "a pattern on a refined string": Schema.String.pipe(Schema.minLength(1), Schema.pattern(/x/)),
      "an optional that takes undefined": Schema.Struct({ a: Schema.optional(Schema.String) }),
      "a record of strings": Schema.Record({ key: Schema.String, value: Schema.String }),
      "a transformation": Schema.NumberFromString,
      "a symbol key": Schema.Struct({ [Symbol.for("a")]: Schema.String }),
      "an array": Schema.Array(Schema.String)
    }
    for (const [what, schema] of Object.entries(unsupported)) {
      expect(() => shapeOf(schema.ast), what).toThrow(/the client cannot check/)
    }
  })
})
