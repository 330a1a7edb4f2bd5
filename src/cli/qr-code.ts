// The sign-in page as a QR code on the terminal (issue 26, D46), for an operator on a headless host
// who reads the page on a phone, as `tailscale up --qr` prints its login page. The code is encoded
// by uqr (unjs; zero dependencies, bundled into the CLI) and drawn here with half blocks, two rows
// of modules per line, so a page's code (version 3 or 4) takes about 33 columns and 17 lines.
// Every line names its own two colours (issue 39, D58): light modules are blocks in the foreground,
// white, and dark ones the background, black, so the code reads the same on a light theme as on a
// dark one. A terminal that shows no colour at all draws the blocks in its own foreground, which is
// the dark theme's drawing (D46's, as qrterminal draws it), the commoner case.
import { Effect } from "effect"
import { encode } from "uqr"
import { stripEscapes } from "./output.js"

/** Two modules per character: top and bottom, light (true) or dark. */
const half = (top: boolean, bottom: boolean): string => top ? (bottom ? "█" : "▀") : (bottom ? "▄" : " ")

/**
 * White foreground (the light modules) on a black background (the dark ones): ECMA-48's own eight
 * colours, which every colour terminal has, the Linux console included; a theme may shade them
 * (white is often a light grey) but never swaps light for dark.
 */
export const ink = "\u001b[37;40m"
/** Back to the terminal's own colours at each line's end, so nothing after the code is coloured. */
export const reset = "\u001b[0m"

/** The quiet zone around the code, in modules: two is what phone cameras read reliably on a screen. */
export const quietZone = 2

/**
 * `text` as a QR code, one string per terminal line, each the same visible width. Error
 * correction M (15 %): a screen photographed at an angle loses more than L allows.
 */
export const qrLines = (text: string): ReadonlyArray<string> => {
  const { data } = encode(text, { ecc: "M", border: quietZone })
  // uqr's `true` is a dark module; a row past the end (an odd count) is quiet zone, light.
  const light = (row: number, column: number) => !(data[row]?.[column] ?? false)
  const lines: Array<string> = []
  for (let row = 0; row < data.length; row += 2) {
    let line = ""
    for (let column = 0; column < data.length; column++) line += half(light(row, column), light(row + 1, column))
    lines.push(`${ink}${line}${reset}`)
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
 * every line fits the terminal's width (what shows of it: its colours take no column).
 */
export const mayDraw = (lines: ReadonlyArray<string>, json: boolean, screen: Screen, env: NodeJS.ProcessEnv) =>
  !json && screen.isTTY === true && env["TERM"] !== "dumb" &&
  (screen.columns ?? 0) >= Math.max(0, ...lines.map((line) => stripEscapes(line).length))

/**
 * The code written to `stream` as it is, colours and all, even under NO_COLOR or FORCE_COLOR=0,
 * which the CLI's console would strip them for (D58): its two colours are the code, not a style,
 * and without them it reads on one theme only. Only ever called where `mayDraw` allowed it.
 */
export const draw = (lines: ReadonlyArray<string>, stream: NodeJS.WritableStream = process.stdout) =>
  Effect.sync(() => {
    stream.write(`${lines.join("\n")}\n`)
  })
