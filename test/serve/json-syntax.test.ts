// Where a config file stops being JSON (src/serve/json-syntax.ts, D46): the offset and the words
// for each kind of break, exact; then, against JSON.parse itself, that the scan refuses exactly
// what JSON.parse refuses, and that no prefix of a JSON text is said broken before its end.
import { FastCheck, Option } from "effect"
import { describe, expect, it } from "vitest"
import { expected, jsonSyntaxError, lineAndColumn } from "../../src/serve/json-syntax.js"
import { fuzzRuns, params } from "../fuzz/support/runs.js"

const fc = FastCheck

const at = (text: string) => Option.getOrUndefined(jsonSyntaxError(text))

const parses = (text: string) => {
  // JSON.parse's verdict is the oracle; its throw is the answer "no".
  const result = Option.liftThrowable((t: string) => JSON.parse(t) as unknown)(text)
  return Option.isSome(result)
}

// One test per table, not one per row: a row's text (quotes, backslashes, control characters) is no
// test name a runner filters by reliably.
const breaks: ReadonlyArray<readonly [string, number, string]> = [
  ["", 0, expected.value],
  ["   ", 3, expected.value],
  ["}", 0, expected.value],
  ["]", 0, expected.value],
  ["{", 1, expected.nameOrEnd],
  ["{a", 1, expected.nameOrEnd],
  ["{ 'a': 1}", 2, expected.nameOrEnd],
  ["{\"a\":1,}", 7, expected.name],
  ["{\"a\":1,\n  }", 10, expected.name],
  ["{\"a\" 1}", 5, expected.colon],
  ["{\"a\"", 4, expected.colon],
  ["{\"a\":}", 5, expected.value],
  ["{\"a\":1 \"b\":2}", 7, expected.afterMember],
  ["{\"a\":1", 6, expected.afterMember],
  ["[", 1, expected.valueOrEnd],
  ["[}", 1, expected.valueOrEnd],
  ["[1,]", 3, expected.value],
  ["[1 2]", 3, expected.afterElement],
  ["[1}", 2, expected.afterElement],
  ["{\"a\":[1]]", 8, expected.afterMember],
  ["[{\"a\":1}}", 8, expected.afterElement],
  ["{} x", 3, expected.end],
  ["1 2", 2, expected.end],
  ["01", 1, expected.end],
  ["-", 1, expected.digit],
  ["-a", 1, expected.digit],
  ["+1", 0, expected.value],
  ["1.", 2, expected.fraction],
  ["1.e5", 2, expected.fraction],
  ["1e", 2, expected.exponent],
  ["1e+", 3, expected.exponent],
  ["1E-x", 3, expected.exponent],
  ["tru", 3, expected.word("true")],
  ["trUe", 2, expected.word("true")],
  ["fals", 4, expected.word("false")],
  ["nul", 3, expected.word("null")],
  ["x", 0, expected.value],
  ["\"abc", 4, expected.closingQuote],
  ["\"a\u0001\"", 2, expected.noControl],
  ["\"a\nb\"", 2, expected.noControl],
  ["\"\\x\"", 2, expected.escape],
  ["\"\\", 2, expected.escape],
  ["\"\\u12g4\"", 5, expected.hex],
  ["\"\\u12", 5, expected.hex],
  ["{\"a\\q\":1}", 4, expected.escape],
  ["{\"a\u0002\":1}", 3, expected.noControl],
  ["\uFEFF{}", 0, expected.value]
]

const wholes: ReadonlyArray<string> = [
  "{}",
  "[]",
  " { \"a\" : [ 1 , -0.5e+3 , true , false , null , \"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0aF9\" ] } \n",
  "0",
  "-0",
  "10.25E-2",
  "1e5",
  "\"\u007f\uD800\"",
  "[[[[[[]]]]]]",
  "{\"a\":{\"b\":{}}}",
  "\t\r\n1\t\r\n"
]

describe("the first place a text stops being JSON", () => {
  it("is each break's offset, and what was expected there", () => {
    for (const [text, offset, what] of breaks) {
      expect([text, parses(text)]).toStrictEqual([text, false])
      expect([text, at(text)]).toStrictEqual([text, { offset, expected: what }])
    }
  })

  it("is nowhere in a JSON text", () => {
    for (const text of wholes) {
      expect([text, parses(text)]).toStrictEqual([text, true])
      expect([text, at(text)]).toStrictEqual([text, undefined])
    }
  })

  it("scans 64 KiB of open brackets without a stack of its own", () => {
    const deep = "[".repeat(65_536)
    expect(at(deep)).toStrictEqual({ offset: 65_536, expected: expected.valueOrEnd })
    expect(at(`${"[".repeat(40_000)}${"]".repeat(40_000)}`)).toBeUndefined()
  })
})

// Texts near JSON: JSON values with characters taken out, put in or changed, and short strings of
// JSON's own characters, so both verdicts come often.
const jsonCharacters = [..."{}[],:\"\\ \n\t0123456789-+.eEtrufalsnbx/"]
const nearJson = fc.oneof(
  fc.json(),
  fc.array(fc.constantFrom(...jsonCharacters), { maxLength: 16 }).map((chars) => chars.join("")),
  fc.tuple(fc.json(), fc.nat(), fc.nat(2), fc.constantFrom(...jsonCharacters)).map(([text, n, edit, c]) => {
    const i = n % (text.length + 1)
    return edit === 0
      ? text.slice(0, i) + text.slice(i + 1)
      : edit === 1
      ? text.slice(0, i) + c + text.slice(i)
      : text.slice(0, i) + c + text.slice(i + 1)
  })
)

describe("the scan against JSON.parse", () => {
  it("refuses exactly the texts JSON.parse refuses", () => {
    let refused = 0
    fc.assert(
      fc.property(nearJson, (text) => {
        const verdict = parses(text)
        if (!verdict) refused++
        expect(Option.isNone(jsonSyntaxError(text))).toBe(verdict)
      }),
      params(fuzzRuns * 5)
    )
    expect(refused).toBeGreaterThan(0)
  })

  it("says no prefix of a JSON text is broken before its end", () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), (text, n) => {
        const prefix = text.slice(0, n % (text.length + 1))
        const error = at(prefix)
        expect(error === undefined ? prefix.length : error.offset).toBe(prefix.length)
      }),
      params()
    )
  })
})

describe("a line and column", () => {
  it("counts lines by line feeds and columns in characters, from 1", () => {
    expect(lineAndColumn("abc", 0)).toStrictEqual({ line: 1, column: 1 })
    expect(lineAndColumn("abc", 3)).toStrictEqual({ line: 1, column: 4 })
    expect(lineAndColumn("a\nbc", 2)).toStrictEqual({ line: 2, column: 1 })
    expect(lineAndColumn("a\n\nbc\n", 4)).toStrictEqual({ line: 3, column: 2 })
    expect(lineAndColumn("a\r\nb", 3)).toStrictEqual({ line: 2, column: 1 })
    // "😀", two UTF-16 code units, is one character, as an editor shows it.
    expect(lineAndColumn("{\"é😀\": x", 8)).toStrictEqual({ line: 1, column: 8 })
  })
})
