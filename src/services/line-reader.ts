// A byte-counted reader for one `\n`-terminated line (C2 framing): it counts bytes, not
// characters, refuses a line over the limit as soon as the limit is passed, and decodes UTF-8
// strictly only once the whole line is in.

export type LineStep =
  | { readonly _tag: "More" }
  | { readonly _tag: "Line"; readonly bytes: Uint8Array }
  | { readonly _tag: "TooLong" }

export const makeLineReader = (limit: number) => {
  const parts: Array<Uint8Array> = []
  let size = 0
  return (chunk: Uint8Array): LineStep => {
    const newline = chunk.indexOf(10)
    const take = newline === -1 ? chunk : chunk.subarray(0, newline)
    size += take.length
    if (size > limit) return { _tag: "TooLong" }
    parts.push(take)
    return newline === -1 ? { _tag: "More" } : { _tag: "Line", bytes: Buffer.concat(parts) }
  }
}
