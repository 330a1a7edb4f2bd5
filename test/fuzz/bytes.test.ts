// Fuzzing the two byte-level decoders every peer's answer goes through first: strict UTF-8
// (a malformed sequence is refused, never replaced; a byte-order mark is kept) and the C2 line
// reader (counts bytes, refuses past the limit as soon as it is passed, a line ends at the first
// `\n`, however the bytes are cut into chunks).
import { Either, FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import { decodeUtf8 } from "../../src/schema/utf8.js"
import { makeLineReader } from "../../src/services/line-reader.js"
import { arbitraryBytes, badBytes } from "./support/mutate.js"
import { strictUtf8 } from "./support/oracles.js"
import { fuzzRuns, params, tally } from "./support/runs.js"

const fc = FastCheck

/** Pieces of UTF-8: valid characters of every length, the classic malformed ones, random bytes. */
const piece = fc.oneof(
  {
    arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 4 }).map((text) => [...Buffer.from(text)]),
    weight: 4
  },
  { arbitrary: fc.constantFrom(...badBytes).map((bytes) => [...bytes]), weight: 2 },
  {
    arbitrary: fc.constantFrom([0xef, 0xbb, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf], [0xee, 0x80, 0x80], [0xc2, 0x80]),
    weight: 1
  },
  { arbitrary: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 4 }), weight: 1 }
)

const utf8Input = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((pieces) => Uint8Array.from(pieces.flat())),
  arbitraryBytes
)

/** Bytes, possibly with newlines, cut at arbitrary places; a limit around their size. */
const lineInput = fc.tuple(
  fc.oneof(
    fc.uint8Array({ maxLength: 80 }),
    fc.array(fc.constantFrom(10, 0x41, 0xff, 0x7b, 0x0d), { maxLength: 80 }).map((bytes) => Uint8Array.from(bytes))
  ),
  fc.array(fc.nat(), { maxLength: 8 }),
  fc.integer({ min: 0, max: 90 })
).map(([bytes, cuts, limit]) => {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks = [0, ...points].map((start, index) => bytes.subarray(start, points[index] ?? bytes.length))
  return { bytes, chunks, limit }
})

describe("fuzzing the byte decoders", () => {
  it("strict UTF-8 gives back exactly the text of valid bytes and refuses every other byte string", () => {
    const seen = tally("utf8")
    fc.assert(
      fc.property(utf8Input, (bytes) => {
        const decoded = decodeUtf8(bytes)
        const expected = strictUtf8(bytes)
        seen.add(expected === undefined ? "refused" : "text")
        if (expected === undefined) {
          expect(Either.isLeft(decoded)).toBe(true)
        } else {
          expect(decoded).toStrictEqual(Either.right(expected))
          expect(Buffer.from(expected, "utf8").equals(Buffer.from(bytes))).toBe(true)
        }
      }),
      params(fuzzRuns)
    )
    seen.report()
    expect(seen.seen("refused")).toBeGreaterThan(0)
    expect(seen.seen("text")).toBeGreaterThan(0)
  })

  it("the line reader gives the bytes before the first newline, or refuses as soon as the limit is passed", () => {
    const seen = tally("line reader")
    fc.assert(
      fc.property(lineInput, ({ bytes, chunks, limit }) => {
        const read = makeLineReader(limit)
        const newline = bytes.indexOf(10)
        const lineLength = newline === -1 ? bytes.length : newline
        let consumed = 0
        for (const chunk of chunks) {
          const step = read(chunk)
          consumed += chunk.length
          // Bytes of the line seen so far (up to the newline, if this chunk holds it).
          const counted = Math.min(consumed, lineLength)
          if (counted > limit) {
            expect(step).toStrictEqual({ _tag: "TooLong" })
            seen.add("too long")
            return
          }
          if (newline !== -1 && consumed > newline) {
            expect(step._tag).toBe("Line")
            if (step._tag === "Line") expect(Buffer.from(step.bytes).equals(bytes.subarray(0, newline))).toBe(true)
            seen.add("line")
            return
          }
          expect(step).toStrictEqual({ _tag: "More" })
        }
        seen.add("more")
      }),
      params(fuzzRuns)
    )
    seen.report()
    for (const outcome of ["too long", "line", "more"]) expect(seen.seen(outcome)).toBeGreaterThan(0)
  })
})
