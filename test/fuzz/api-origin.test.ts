// Fuzzing the API origin (C2): exactly `http://127.0.0.1:<port>` or `http://[::1]:<port>`, port
// 1–65535, and nothing else. Every origin accepted is one the independent oracle accepts, every
// one it accepts is accepted, and the address dialled is always a loopback literal.
import { FastCheck, Option } from "effect"
import { describe, expect, it } from "vitest"
import { parseApiOrigin } from "../../src/services/api-origin.js"
import { stringNearMiss } from "./support/mutate.js"
import { isLoopbackOrigin } from "./support/oracles.js"
import { fuzzRuns, params, tally } from "./support/runs.js"

const fc = FastCheck

const valid = fc.oneof(
  fc.integer({ min: 1, max: 65535 }).map((port) => `http://127.0.0.1:${port}`),
  fc.integer({ min: 1, max: 65535 }).map((port) => `http://[::1]:${port}`),
  fc.constantFrom("http://127.0.0.1:1", "http://127.0.0.1:65535", "http://[::1]:1", "http://[::1]:65535")
)

/** Origins that are almost loopback ones, as an attacker or a confused config would write them. */
const known = fc.constantFrom(
  "http://127.0.0.1:0",
  "http://127.0.0.1:65536",
  "http://127.0.0.1:99999",
  "http://127.0.0.1:080",
  "http://127.0.0.1:+80",
  "http://127.0.0.1:8080/",
  "http://127.0.0.1:8080/api",
  "http://127.0.0.1:8080?x",
  "http://127.0.0.1:8080#x",
  "http://127.0.0.1:8080\n",
  "http://127.0.0.1:8080 ",
  "http://127.0.0.1",
  "http://127.0.0.1:",
  "http://user@127.0.0.1:8080",
  "http://127.0.0.1@evil.example:8080",
  "http://127.0.0.1.evil.example:8080",
  "http://127.0.0.1.:8080",
  "http://127.1:8080",
  "http://2130706433:8080",
  "http://0x7f.0.0.1:8080",
  "http://localhost:8080",
  "http://[::1]",
  "http://::1:8080",
  "http://[0:0:0:0:0:0:0:1]:8080",
  "http://[::ffff:127.0.0.1]:8080",
  "http://[::1%25lo]:8080",
  "https://127.0.0.1:8080",
  "HTTP://127.0.0.1:8080",
  "http:/127.0.0.1:8080",
  "http:\\\\127.0.0.1:8080",
  "http://127.0.0.1:\uff18\uff10",
  "http://127.0.0.1:8080\u200b",
  "ws://127.0.0.1:8080",
  ""
)

describe("fuzzing the API origin", () => {
  it("an origin is accepted exactly when it is a C2 loopback origin, and names a loopback literal", () => {
    const seen = tally("api origin")
    const origin = fc.oneof(
      { arbitrary: valid, weight: 2 },
      { arbitrary: valid.chain(stringNearMiss), weight: 5 },
      { arbitrary: known, weight: 2 },
      { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 1 },
      { arbitrary: fc.webUrl(), weight: 1 }
    )
    fc.assert(
      fc.property(origin, (text) => {
        const parsed = parseApiOrigin(text)
        const expected = isLoopbackOrigin(text)
        seen.add(expected ? "loopback" : "refused")
        expect(Option.isSome(parsed)).toBe(expected)
        if (Option.isNone(parsed)) return
        const { address, host, port } = parsed.value
        const literal = address === "::1" ? "[::1]" : address
        expect(parsed.value.origin).toBe(text)
        expect(text).toBe(`http://${literal}:${port}`)
        expect(host).toBe(`${literal}:${port}`)
        expect(Number.isSafeInteger(port) && port >= 1 && port <= 65535).toBe(true)
      }),
      params(fuzzRuns)
    )
    seen.report()
    expect(seen.seen("loopback")).toBeGreaterThan(0)
    expect(seen.seen("refused")).toBeGreaterThan(0)
  })
})
