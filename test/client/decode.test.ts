// The light client's checks (docs/decisions.md D45), case by case: as strict as the route table's
// Schemas with excess properties an error. test/fuzz/client-answers.test.ts proves the same against
// the Schemas on generated answers; these are the cases a reader looks for, spelt out.
import { describe, expect, it } from "vitest"
import { makeBuddyClient } from "../../src/client/index.js"
import { decode } from "../../src/client/shape.js"
import { operations } from "../../src/schema/routes.js"
import { decodeText as decodeAnswer } from "./support/decode-text.js"

const HANDLE = "0123456789abcdef0123456789abcdef"
const started = { kind: "sign-in", state: "pending", handle: HANDLE, code: "ABCD-EFGHK", page: "https://x" }
const status = { kind: "buddy", state: "unknown", reason: "timeout", signIn: { state: "none" }, locale: "cs" }

const unknownAt = (status: number) => ({ kind: "unknown-answer", status })

describe("the front door and the unknown, told apart (C10)", () => {
  it("any 3xx is the front door's redirect, 300 included; a 200 is its page only when the text starts as HTML", () => {
    for (const status of [300, 301, 302, 303, 307, 308, 399]) {
      expect(decodeAnswer(operations.status, status, ""), String(status)).toStrictEqual({ kind: "front-door", status })
    }
    expect(decodeAnswer(operations.status, 400, "")).toStrictEqual(unknownAt(400))
    expect(decodeAnswer(operations.status, 200, " \n<!doctype html>")).toStrictEqual({
      kind: "front-door",
      status: 200
    })
    expect(decodeAnswer(operations.status, 200, "oops <b>")).toStrictEqual(unknownAt(200))
  })
})

describe("a shape of anything (Schema.Unknown)", () => {
  it("takes any value, a found undefined included, which is not nothing found", () => {
    for (const value of [1, "x", null, [], { a: 1 }, undefined]) {
      expect(decode({ type: "unknown" }, value)).toStrictEqual({ value })
    }
    expect(decode({ type: "literal", of: ["a"] }, undefined)).toBeUndefined()
  })
})

describe("the client's decodeAnswer refuses what the Schemas refuse", () => {
  it("takes the exact answers, optional members absent or present, in the Schema's member order", () => {
    expect(decodeAnswer(operations.startSignIn, 200, JSON.stringify(started))).toStrictEqual(started)
    expect(decodeAnswer(operations.status, 200, JSON.stringify(status))).toStrictEqual(status)
    const { reason: _, ...noReason } = status
    expect(decodeAnswer(operations.status, 200, JSON.stringify(noReason))).toStrictEqual(noReason)
    const shuffled = "{\"locale\":\"en\",\"signIn\":{\"state\":\"pending\"},\"state\":\"works\",\"kind\":\"buddy\"}"
    expect(Object.keys(decodeAnswer(operations.status, 200, shuffled))).toStrictEqual([
      "kind",
      "state",
      "signIn",
      "locale"
    ])
  })

  it("refuses an excess member, at the top or inside, a __proto__ member included", () => {
    for (
      const body of [
        { ...started, extra: 1 },
        { ...status, signIn: { state: "none", since: 1 } },
        { kind: "sign-out", state: "signed-out", constructor: {} }
      ]
    ) {
      const operation = body.kind === "sign-in" ? operations.startSignIn : body.kind === "buddy"
        ? operations.status
        : operations.signOut
      expect(decodeAnswer(operation, 200, JSON.stringify(body)), JSON.stringify(body)).toStrictEqual(unknownAt(200))
    }
    const proto = "{\"__proto__\":{},\"kind\":\"sign-out\",\"state\":\"signed-out\"}"
    expect(decodeAnswer(operations.signOut, 200, proto)).toStrictEqual(unknownAt(200))
    expect(decodeAnswer(operations.status, 409, "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\",\"x\":null}"))
      .toStrictEqual(unknownAt(409))
  })

  it("refuses a missing member, a literal of another set, another type, a handle off its pattern", () => {
    const { code: _, ...noCode } = started
    const cases = [
      noCode,
      { ...started, state: "signed-in" },
      { ...started, kind: "buddy" },
      { ...started, code: 1 },
      { ...started, page: null },
      { ...started, handle: HANDLE.toUpperCase() },
      { ...started, handle: `${HANDLE}\n` },
      { ...started, handle: HANDLE.slice(1) }
    ]
    for (const body of cases) {
      expect(decodeAnswer(operations.startSignIn, 200, JSON.stringify(body)), JSON.stringify(body)).toStrictEqual(
        unknownAt(200)
      )
    }
    expect(decodeAnswer(operations.status, 200, JSON.stringify({ ...status, reason: "sign-in-running" })))
      .toStrictEqual(unknownAt(200))
    // Code and page only while pending (C6): an ending with them is no poll answer.
    expect(
      decodeAnswer(
        operations.pollSignIn,
        200,
        "{\"kind\":\"sign-in\",\"state\":\"expired\",\"code\":\"A\",\"page\":\"p\"}"
      )
    )
      .toStrictEqual(unknownAt(200))
    expect(decodeAnswer(operations.status, 503, "{\"error\":\"buddy-unavailable\"}")).toStrictEqual(unknownAt(503))
  })

  it("refuses what is not one JSON object: arrays, null, text, two values", () => {
    for (const text of ["[]", "null", "\"buddy\"", "", "{", "{}{}", `[${JSON.stringify(status)}]`]) {
      expect(decodeAnswer(operations.status, 200, text), text).toStrictEqual(unknownAt(200))
    }
  })

  it("refuses a member with no string form, where effect's union search threw and the Schema client rejected", async () => {
    const text = "{\"error\":{\"toString\":false}}"
    expect(decodeAnswer(operations.signOut, 400, text)).toStrictEqual(unknownAt(400))
    expect(decodeAnswer(operations.pollSignIn, 200, "{\"kind\":{\"toString\":false},\"state\":\"lost\"}"))
      .toStrictEqual(
        unknownAt(200)
      )
    const client = makeBuddyClient({ fetch: () => Promise.resolve({ status: 400, text: () => Promise.resolve(text) }) })
    await expect(client.signOut()).resolves.toStrictEqual(unknownAt(400))
  })
})
