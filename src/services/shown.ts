// A text of someone else's (a request's header, a config's key) repeated in words for a person:
// quoted, bounded, and with every character that could break or forge a log line escaped (D50).

/** C0 and C1 controls, DEL, and the line and paragraph separators a log reader would break at. */

const controls = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/** `text` quoted, at most `limit` characters of it (then `…`), `"` and `\` and every control character escaped. */
export const shown = (text: string, limit: number): string => {
  const cut = text.slice(0, limit)
  const quoted = `"${
    cut.replace(/["\\]/g, (character) => `\\${character}`).replace(
      controls,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`
    )
  }"`
  return cut.length < text.length ? `${quoted}…` : quoted
}
