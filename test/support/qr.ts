// Reading back a QR code drawn on a terminal, as a phone's camera sees it: the lines are
// interpreted as a terminal shows them (each character one module wide and two tall, ▀ the top in
// the foreground, ▄ the bottom, █ both, a space neither; the colours from their SGR codes, and a
// character with none in the theme's own), photographed onto an image with a margin of the
// terminal's background around it, and decoded by zbar (`zbarimg`, Debian's zbar-tools), which
// tries no inverted code: a drawing whose light and dark are swapped does not read.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { onPath, requires } from "./required.js"

/** The terminal's own colours, what shows where a character names none. */
export type Theme = "light" | "dark"

export const hasZbar = requires(onPath("zbarimg"), "zbarimg", "apt-get install zbar-tools")

const glyphs: Readonly<Record<string, readonly [top: boolean, bottom: boolean]>> = {
  "█": [true, true],
  "▀": [true, false],
  "▄": [false, true],
  " ": [false, false]
}

/** Grey levels of the eight ECMA-48 colours as xterm shows them (by luminance), and bright ones. */
const eight = [0, 76, 115, 191, 35, 90, 130, 229] as const
const bright = [127, 118, 189, 243, 136, 151, 209, 255] as const

type Colour = number | "default"

interface Cell {
  readonly glyph: string
  readonly foreground: Colour
  readonly background: Colour
}

/** A 256-colour index as a grey level: the 16, the 6×6×6 cube, then the grey ramp. */
const indexed = (n: number): number => {
  if (n < 8) return eight[n]!
  if (n < 16) return bright[n - 8]!
  if (n < 232) {
    const level = (v: number) => v === 0 ? 0 : 55 + 40 * v
    const c = n - 16
    return Math.round(0.299 * level(Math.floor(c / 36)) + 0.587 * level(Math.floor(c / 6) % 6) + 0.114 * level(c % 6))
  }
  return 8 + 10 * (n - 232)
}

/** One line's cells, with the colours its SGR codes set (a line starts in the terminal's own). */
const cells = (line: string): ReadonlyArray<Cell> => {
  let foreground: Colour = "default"
  let background: Colour = "default"
  const out: Array<Cell> = []
  // An SGR sequence, any other CSI sequence (ignored), or one character.
  const tokens = /\u001b\[([0-9;]*)m|(\u001b\[[0-?]*[ -/]*[@-~])|([^\u001b])/gu
  for (const [, params, other, glyph] of line.matchAll(tokens)) {
    if (glyph !== undefined) {
      out.push({ glyph, foreground, background })
    } else if (params !== undefined && other === undefined) {
      const codes = params === "" ? [0] : params.split(";").map(Number)
      for (let i = 0; i < codes.length; i++) {
        const code = codes[i]!
        if (code === 0) [foreground, background] = ["default", "default"]
        else if (code >= 30 && code <= 37) foreground = eight[code - 30]!
        else if (code >= 40 && code <= 47) background = eight[code - 40]!
        else if (code >= 90 && code <= 97) foreground = bright[code - 90]!
        else if (code >= 100 && code <= 107) background = bright[code - 100]!
        else if (code === 39) foreground = "default"
        else if (code === 49) background = "default"
        else if ((code === 38 || code === 48) && codes[i + 1] === 5) {
          const grey = indexed(codes[i + 2] ?? 0)
          if (code === 38) foreground = grey
          else background = grey
          i += 2
        } else if ((code === 38 || code === 48) && codes[i + 1] === 2) {
          const [r, g, b] = [codes[i + 2] ?? 0, codes[i + 3] ?? 0, codes[i + 4] ?? 0]
          const grey = Math.round(0.299 * r + 0.587 * g + 0.114 * b)
          if (code === 38) foreground = grey
          else background = grey
          i += 4
        }
      }
    }
  }
  return out
}

/** What shows of a line: its characters without escape sequences. */
export const visible = (line: string): string => cells(line).map((cell) => cell.glyph).join("")

/**
 * The drawn lines of a QR code among `lines`: the longest run of lines showing only its four
 * characters, at least one block each, all as wide.
 */
export const drawnCode = (lines: ReadonlyArray<string>): ReadonlyArray<string> => {
  let best: ReadonlyArray<string> = []
  let run: Array<string> = []
  for (const line of [...lines, ""]) {
    const shown = visible(line)
    const drawn = shown.length > 0 && [...shown].every((c) => c in glyphs) && /[█▀▄]/.test(shown)
    if (drawn && (run.length === 0 || visible(run[0]!).length === shown.length)) run.push(line)
    else {
      if (run.length > best.length) best = run
      run = drawn ? [line] : []
    }
  }
  return best
}

/** The theme's foreground and background as grey levels: dark text on white, or light on black. */
const themeColours = (theme: Theme) => theme === "light" ? { fg: 0, bg: 255 } : { fg: 229, bg: 0 }

/**
 * `lines` as a terminal with `theme` shows them, as a binary PGM (P5): `scale` pixels a module,
 * and `margin` modules of the terminal's background around (the screen beyond the code).
 */
export const photograph = (lines: ReadonlyArray<string>, theme: Theme, scale = 4, margin = 4): Buffer => {
  const { bg, fg } = themeColours(theme)
  // A half in the foreground (the glyph's ink) or the background, each the theme's own if unset.
  const half = (cell: Cell, inked: boolean) =>
    inked
      ? (cell.foreground === "default" ? fg : cell.foreground)
      : (cell.background === "default" ? bg : cell.background)
  const rows = lines.flatMap((line) => {
    const row = cells(line).map((cell) => [cell, glyphs[cell.glyph] ?? [false, false]] as const)
    return [row.map(([cell, [top]]) => half(cell, top)), row.map(([cell, [, bottom]]) => half(cell, bottom))]
  })
  const columns = Math.max(0, ...rows.map((row) => row.length))
  const width = (columns + 2 * margin) * scale
  const height = (rows.length + 2 * margin) * scale
  const pixels = Buffer.alloc(width * height, bg)
  for (let y = 0; y < rows.length * scale; y++) {
    for (let x = 0; x < columns * scale; x++) {
      const shade = rows[Math.floor(y / scale)]![Math.floor(x / scale)] ?? bg
      pixels[(y + margin * scale) * width + x + margin * scale] = shade
    }
  }
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, "ascii"), pixels])
}

/** What zbar reads in `lines` shown on a `theme` terminal, or null when it reads nothing. */
export const readDrawn = (lines: ReadonlyArray<string>, theme: Theme): string | null => {
  const dir = mkdtempSync(join(tmpdir(), "buddy-qr-"))
  const file = join(dir, `${theme}.pgm`)
  writeFileSync(file, photograph(lines, theme))
  // Exit 0 with the data, 4 when no code was found; --raw keeps the bytes as they were encoded.
  const read = spawnSync("zbarimg", ["--quiet", "--raw", "--nodbus", "-Sdisable", "-Sqrcode.enable", file], {
    encoding: "utf8"
  })
  rmSync(dir, { recursive: true, force: true })
  if (read.status === 4) return null
  if (read.status !== 0) throw new Error(`zbarimg failed (${read.status}): ${read.stderr}`)
  return read.stdout.replace(/\n$/, "")
}
