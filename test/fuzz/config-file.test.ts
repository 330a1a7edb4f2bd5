// Fuzzing the config file `buddy serve --config FILE` reads (C6 "Config"). serve.ts reads it as
// `fs.readFile(file, "utf8")` (invalid bytes become U+FFFD), `JSON.parse`, then `ConfigFile` with
// excess members refused (and every issue collected, for its words); that reader is private to the
// command, so this runs the same three steps on the exported Schema. A file gives a config or "invalid", never a throw; what it accepts has
// exactly the listed members, the closed environment and locale, origins a browser sends, and
// socketGroup, a group's name or gid.
import { Arbitrary, Either, FastCheck, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ConfigFile } from "../../src/schema/config.js"
import { arbitraryBytes, type FieldMisses, jsonBytes, stringNearMiss, valueNearMiss } from "./support/mutate.js"
import { isBrowserOrigin, isObject, type Json, parseJson } from "./support/oracles.js"
import { fuzzRuns, params, tally } from "./support/runs.js"

const fc = FastCheck

/** serve.ts's reading of the file's bytes. */
const readConfig = (bytes: Uint8Array) =>
  Either.try(() => JSON.parse(Buffer.from(bytes).toString("utf8")) as unknown).pipe(
    Either.flatMap((json) =>
      Schema.decodeUnknownEither(ConfigFile, { onExcessProperty: "error", errors: "all" })(json)
    ),
    Either.mapLeft(() => "invalid" as const)
  )

const environments = ["hosted-personal", "hosted-organization-personal", "hosted-organization-team", "local"]
const members = ["hermesHome", "launchpadOrigin", "buddyOrigin", "environment", "locale", "socketGroup"]

/** A group name as groupadd takes it: a letter or `_`, then up to 31 of letters, digits, `_.-`. */
const isGroupName = (name: string) => {
  const first = name.slice(0, 1).toLowerCase()
  return name.length >= 1 && name.length <= 32 && (first === "_" || (first >= "a" && first <= "z")) &&
    [...name.slice(1).toLowerCase()].every((c) => "abcdefghijklmnopqrstuvwxyz0123456789_.-".includes(c))
}

/** `socketGroup`: a name, or a gid from 0 to 2^32 - 2. */
const isGroup = (entry: unknown) =>
  (typeof entry === "number" && Number.isInteger(entry) && entry >= 0 && entry <= 4_294_967_294) ||
  (typeof entry === "string" && isGroupName(entry))

/**
 * An origin in the form C6 means: `http` or `https`, `://`, a lowercase host name or a bracketed
 * IPv6 address, an optional port 1–65535; no user info, path, query, fragment or trailing slash;
 * and exactly what a browser sends (`isBrowserOrigin`: canonical address, no default port).
 */
const isOriginForm = (text: string) => isOriginShape(text) && isBrowserOrigin(text)

const isOriginShape = (text: string) => {
  const scheme = ["http://", "https://"].find((prefix) => text.startsWith(prefix))
  if (scheme === undefined) return false
  const rest = text.slice(scheme.length)
  const bracket = rest.startsWith("[") ? rest.indexOf("]") : -1
  const hostEnd = bracket !== -1 ? bracket + 1 : rest.includes(":") ? rest.indexOf(":") : rest.length
  const host = rest.slice(0, hostEnd)
  const port = rest.slice(hostEnd)
  const hostOk = bracket !== -1
    ? host.length > 2 && [...host.slice(1, -1)].every((c) => "0123456789abcdef:".includes(c))
    : host.length > 0 && [...host].every((c) => "abcdefghijklmnopqrstuvwxyz0123456789.-".includes(c))
  const digits = port.slice(1)
  const portOk = port === "" ||
    (port.startsWith(":") && digits.length > 0 && digits.length <= 5 &&
      [...digits].every((c) => c >= "0" && c <= "9") &&
      !digits.startsWith("0"))
  return hostOk && portOk
}

/** An origin with its scheme's default port written out, as the origin a browser sends without it. */
const withoutDefaultPort = (text: string) =>
  text.startsWith("https://") && text.endsWith(":443")
    ? text.slice(0, -4)
    : text.startsWith("http://") && text.endsWith(":80")
    ? text.slice(0, -3)
    : text

/** An origin the file may give: C6's form, or that form with its scheme's default port (issue 39). */
const isFileOrigin = (text: string) => isOriginForm(withoutDefaultPort(text))

/** What `buddy serve` makes of an acceptable file: the default ports dropped, locale `en` when left out. */
const taken = (value: Record<string, unknown>) => ({
  ...value,
  ...Object.fromEntries(
    (["launchpadOrigin", "buddyOrigin"] as const).flatMap((key) =>
      typeof value[key] === "string" ? [[key, withoutDefaultPort(value[key])]] : []
    )
  ),
  locale: value["locale"] ?? "en"
})

/** What the file must be for `buddy serve` to take it (C6 "Config"). */
const acceptable = (value: unknown) => {
  if (!isObject(value)) return false
  if (!Object.keys(value).every((key) => members.includes(key))) return false
  const { buddyOrigin, environment, hermesHome, launchpadOrigin, locale, socketGroup } = value
  return (hermesHome === undefined || typeof hermesHome === "string") &&
    typeof launchpadOrigin === "string" && isFileOrigin(launchpadOrigin) &&
    (!Object.hasOwn(value, "buddyOrigin") || (typeof buddyOrigin === "string" && isFileOrigin(buddyOrigin))) &&
    typeof environment === "string" && environments.includes(environment) &&
    (!Object.hasOwn(value, "locale") || locale === "cs" || locale === "en") &&
    (!Object.hasOwn(value, "hermesHome") || typeof hermesHome === "string") &&
    (!Object.hasOwn(value, "socketGroup") || isGroup(socketGroup))
}

