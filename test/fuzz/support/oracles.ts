// Independent oracles: what the contract (C1–C6) says a value must be, written again here from
// the contract's words, without the project's Schemas or regular expressions, so a fuzz run can
// check that every value a decoder accepts is exactly valid (and every valid one is accepted).

/** A JSON value as `JSON.parse` gives it. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = { readonly [key: string]: Json }

const code = (text: string, index: number) => text.charCodeAt(index)
const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isUpper = (c: number) => c >= 0x41 && c <= 0x5a
const isLower = (c: number) => c >= 0x61 && c <= 0x7a
const isHexLower = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66)
/** The URL-safe base64 alphabet: A–Z, a–z, 0–9, `-`, `_`. */
const isUrlSafe = (c: number) => isDigit(c) || isUpper(c) || isLower(c) || c === 0x2d || c === 0x5f

const every = (text: string, test: (c: number) => boolean) => {
  for (let index = 0; index < text.length; index++) if (!test(code(text, index))) return false
  return true
}

/** A plain JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The object's own keys are exactly `keys` (in any order). */
export const hasExactly = (value: Record<string, unknown>, keys: ReadonlyArray<string>) => {
  const own = Object.keys(value)
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key))
}

/** The object has `key` as its own member. */
export const has = (value: Record<string, unknown>, key: string) => Object.hasOwn(value, key)

export const isStringArray = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.every((item) => typeof item === "string")

/**
 * Strict UTF-8 (RFC 3629): no overlong form, no surrogate, nothing past U+10FFFF, no truncated
 * sequence. A byte-order mark is an ordinary character. Returns the text, or undefined.
 */
export const strictUtf8 = (bytes: Uint8Array): string | undefined => {
  let index = 0
  while (index < bytes.length) {
    const first = bytes[index] ?? 0
    let length: number
    let low = 0x80
    let high = 0xbf
    if (first <= 0x7f) length = 1
    else if (first >= 0xc2 && first <= 0xdf) length = 2
    else if (first === 0xe0) [length, low] = [3, 0xa0]
    else if (first >= 0xe1 && first <= 0xec) length = 3
    else if (first === 0xed) [length, high] = [3, 0x9f]
    else if (first >= 0xee && first <= 0xef) length = 3
    else if (first === 0xf0) [length, low] = [4, 0x90]
    else if (first >= 0xf1 && first <= 0xf3) length = 4
    else if (first === 0xf4) [length, high] = [4, 0x8f]
    else return undefined
    for (let next = 1; next < length; next++) {
      const byte = bytes[index + next]
      if (byte === undefined) return undefined
      const [from, to] = next === 1 ? [low, high] : [0x80, 0xbf]
      if (byte < from || byte > to) return undefined
    }
    index += length
  }
  return Buffer.from(bytes).toString("utf8")
}

/** JSON text, or undefined when it is not JSON. */
export const parseJson = (text: string): { readonly value: Json } | undefined => {
  try {
    return { value: JSON.parse(text) as Json }
  } catch {
    return undefined
  }
}

/** A port as the contract writes it: decimal, no sign, no leading zero, 1–65535. */
const isPort = (text: string) =>
  text.length >= 1 && text.length <= 5 && every(text, isDigit) && code(text, 0) !== 0x30 && Number(text) <= 65535

/** C2 "API origin": exactly `http://127.0.0.1:<port>` or `http://[::1]:<port>`. */
export const isLoopbackOrigin = (origin: string) => {
  for (const prefix of ["http://127.0.0.1:", "http://[::1]:"]) {
    if (origin.startsWith(prefix)) return isPort(origin.slice(prefix.length))
  }
  return false
}

/** C3: the code as OpenAI issues it for Codex, `XXXX-XXXXX` of A–Z and 0–9. */
export const isDeviceCode = (text: string) =>
  text.length === 10 &&
  every(text.slice(0, 4) + text.slice(5), (c) => isUpper(c) || isDigit(c)) &&
  text[4] === "-"

/** C3: OpenAI's device page, exactly. */
export const devicePage = "https://auth.openai.com/codex/device"

/** Hermes's session id: 1–128 characters of the URL-safe alphabet (D17). */
export const isSessionId = (text: string) => text.length >= 1 && text.length <= 128 && every(text, isUrlSafe)

/** C2: a ticket of 1–256 URL-safe characters. */
export const isTicket = (text: string) => text.length >= 1 && text.length <= 256 && every(text, isUrlSafe)

/** C4.3 / C6: a handle is 32 lowercase hex characters. */
export const isHandle = (text: string) => text.length === 32 && every(text, isHexLower)

/** C2: the cancellation contract holds only with exactly this string in the capabilities array. */
export const cancelContract = "lazurio-oauth-cancel-contract-v1"
export const sessionAuthority = "session-authority-v1"

/**
 * An origin exactly as a browser sends it in `Origin` (scheme, host, port only when not the
 * default), for C6's same-origin rule: what the WHATWG URL parser serializes back to itself.
 */
export const isBrowserOrigin = (text: string) => {
  if (!text.startsWith("http://") && !text.startsWith("https://")) return false
  try {
    return new URL(text).origin === text
  } catch {
    return false
  }
}

/** White_Space characters and the byte-order mark: what surrounds a path that is "stripped" (C1.3). */
const surrounding = new Set([
  0x09,
  0x0a,
  0x0b,
  0x0c,
  0x0d,
  0x20,
  0xa0,
  0x1680,
  ...Array.from({ length: 11 }, (_, offset) => 0x2000 + offset),
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x3000,
  0xfeff
])

/** The text without surrounding whitespace. */
export const strip = (text: string) => {
  let start = 0
  let end = text.length
  while (start < end && surrounding.has(code(text, start))) start++
  while (end > start && surrounding.has(code(text, end - 1))) end--
  return text.slice(start, end)
}
