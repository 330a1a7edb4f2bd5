// Near-misses of valid values, for the fuzz properties: strings one to three small edits away
// (a lookalike, a case change, whitespace, an invisible character, a prefix, a suffix), JSON
// objects with a member dropped, renamed, retyped, nested or added, and their text and bytes
// with duplicate members, re-spelt numbers, a byte-order mark or broken UTF-8.
import { FastCheck } from "effect"
import type { Json, JsonObject } from "./oracles.js"
import { isObject } from "./oracles.js"

const fc = FastCheck

/** Characters people and parsers confuse with the ASCII one. */
const lookalikes: Readonly<Record<string, ReadonlyArray<string>>> = {
  a: ["\u0430", "\u0251", "\uff41", "A"],
  c: ["\u0441", "\u03f2", "C"],
  d: ["\u0501", "D"],
  e: ["\u0435", "\u212f", "E"],
  h: ["\u04bb", "H"],
  i: ["\u0456", "\u0131", "1", "l", "I"],
  l: ["1", "I", "\u04cf", "|"],
  n: ["\u0578", "N"],
  o: ["\u043e", "\u03bf", "0", "O"],
  p: ["\u0440", "P"],
  r: ["\u0433", "R"],
  s: ["\u0455", "S", "5"],
  t: ["\u0442", "T"],
  u: ["\u057d", "\u03c5", "U"],
  v: ["\u03bd", "V"],
  x: ["\u0445", "X"],
  y: ["\u0443", "Y"],
  A: ["\u0391", "\u0410", "a"],
  B: ["\u0392", "8"],
  E: ["\u0395", "\u0415"],
  O: ["0", "\u039f", "\u041e", "\uff2f"],
  I: ["1", "l", "\u0399"],
  S: ["5", "\u0405"],
  Z: ["2", "\u0396"],
  "0": ["O", "o", "\uff10", "\u0660"],
  "1": ["l", "I", "\uff11", "\u00b9", "\u0661"],
  "2": ["Z", "\uff12"],
  "5": ["S", "\uff15"],
  "7": ["\uff17"],
  "-": ["\u2010", "\u2011", "\u2012", "\u2013", "\u2212", "\uff0d", "_", "\u00ad"],
  _: ["-", " ", "\uff3f"],
  ".": ["\u3002", "\uff0e", "\u00b7", ","],
  ":": ["\uff1a", "\ua789", ";"],
  "/": ["\u2044", "\u2215", "\uff0f", "\\"],
  "[": ["\uff3b", "("],
  "]": ["\uff3d", ")"]
}

/** Whitespace, invisible and control characters, and others a decoder must not shrug off. */
const oddCharacters = [
  " ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\v",
  "\f",
  "\u0000",
  "\u0001",
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u200b",
  "\u200c",
  "\u200d",
  "\u2028",
  "\u2029",
  "\u2060",
  "\u3000",
  "\ufeff",
  "\ufffd",
  "\ud800",
  "\udfff",
  "\u0301",
  "%",
  "%2F",
  "/",
  "?",
  "#",
  "@",
  ":",
  ".",
  "\\",
  "\"",
  "'",
  "{",
  "}"
]

/** Endings and beginnings that turn a valid value into an almost-valid one. */
const affixes = [
  "-v2",
  "-v0",
  "2",
  "1",
  "0",
  "/",
  "/.",
  "?",
  "#",
  "?x=1",
  "#x",
  ":",
  ":0",
  "@",
  ".",
  "x",
  "-",
  "_",
  "!"
]

/** One character: a lookalike, an odd one, printable ASCII or any code point. */
export const anyCharacter: FastCheck.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...oddCharacters), weight: 3 },
  { arbitrary: fc.constantFrom(...Object.values(lookalikes).flat()), weight: 2 },
  { arbitrary: fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 1 }), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), weight: 1 }
)

const at = (text: string, position: number, width = 0) => {
  const index = text.length === 0 ? 0 : position % (text.length + (width === 0 ? 1 : 0))
  return [text.slice(0, index), text.slice(index + width)] as const
}

const flipCase = (character: string) =>
  character === character.toUpperCase() ? character.toLowerCase() : character.toUpperCase()