const origin = fc.oneof(
  fc.constantFrom(
    "https://launchpad.example",
    "http://127.0.0.1",
    "http://127.0.0.1:8080",
    "https://buddy.launchpad.example:8443",
    "http://[::1]:3000",
    "https://launchpad.example:443",
    "http://127.0.0.1:80"
  ),
  fc.domain().map((host) => `https://${host}`)
)

const valid: FastCheck.Arbitrary<Json> = fc.record({
  hermesHome: fc.string(),
  launchpadOrigin: origin,
  buddyOrigin: origin,
  environment: fc.constantFrom(...environments),
  locale: fc.constantFrom("cs", "en"),
  socketGroup: fc.oneof(
    fc.integer({ min: 0, max: 4_294_967_294 }),
    fc.constantFrom("www-data", "caddy", "_proxy", "Proxy.1", "a".repeat(32))
  )
}, { requiredKeys: ["launchpadOrigin", "environment"] })

const misses: FieldMisses = {
  launchpadOrigin: origin.chain(stringNearMiss),
  buddyOrigin: origin.chain(stringNearMiss),
  environment: fc.constantFrom(...environments).chain(stringNearMiss),
  locale: fc.oneof(stringNearMiss("cs"), stringNearMiss("en"), fc.constantFrom("CS", "cz", "en-US", "EN")),
  hermesHome: valueNearMiss("/home/operator/.hermes"),
  socketGroup: fc.oneof(
    valueNearMiss("www-data"),
    valueNearMiss(33),
    fc.constantFrom<Json>(-1, 4_294_967_295, 1.5, "-x", "9lives", "a b", "x".repeat(33), "", null, "host$", [
      "www-data"
    ])
  )
}

describe("fuzzing the config file", () => {
  it("a config file is a config with exactly C6's members and values, or invalid; never a throw", () => {
    const seen = tally("config file")
    fc.assert(
      fc.property(
        fc.oneof(jsonBytes(valid, misses), jsonBytes(Arbitrary.make(ConfigFile)), arbitraryBytes),
        (bytes) => {
          const read = readConfig(bytes)
          const json = parseJson(Buffer.from(bytes).toString("utf8"))
          const expected = json !== undefined && acceptable(json.value)
          seen.add(expected ? "config" : "invalid")
          expect(Either.isRight(read)).toBe(expected)
          if (Either.isRight(read) && json !== undefined && isObject(json.value)) {
            expect(read.right).toStrictEqual(taken(json.value))
          }
        }
      ),
      params(fuzzRuns)
    )
    seen.report()
    expect(seen.seen("config")).toBeGreaterThan(0)
    expect(seen.seen("invalid")).toBeGreaterThan(0)
  })

  // Found by fuzzing, fixed in src/schema/config.ts: `Origin` took strings no browser ever sends as
  // `Origin` (a port past 65535, the default port spelt out, non-canonical IPv4/IPv6). A
  // launchpadOrigin so written refused every POST (403 origin-mismatch); a buddyOrigin so written no
  // longer kept Buddy's own page out, since C6 check 3 compares the strings.
  it("a config origin is taken only in the form a browser sends it", () => {
    const notSentByBrowsers = [
      "http://launchpad.example:99999",
      "http://127.1",
      "http://0177.0.0.1",
      "http://999.1.1.1",
      "http://launchpad.1",
      "http://[::0:1]",
      "http://[:]"
    ]
    for (const origin of notSentByBrowsers) expect(isBrowserOrigin(origin)).toBe(false)
    const accepted = notSentByBrowsers.filter((origin) =>
      Either.isRight(readConfig(new TextEncoder().encode(JSON.stringify({
        launchpadOrigin: origin,
        environment: "hosted-personal",
        locale: "en"
      }))))
    )
    expect(accepted).toStrictEqual([])
  })

  // Issue 39: the scheme's default port written out is the origin a browser sends without it; taken, and dropped.
  it("a config origin with its scheme's default port is taken as the origin without it", () => {
    const taken = (origin: string) =>
      Either.map(
        readConfig(new TextEncoder().encode(JSON.stringify({ launchpadOrigin: origin, environment: "local" }))),
        (config) => config.launchpadOrigin
      )
    expect(["https://launchpad.example:443", "http://launchpad.example:80", "http://[::1]:80"].map(taken))
      .toStrictEqual([
        Either.right("https://launchpad.example"),
        Either.right("http://launchpad.example"),
        Either.right("http://[::1]")
      ])
    for (const origin of ["https://x:443/", "https://x:0443", "https://x:443:443"]) {
      expect([origin, Either.isLeft(taken(origin))]).toStrictEqual([origin, true])
    }
    // Only the default port itself: a port that begins with its digits is a port of its own.
    expect([taken("https://x:4431"), taken("http://x:8080"), taken("https://x:80"), taken("http://x:443")])
      .toStrictEqual([
        Either.right("https://x:4431"),
        Either.right("http://x:8080"),
        Either.right("https://x:80"),
        Either.right("http://x:443")
      ])
  })
})
