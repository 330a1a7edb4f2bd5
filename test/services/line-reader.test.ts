// The C2 line reader alone: what each chunk gives (more, the line, or too long), counted in bytes.
import { describe, expect, it } from "@effect/vitest"
import { makeLineReader } from "../../src/services/line-reader.js"

const bytes = (text: string) => Buffer.from(text, "utf8")

describe("makeLineReader", () => {
  it("asks for more until the newline, then gives the line's bytes without it, joined", () => {
    const read = makeLineReader(16)
    expect(read(bytes("{\"ok\":"))).toStrictEqual({ _tag: "More" })
    expect(read(bytes("true}\nrest"))).toStrictEqual({ _tag: "Line", bytes: bytes("{\"ok\":true}") })
  })

  it("counts bytes, not characters, and refuses as soon as the limit is passed, newline or not", () => {
    expect(makeLineReader(4)(bytes("éé\n"))).toStrictEqual({ _tag: "Line", bytes: bytes("éé") })
    expect(makeLineReader(4)(bytes("ééé"))).toStrictEqual({ _tag: "TooLong" })
    const read = makeLineReader(4)
    expect(read(bytes("abcd"))).toStrictEqual({ _tag: "More" })
    expect(read(bytes("e\n"))).toStrictEqual({ _tag: "TooLong" })
  })
})