/** One small edit of a string. */
const editOnce = (text: string): FastCheck.Arbitrary<string> =>
  fc.oneof(
    // insert a character anywhere
    fc.tuple(fc.nat(), anyCharacter).map(([position, character]) => {
      const [before, after] = at(text, position)
      return before + character + after
    }),
    // delete one
    fc.nat().map((position) => {
      const [before, after] = at(text, position, 1)
      return before + after
    }),
    // replace one by its lookalike, or by anything
    fc.tuple(fc.nat(), fc.nat(), anyCharacter).map(([position, pick, other]) => {
      const [before, after] = at(text, position, 1)
      const original = text.charAt(text.length === 0 ? 0 : position % text.length)
      const similar = Object.hasOwn(lookalikes, original) ? lookalikes[original] ?? [] : []
      return before + (similar.length > 0 ? similar[pick % similar.length] : other) + after
    }),
    // change the case of one character, or of all
    fc.nat().map((position) => {
      const [before, after] = at(text, position, 1)
      return before + flipCase(text.charAt(text.length === 0 ? 0 : position % text.length)) + after
    }),
    fc.constantFrom(text.toUpperCase(), text.toLowerCase()),
    // a prefix, a suffix
    fc.nat().map((length) => text.slice(0, text.length === 0 ? 0 : length % text.length)),
    fc.nat().map((length) => text.slice(text.length === 0 ? 0 : 1 + (length % text.length))),
    // something appended or prepended, whitespace around, the value twice
    fc.tuple(fc.constantFrom(...affixes, ...oddCharacters), fc.boolean()).map(([affix, end]) =>
      end ? text + affix : affix + text
    ),
    fc.constantFrom(` ${text}`, `${text} `, `${text}\n`, `\t${text}`, text + text, `${text},${text}`),
    // a digit changed
    fc.tuple(fc.nat(), fc.integer({ min: 0, max: 9 })).map(([position, digit]) => {
      const digits = [...text].flatMap((character, index) => (character >= "0" && character <= "9" ? [index] : []))
      const index = digits[position % Math.max(1, digits.length)]
      return index === undefined ? text + String(digit) : text.slice(0, index) + String(digit) + text.slice(index + 1)
    }),
    // a character percent-encoded, or repeated
    fc.nat().map((position) => {
      const [before, after] = at(text, position, 1)
      const character = text.charAt(text.length === 0 ? 0 : position % text.length)
      const encoded = [...new TextEncoder().encode(character)].map((byte) =>
        `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
      )
      return before + encoded.join("") + after
    }),
    fc.tuple(fc.nat(), fc.integer({ min: 2, max: 40 })).map(([position, times]) => {
      const [before, after] = at(text, position, 1)
      return before + text.charAt(text.length === 0 ? 0 : position % text.length).repeat(times) + after
    })
  )

/** One to three small edits of `valid` (it may come back unchanged: the oracle decides). */
export const stringNearMiss = (valid: string): FastCheck.Arbitrary<string> =>
  fc.integer({ min: 1, max: 3 }).chain((edits) => {
    const step = (text: string, left: number): FastCheck.Arbitrary<string> =>
      left === 0 ? fc.constant(text) : editOnce(text).chain((next) => step(next, left - 1))
    return step(valid, edits)
  })

/** Per member name, near-misses of that member's value (used at any depth). */
export type FieldMisses = Readonly<Record<string, FastCheck.Arbitrary<Json>>>

/** Another JSON value standing where `value` was: another type, wrapped, re-spelt. */
export const valueNearMiss = (value: Json, fields: FieldMisses = {}): FastCheck.Arbitrary<Json> => {
  const others: Array<FastCheck.Arbitrary<Json>> = [
    fc.constantFrom<Json>(null, true, false, 0, 1, -1, 1.5, "", [], {}, "null", "true", "1"),
    fc.constant<Json>([value]),
    fc.constant<Json>({ value }),
    fc.constant<Json>(JSON.stringify(value))
  ]
  if (typeof value === "string") others.push(stringNearMiss(value))
  if (typeof value === "number") {
    others.push(
      fc.constantFrom<Json>(value + 1, value - 1, -value, value * 10, value + 0.5, 2 ** 53 + 1, String(value)),
      fc.double({ noNaN: true, noDefaultInfinity: true })
    )
  }
  if (typeof value === "boolean") others.push(fc.constantFrom<Json>(!value, String(value), value ? 1 : 0))
  if (Array.isArray(value) || isObject(value)) others.push(jsonNearMiss(value, fields))
  return fc.oneof(...others, fc.jsonValue({ maxDepth: 2 }).map((json) => json as Json))
}

/** Names an excess member may have: near-misses of real ones, prototype names, anything. */
const excessKey = (keys: ReadonlyArray<string>) =>
  fc.oneof(
    fc.constantFrom("extra", "__proto__", "constructor", "toString", "hasOwnProperty", "", " ", "0"),
    ...(keys.length > 0 ? [fc.constantFrom(...keys).chain(stringNearMiss)] : []),
    fc.string({ maxLength: 12 })
  )

const withEntry = (object: JsonObject, key: string, value: Json): JsonObject =>
  Object.fromEntries([...Object.entries(object).filter(([name]) => name !== key), [key, value]])

const without = (object: JsonObject, key: string): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([name]) => name !== key))

const renamed = (object: JsonObject, key: string, name: string): JsonObject =>
  Object.fromEntries(Object.entries(object).map(([member, value]) => [member === key ? name : member, value]))

/** One structural change of an object or array, at its top or somewhere inside. */
const jsonEditOnce = (value: Json, fields: FieldMisses): FastCheck.Arbitrary<Json> => {
  if (Array.isArray(value)) {
    const items: ReadonlyArray<Json> = value
    const options: Array<FastCheck.Arbitrary<Json>> = [
      fc.jsonValue({ maxDepth: 2 }).map((item) => [...items, item as Json]),
      fc.constant<Json>([]),
      fc.constant<Json>(items.length > 0 ? items.slice(0, -1) : [null])
    ]
    if (items.length > 0) {
      const index = fc.nat({ max: items.length - 1 })
      options.push(
        index.map((at) => items.filter((_, position) => position !== at)),
        index.map((at) => [...items, items[at] ?? null]),
        index.chain((at) => valueNearMiss(items[at] ?? null, fields).map((item) => items.with(at, item)))
      )
    }
    return fc.oneof(...options)
  }
  if (!isObject(value)) return valueNearMiss(value, fields)
  const object: JsonObject = value
  const keys = Object.keys(object)
  const options: Array<FastCheck.Arbitrary<Json>> = [
    fc.tuple(excessKey(keys), fc.jsonValue({ maxDepth: 2 })).map(([key, extra]) =>
      Object.hasOwn(object, key) ? object : withEntry(object, key, extra as Json)
    ),
    fc.constantFrom<Json>([object], null, JSON.stringify(object), { result: object })
  ]
  if (keys.length > 0) {
    const key = fc.constantFrom(...keys)
    options.push(
      key.map((name) => without(object, name)),
      key.chain((name) =>
        stringNearMiss(name).map((other) => (Object.hasOwn(object, other) ? object : renamed(object, name, other)))
      ),
      key.chain((name) => {
        const own = Object.hasOwn(fields, name) ? fields[name] : undefined
        const current = object[name] ?? null
        const miss = valueNearMiss(current, fields)
        return (own === undefined ? miss : fc.oneof(own, miss)).map((next) => withEntry(object, name, next))
      })
    )
  }
  return fc.oneof(...options)
}

/** One to three structural changes of `valid`. */
export const jsonNearMiss = (valid: Json, fields: FieldMisses = {}): FastCheck.Arbitrary<Json> =>
  fc.integer({ min: 1, max: 3 }).chain((edits) => {
    const step = (value: Json, left: number): FastCheck.Arbitrary<Json> =>
      left === 0 ? fc.constant(value) : jsonEditOnce(value, fields).chain((next) => step(next, left - 1))
    return step(valid, edits)
  })

/** Ways to spell the number 1 (or near it) in JSON text, and some that are not JSON. */
const numberSpellings = [
  "1.0",
  "1e0",
  "1E0",
  "10e-1",
  "0.1e1",
  "1.0000000000000000001",
  "01",
  "+1",
  "0x1",
  "1e999",
  "-0"
]

/**
 * JSON text for `value` as Hermes might (mis)write it: compact or indented, a member duplicated
 * (before or after the original, so either one wins), a number re-spelt, a byte-order mark, a
 * character escaped, something after the value.
 */
export const jsonText = (value: Json): FastCheck.Arbitrary<string> => {
  const compact = JSON.stringify(value)
  const options: Array<FastCheck.Arbitrary<string>> = [
    fc.constant(compact),
    fc.constant(JSON.stringify(value, null, 2)),
    fc.constant(JSON.stringify(value, null, "\t")),
    fc.constantFrom(`\ufeff${compact}`, ` ${compact}`, `${compact} `, `${compact}\r`, `${compact}x`, `${compact}}`),
    fc.constantFrom(`${compact}${compact}`, `[${compact}`, compact.slice(0, -1)),
    fc.tuple(fc.nat(), fc.constantFrom(...numberSpellings)).map(([position, spelling]) => {
      const numbers = [...compact.matchAll(/(?<=[:,[])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g)]
      const found = numbers[position % Math.max(1, numbers.length)]
      return found?.index === undefined
        ? compact
        : compact.slice(0, found.index) + spelling + compact.slice(found.index + found[0].length)
    }),
    // a character of a string spelt as a \u escape (the same value)
    fc.nat().map((position) => {
      const letters = [...compact.matchAll(/(?<=")[a-z]/g)]
      const found = letters[position % Math.max(1, letters.length)]
      return found?.index === undefined
        ? compact
        : `${compact.slice(0, found.index)}\\u00${found[0].charCodeAt(0).toString(16)}${compact.slice(found.index + 1)}`
    })
  ]
  if (isObject(value) && Object.keys(value).length > 0) {
    const object: JsonObject = value
    const entries = Object.entries(object)
    options.push(
      fc.tuple(fc.nat({ max: entries.length - 1 }), fc.jsonValue({ maxDepth: 1 }), fc.boolean()).map(
        ([index, other, first]) => {
          const [key] = entries[index] ?? ["", null]
          const members = entries.map(([name, member]) => `${JSON.stringify(name)}:${JSON.stringify(member)}`)
          const duplicate = `${JSON.stringify(key)}:${JSON.stringify(other)}`
          return `{${first ? [duplicate, ...members].join(",") : [...members, duplicate].join(",")}}`
        }
      )
    )
  }
  return fc.oneof(...options)
}

/** Byte sequences that are not strict UTF-8, and bytes that frame or end a line. */
export const badBytes: ReadonlyArray<ReadonlyArray<number>> = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0x00],
  [0x0a],
  [0x0d],
  [0xef, 0xbb, 0xbf]
]

/** UTF-8 of `text`, sometimes with one bad or framing sequence spliced in. */
export const textBytes = (text: string): FastCheck.Arbitrary<Uint8Array> => {
  const plain = new TextEncoder().encode(text)
  return fc.oneof(
    { arbitrary: fc.constant(plain), weight: 3 },
    {
      arbitrary: fc.tuple(fc.nat(), fc.constantFrom(...badBytes)).map(([position, bad]) => {
        const index = position % (plain.length + 1)
        return Uint8Array.from([...plain.subarray(0, index), ...bad, ...plain.subarray(index)])
      }),
      weight: 1
    }
  )
}

/** Any bytes, any text, any JSON: the inputs nobody designed. */
export const arbitraryBytes: FastCheck.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 256 }),
  fc.string({ unit: "binary", maxLength: 64 }).map((text) => new TextEncoder().encode(text)),
  fc.json({ maxDepth: 3 }).map((text) => new TextEncoder().encode(text))
)

/**
 * Bytes for a decoder of `valid` JSON values: the valid values themselves, their structural
 * near-misses (with `fields` for member-specific ones), spelt as odd JSON text, with bad bytes
 * spliced in, and arbitrary bytes.
 */
export const jsonBytes = (valid: FastCheck.Arbitrary<Json>, fields: FieldMisses = {}) =>
  fc.oneof(
    { arbitrary: valid.chain((value) => textBytes(JSON.stringify(value))), weight: 2 },
    { arbitrary: valid.chain((value) => jsonNearMiss(value, fields)).chain(jsonText).chain(textBytes), weight: 5 },
    { arbitrary: valid.chain(jsonText).chain(textBytes), weight: 2 },
    { arbitrary: arbitraryBytes, weight: 1 }
  )
