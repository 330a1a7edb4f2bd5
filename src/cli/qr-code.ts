// The sign-in page as a QR code on the terminal (issue 26, D46), for an operator on a headless host
// who reads the page on a phone, as `tailscale up --qr` prints its login page. The code is encoded
// by uqr (unjs; zero dependencies, bundled into the CLI) and drawn here with half blocks, two rows
// of modules per line, so a page's code (version 3 or 4) takes about 33 columns and 17 lines.
// Light modules are drawn as blocks and dark ones as the terminal's own background, as qrterminal
// (tailscale's) draws them: a terminal's background is dark far more often than not.
import { encode } from "uqr"

/** Two modules per character: top and bottom, light (true) or dark. */
const half = (top: boolean, bottom: boolean): string => top ? (bottom ? "█" : "▀") : (bottom ? "▄" : " ")

/** The quiet zone around the code, in modules: two is what phone cameras read reliably on a screen. */
export const quietZone = 2

/**
 * `text` as a QR code, one string per terminal line, each the same width. Error correction M
 * (15 %): a screen photographed at an angle loses more than L allows.
 */
export const qrLines = (text: string): ReadonlyArray<string> => {
  const { data } = encode(text, { ecc: "M", border: quietZone })
  // uqr's `true` is a dark module; a row past the end (an odd count) is quiet zone, light.
  const light = (row: number, column: number) => !(data[row]?.[column] ?? false)
  const lines: Array<string> = []
  for (let row = 0; row < data.length; row += 2) {
    let line = ""
    for (let column = 0; column < data.length; column++) line += half(light(row, column), light(row + 1, column))
    lines.push(line)
  }
  return lines
}

/** The terminal's side of the question: whether it is one, its width, and what TERM says. */
export interface Screen {
  readonly isTTY?: boolean
  readonly columns?: number
}

/**
 * Whether a QR code of `lines` may be drawn on `screen` (stdout): never under --json, never on
 * anything but a terminal (a pipe or file gets only answers), never on `TERM=dumb`, and only when
 * every line fits the terminal's width.
 */
export const mayDraw = (lines: ReadonlyArray<string>, json: boolean, screen: Screen, env: NodeJS.ProcessEnv) =>
  !json && screen.isTTY === true && env["TERM"] !== "dumb" &&
  (screen.columns ?? 0) >= Math.max(0, ...lines.map((line) => line.length))
