// The causes of a same-origin refusal and their words (D50), case by case: which cause a request
// gives, in C6's order; how the origins are repeated; when a hint is given.
import { describe, expect, it } from "@effect/vitest"
import { loopbackAliases, originCause, originWords, setupCause, untrustworthy } from "../../src/http/origin-words.js"
import { shown } from "../../src/services/shown.js"

const config = { launchpadOrigin: "https://launchpad.example", buddyOrigin: "https://buddy.example" }

describe("originCause: the first condition of C6's rule a request fails", () => {
  it("in the order Sec-Fetch-Site, then Origin; none when the rule admits it", () => {
    expect(originCause(config, undefined, undefined)).toStrictEqual({ kind: "site-missing" })
    expect(originCause(config, undefined, config.launchpadOrigin)).toStrictEqual({ kind: "site-missing" })
    expect(originCause(config, "cross-site", undefined)).toStrictEqual({ kind: "site-other", site: "cross-site" })
    expect(originCause(config, "same-site", undefined)).toStrictEqual({ kind: "site-other", site: "same-site" })
    expect(originCause(config, "none", undefined)).toStrictEqual({ kind: "site-other", site: "none" })
    expect(originCause(config, "SAME-ORIGIN", undefined)).toStrictEqual({ kind: "site-other", site: "other" })
    expect(originCause(config, "", undefined)).toStrictEqual({ kind: "site-other", site: "other" })
    expect(originCause(config, "same-origin", undefined)).toStrictEqual({ kind: "origin-missing" })
    expect(originCause(config, "same-origin", config.buddyOrigin)).toStrictEqual({
      kind: "origin-buddy",
      origin: config.buddyOrigin
    })
    expect(originCause(config, "same-origin", "null")).toStrictEqual({ kind: "origin-other", origin: "null" })
    expect(originCause(config, "same-origin", config.launchpadOrigin)).toBeUndefined()
    // A config without Buddy's origin: an absent Origin is not Buddy's.
    expect(originCause({ ...config, buddyOrigin: undefined }, "same-origin", undefined)).toStrictEqual({
      kind: "origin-missing"
    })
    // A hand-built config whose two origins are one: Buddy's own is refused first.
    const same = { ...config, buddyOrigin: config.launchpadOrigin }
    expect(originCause(same, "same-origin", config.launchpadOrigin)?.kind).toBe("origin-buddy")
  })

  it("tells causes apart by kind, and by the site or the origin (as shown) where the kind has one", () => {
    expect(setupCause({ kind: "site-missing" })).toStrictEqual({ kind: "site-missing", variant: "" })
    expect(setupCause({ kind: "origin-missing" })).toStrictEqual({ kind: "origin-missing", variant: "" })
    expect(setupCause({ kind: "origin-buddy", origin: "https://buddy.example" })).toStrictEqual({
      kind: "origin-buddy",
      variant: ""
    })
    expect(setupCause({ kind: "site-other", site: "none" })).toStrictEqual({ kind: "site-other", variant: "none" })
    expect(setupCause({ kind: "origin-other", origin: "https://a.example" })).toStrictEqual({
      kind: "origin-other",
      variant: "\"https://a.example\""
    })
    // Origins alike in their first 100 characters are one cause: what is kept is bounded too.
    const long = (end: string) => setupCause({ kind: "origin-other", origin: `https://${"a".repeat(100)}${end}` })
    expect(long("x")).toStrictEqual(long("y"))
  })
})

describe("shown: someone else's text, quoted, bounded, escaped", () => {
  it("escapes quotes, backslashes, C0 and C1 controls, DEL and the line separators", () => {
    expect(shown("plain", 10)).toBe("\"plain\"")
    expect(shown("a\"b\\c", 10)).toBe(String.raw`"a\"b\\c"`)
    expect(shown("\u0000\t\n\r\u001f \u007e\u007f\u0080\u009f\u00a0\u2028\u2029\u2030", 20)).toBe(
      String.raw`"\u0000\u0009\u000a\u000d\u001f ~\u007f\u0080\u009f` + "\u00a0" + String.raw`\u2028\u2029` +
        "\u2030\""
    )
  })

  it("keeps `limit` characters and marks a cut", () => {
    expect(shown("abc", 3)).toBe("\"abc\"")
    expect(shown("abcd", 3)).toBe("\"abc\"…")
    expect(shown("", 3)).toBe("\"\"")
  })
})

describe("the hints", () => {
  it("loopback aliases: two of loopback's names, one scheme, one port", () => {
    expect(loopbackAliases("http://localhost:4105", "http://127.0.0.1:4105")).toBe(true)
    expect(loopbackAliases("http://127.0.0.1:4105", "http://[::1]:4105")).toBe(true)
    expect(loopbackAliases("http://[::1]", "http://localhost")).toBe(true)
    expect(loopbackAliases("http://127.0.0.1:4105", "http://127.0.0.1:4105")).toBe(false)
    expect(loopbackAliases("https://localhost:4105", "http://127.0.0.1:4105")).toBe(false)
    expect(loopbackAliases("http://localhost:4106", "http://127.0.0.1:4105")).toBe(false)
    expect(loopbackAliases("http://launchpad.lan:4105", "http://127.0.0.1:4105")).toBe(false)
    expect(loopbackAliases("http://localhost:4105", "http://launchpad.lan:4105")).toBe(false)
    expect(loopbackAliases("null", "http://127.0.0.1:4105")).toBe(false)
    expect(loopbackAliases("http://localhost:4105", "null")).toBe(false)
  })

  it("untrustworthy: plain http on a host that is not loopback", () => {
    expect(untrustworthy("http://launchpad.lan")).toBe(true)
    expect(untrustworthy("http://192.168.1.20:4105")).toBe(true)
    expect(untrustworthy("https://launchpad.lan")).toBe(false)
    expect(untrustworthy("http://localhost:4105")).toBe(false)
    expect(untrustworthy("http://127.0.0.1")).toBe(false)
    expect(untrustworthy("http://[::1]:80")).toBe(false)
    expect(untrustworthy("not an origin")).toBe(false)
  })

  it("an opaque origin (Origin: null, a sandboxed frame or a file) is named as sent, with the plain hint", () => {
    expect(originWords(config, { kind: "origin-other", origin: "null" })).toBe(
      "buddy: refused a POST (403 origin-mismatch): its Origin is \"null\", but launchpadOrigin is " +
        "\"https://launchpad.example\"; set launchpadOrigin to the origin the Launchpad's page is opened at, or " +
        "open it at \"https://launchpad.example\"."
    )
  })
})
