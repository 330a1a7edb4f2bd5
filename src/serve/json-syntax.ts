// Where a config file stops being JSON (RFC 8259 §2–7), said in buddy's own words (D46). JSON.parse
// stays the parser; this is asked only when it refuses, because V8's refusal cannot be said as it
// is: "Unexpected token" names no position and quotes ten characters either side of it (the file's
// own text, which may be a secret), and its words differ between the Node versions buddy runs on.
// The scan is iterative (an explicit stack, no recursion): a 64 KiB file of `[` cannot overflow it.
import { Option } from "effect"

/** The first offset (UTF-16, in the text as read) at which the text cannot go on as JSON, and what could. */
export interface JsonSyntaxError {
  readonly offset: number
  readonly expected: string
}

/** Where the scan is: what the next non-space character may be. */
type Expecting = "value" | "value-or-]" | "name" | "name-or-}" | "after-value"

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r"
// Sets that take past-the-end (`undefined`) as a member they do not have: no guard to get wrong.
const digits09: ReadonlySet<string | undefined> = new Set("0123456789")
const hexDigits: ReadonlySet<string | undefined> = new Set("0123456789abcdefABCDEF")
const isDigit = (c: string | undefined) => digits09.has(c)
const isHex = (c: string | undefined) => hexDigits.has(c)

const escapes: ReadonlySet<string | undefined> = new Set("\"\\/bfnrt")
const words: ReadonlyArray<string> = ["true", "false", "null"]

export const expected = {
  value: "a value (an object, array, string, number, true, false or null)",
  valueOrEnd: "a value, or ']'",
  name: "a member's name in double quotes",
  nameOrEnd: "a member's name in double quotes, or '}'",
  colon: "':' after the member's name",
  afterMember: "',' or '}' after the member",
  afterElement: "',' or ']' after the element",
  end: "nothing after the JSON value",
  closingQuote: "the string's closing '\"'",
  noControl: "an escape such as \\n instead of a control character inside a string",
  escape: "an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits",
  hex: "four hex digits after \\u",
  digit: "a digit",
  fraction: "a digit after '.'",
  exponent: "a digit in the exponent",
  word: (word: string) => `the word ${word}`
} as const

/**
 * The first syntax error of `text` as JSON, or none when JSON.parse would take it. Each step moves
 * `at` past what it accepts, or stops there with what was expected.
 */
export const jsonSyntaxError = (text: string): Option.Option<JsonSyntaxError> => {
  let at = 0
  const open: Array<"{" | "["> = []
  let expecting: Expecting = "value"
  const stop = (what: string) => Option.some<JsonSyntaxError>({ offset: at, expected: what })
  const digits = () => {
    while (isDigit(text[at])) at++
  }

  /** A string from its opening quote; none when it closed, else what was expected where it broke. */
  const string = (): Option.Option<string> => {
    at++
    for (;;) {
      const c = text[at]
      if (c === undefined) return Option.some(expected.closingQuote)
      if (c === "\"") {
        at++
        return Option.none()
      }
      if (c < " ") return Option.some(expected.noControl)
      at++
      if (c === "\\") {
        const escape = text[at]
        if (escape === "u") {
          at++
          for (let n = 0; n < 4; n++) {
            if (!isHex(text[at])) return Option.some(expected.hex)
            at++
          }
        } else if (escapes.has(escape)) {
          at++
        } else {
          return Option.some(expected.escape)
        }
      }
    }
  }

  /** A number from its first character (`-` or a digit). */
  const number = (): Option.Option<string> => {
    if (text[at] === "-") at++
    if (text[at] === "0") at++
    else if (isDigit(text[at])) digits()
    else return Option.some(expected.digit)
    if (text[at] === ".") {
      at++
      if (!isDigit(text[at])) return Option.some(expected.fraction)
      digits()
    }
    if (text[at] === "e" || text[at] === "E") {
      at++
      if (text[at] === "+" || text[at] === "-") at++
      if (!isDigit(text[at])) return Option.some(expected.exponent)
      digits()
    }
    return Option.none()
  }

  /** One of the three words, from its first letter. */
  const word = (whole: string): Option.Option<string> => {
    for (const letter of whole) {
      if (text[at] !== letter) return Option.some(expected.word(whole))
      at++
    }
    return Option.none()
  }

  /**
   * A scalar from its first character (`{` and `[` are the loop's); none when it is whole. `orEnd`:
   * an array was just opened, so ']' could have come instead.
   */
  const scalar = (orEnd: boolean): Option.Option<string> => {
    const c = text[at]
    if (c === "\"") return string()
    if (c === "-" || isDigit(c)) return number()
    const whole = words.find((candidate) => candidate[0] === c)
    if (whole !== undefined) return word(whole)
    return Option.some(orEnd ? expected.valueOrEnd : expected.value)
  }

  // One step per state; every state is a case, so a state no case names would never move `at`.
  for (;;) {
    while (isSpace(text[at])) at++
    const c = text[at]
    const inside = open.at(-1)
    switch (expecting) {
      case "after-value": {
        if (inside === undefined) return c === undefined ? Option.none() : stop(expected.end)
        if (c === (inside === "{" ? "}" : "]")) {
          open.pop()
          at++
        } else if (c === ",") {
          at++
          expecting = inside === "{" ? "name" : "value"
        } else {
          return stop(inside === "{" ? expected.afterMember : expected.afterElement)
        }
        break
      }
      case "name-or-}":
      case "name": {
        if (expecting === "name-or-}" && c === "}") {
          open.pop()
          at++
          expecting = "after-value"
          break
        }
        if (c !== "\"") return stop(expecting === "name" ? expected.name : expected.nameOrEnd)
        const broken = string()
        if (Option.isSome(broken)) return stop(broken.value)
        while (isSpace(text[at])) at++
        if (text[at] !== ":") return stop(expected.colon)
        at++
        expecting = "value"
        break
      }
      case "value-or-]":
      case "value": {
        if (expecting === "value-or-]" && c === "]") {
          open.pop()
          at++
          expecting = "after-value"
          break
        }
        if (c === "{" || c === "[") {
          open.push(c)
          at++
          expecting = c === "{" ? "name-or-}" : "value-or-]"
          break
        }
        const broken = scalar(expecting === "value-or-]")
        if (Option.isSome(broken)) return stop(broken.value)
        expecting = "after-value"
        break
      }
    }
  }
}

/** The line and column (in characters, from 1) of `offset` in `text`, as an editor shows them. */
export const lineAndColumn = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  const before = text.slice(0, offset)
  const lineStart = before.lastIndexOf("\n") + 1
  return { line: before.split("\n").length, column: [...before.slice(lineStart)].length + 1 }
}
