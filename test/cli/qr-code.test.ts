// The sign-in page as a QR code (src/cli/qr-code.ts, issue 26, D46): what is drawn reads back as
// the page, as a camera sees it on a dark terminal; it is small enough for 80 columns; and it is
// drawn only on a terminal wide enough, never under --json or TERM=dumb. On a real terminal:
// open-page.test.ts.
import { describe, expect, it } from "vitest"
import { mayDraw, qrLines, quietZone } from "../../src/cli/qr-code.js"
import { drawnCode, readDrawn } from "../support/qr.js"
import { PAGE } from "./support/fast-start.js"

describe("the page as a QR code", () => {
  it.each([
    PAGE,
    "https://auth.openai.com/codex/device?x=1",
    "https://example.test/",
    `https://launchpad.example/${"a".repeat(80)}`
  ])("reads back as %s", (page) => {
    const lines = qrLines(page)
    expect(readDrawn(lines)).toBe(page)
    expect(drawnCode(lines)).toStrictEqual(lines)
  })

  it("fits an 80-column terminal in 33 columns and 17 lines for OpenAI's page, in a light quiet zone", () => {
    const lines = qrLines(PAGE)
    expect(lines.map((line) => line.length)).toStrictEqual(Array(17).fill(33))
    // Version 3 (29 modules) and two modules of quiet zone each side; the odd last row is quiet zone too.
    expect(29 + 2 * quietZone).toBe(33)
    expect(lines[0]).toBe("█".repeat(33))
    expect(lines.at(-1)).toBe("█".repeat(33))
    for (const line of lines) expect(line.slice(0, 2) + line.slice(-2)).toBe("████")
  })

  it("is the wrong way round if its colours are swapped: light modules are the blocks", () => {
    const swapped = qrLines(PAGE).map((line) =>
      [...line].map((c) => ({ "█": " ", " ": "█", "▀": "▄", "▄": "▀" })[c] ?? c).join("")
    )
    expect(readDrawn(swapped)).toBeNull()
  })
})

describe("drawing the QR code", () => {
  const lines = qrLines(PAGE)
  const terminal = { isTTY: true, columns: 80 }

  it("happens on a terminal at least as wide as the code", () => {
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
