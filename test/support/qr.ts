// Reading back a QR code drawn on a terminal, as a phone's camera sees it on a dark terminal: each
// character two modules high (▀ top light, ▄ bottom light, █ both, space neither), a light module
// the foreground's light and a dark one the background's dark, scaled up and decoded by jsQR with
// no inversion tried, so a code drawn with its colours swapped does not read.
// jsQR is CommonJS whose exports are the function, with itself again as `default`, which is what its
// declarations (and so NodeNext's typing of this import) name.
import jsQRModule from "jsqr"

const jsQR = jsQRModule.default

const shades: Readonly<Record<string, readonly [boolean, boolean]>> = {
  "█": [true, true],
  "▀": [true, false],
  "▄": [false, true],
  " ": [false, false]
}

/** The drawn lines of a QR code among `lines`: the longest run of lines made only of its four characters, all as wide. */
export const drawnCode = (lines: ReadonlyArray<string>): ReadonlyArray<string> => {
  let best: ReadonlyArray<string> = []
  let run: Array<string> = []
  for (const line of [...lines, ""]) {
    const drawn = line.length > 0 && [...line].every((c) => c in shades) && line.includes("█")
    if (drawn && (run.length === 0 || run[0]!.length === line.length)) run.push(line)
    else {
      if (run.length > best.length) best = run
      run = drawn ? [line] : []
    }
  }
  return best
}

/** What the code drawn in `lines` says, or null when it cannot be read. */
export const readDrawn = (lines: ReadonlyArray<string>, scale = 6): string | null => {
  const modules = lines.flatMap((line) => {
    const pairs = [...line].map((c) => shades[c] ?? [false, false])
    return [pairs.map(([top]) => top), pairs.map(([, bottom]) => bottom)]
  })
  const width = (modules[0]?.length ?? 0) * scale
  const height = modules.length * scale
  const pixels = new Uint8ClampedArray(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = modules[Math.floor(y / scale)]![Math.floor(x / scale)]! ? 255 : 0
      pixels.set([value, value, value, 255], (y * width + x) * 4)
    }
  }
  return jsQR(pixels, width, height, { inversionAttempts: "dontInvert" })?.data ?? null
}
