// The sign-in page as a QR code (src/cli/qr-code.ts, issue 26, D46; both themes issue 39, D58):
// what is drawn reads back as the page, as a camera sees it on a light terminal and on a dark one
// (zbar reads the lines as a terminal shows them); it is small enough for 80 columns; and it is
// drawn only on a terminal wide enough, never under --json or TERM=dumb. On a real terminal:
// open-page.test.ts.
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import { describe, expect, it } from "vitest"
import { draw, ink, mayDraw, qrLines, quietZone, reset } from "../../src/cli/qr-code.js"
import { drawnCode, hasZbar, photograph, readDrawn, visible } from "../support/qr.js"
import { PAGE } from "./support/fast-start.js"

const pages = [
  PAGE,
  "https://auth.openai.com/codex/device?x=1",
  "https://example.test/",
  `https://launchpad.example/${"a".repeat(80)}`
]

describe.skipIf(!hasZbar)("the page as a QR code", () => {
  it.each(pages)("reads back as %s on a light terminal and on a dark one", (page) => {
    const lines = qrLines(page)
    expect(readDrawn(lines, "light")).toBe(page)
    expect(readDrawn(lines, "dark")).toBe(page)
    expect(drawnCode(lines)).toStrictEqual(lines)
  })

  it("reads on one theme only without its colours: D46's drawing was inverted on a light terminal", () => {
    const plain = qrLines(PAGE).map(visible)
    expect(readDrawn(plain, "dark")).toBe(PAGE)
    expect(readDrawn(plain, "light")).toBeNull()
  })

  it("is the wrong way round if its colours are swapped, on either theme", () => {
    const swapped = qrLines(PAGE).map((line) => line.replace(ink, "\u001b[30;47m"))
    expect(readDrawn(swapped, "light")).toBeNull()
    expect(readDrawn(swapped, "dark")).toBeNull()
  })

  it("is photographed from its colours, not the theme's: the same image on both", () => {
    const lines = qrLines(PAGE)
    const light = photograph(lines, "light", 1, 0)
    expect(light.equals(photograph(lines, "dark", 1, 0))).toBe(true)
    // Without a margin the image is the code alone: 33 modules a side, the last row quiet zone.
    expect(light.subarray(0, 13).toString("ascii")).toBe("P5\n33 34\n255\n")
  })
})

describe("the drawing", () => {
  const lines = qrLines(PAGE)

  it("fits an 80-column terminal in 33 columns and 17 lines for OpenAI's page, in a light quiet zone", () => {
    expect(lines.map((line) => visible(line).length)).toStrictEqual(Array(17).fill(33))
    // Version 3 (29 modules) and two modules of quiet zone each side; the odd last row is quiet zone too.
    expect(29 + 2 * quietZone).toBe(33)
    expect(lines[0]).toBe(`${ink}${"█".repeat(33)}${reset}`)
    expect(lines.at(-1)).toBe(`${ink}${"█".repeat(33)}${reset}`)
    for (const line of lines) expect(visible(line).slice(0, 2) + visible(line).slice(-2)).toBe("████")
  })

  it("names white on black at each line's start and the terminal's own colours at its end", () => {
    expect(ink).toBe("\u001b[37;40m")
    expect(reset).toBe("\u001b[0m")
    for (const line of lines) {
      expect(line.startsWith(ink)).toBe(true)
      expect(line.endsWith(reset)).toBe(true)
      expect(line.slice(ink.length, -reset.length)).not.toContain("\u001b")
    }
  })

  it("is written as it is, colours and all, one line each", async () => {
    const stream = new PassThrough()
    let written = ""
    stream.setEncoding("utf8").on("data", (chunk: string) => (written += chunk))
    await Effect.runPromise(draw(lines, stream))
    expect(written).toBe(`${lines.join("\n")}\n`)
  })
})

describe("drawing the QR code", () => {
  const lines = qrLines(PAGE)
  const terminal = { isTTY: true, columns: 80 }

  it("happens on a terminal at least as wide as the code, its colours taking no column", () => {
    expect(mayDraw(lines, false, terminal, {})).toBe(true)
    expect(mayDraw(lines, false, { isTTY: true, columns: 33 }, {})).toBe(true)
    expect(mayDraw(lines, false, { isTTY: true, columns: 32 }, {})).toBe(false)
  })

  it("never happens under --json, off a terminal, on TERM=dumb, or where the width is unknown", () => {
    expect(mayDraw(lines, true, terminal, {})).toBe(false)
    expect(mayDraw(lines, false, { isTTY: false, columns: 80 }, {})).toBe(false)
    expect(mayDraw(lines, false, { columns: 80 }, {})).toBe(false)
    expect(mayDraw(lines, false, terminal, { TERM: "dumb" })).toBe(false)
    expect(mayDraw(lines, false, { isTTY: true }, {})).toBe(false)
    expect(mayDraw(lines, false, terminal, { TERM: "xterm-256color", NO_COLOR: "1" })).toBe(true)
  })
})
