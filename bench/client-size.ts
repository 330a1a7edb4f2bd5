// The browser client's weight (docs/performance.md, docs/decisions.md D45): `@lazurio/buddy/client`
// (src/client/index.ts) bundled as a Launchpad's front end would (esbuild: bundle, minify, ESM, for
// the browser), in bytes, and gzipped at level 9. The same source and esbuild give the same bytes,
// so it is measured apart from the timing runs: `npm run bench -- --client-size` measures and writes
// only this, `npm run bench:check -- --client-size` checks only this; the full runs do both.
import { build } from "esbuild"
import { createRequire } from "node:module"
import { gzipSync } from "node:zlib"

export interface ClientSize {
  readonly minified: number
  readonly gzipped: number
}

/** Issue 25's goal: the client at most 15 KB gzipped (15 000 bytes, the stricter reading of KB). */
export const clientGoal = 15_000

/** The client's bundle, its sizes, and the modules in it (with the bytes each leaves in the bundle). */
export const measureClient = async (root: string, entry = "src/client/index.ts") => {
  const bundled = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent"
  })
  const code = bundled.outputFiles[0]?.contents ?? new Uint8Array()
  const inputs = Object.values(bundled.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs).map(([file, { bytesInOutput }]) => ({ file, bytes: bytesInOutput }))
  )
  return {
    size: { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length } satisfies ClientSize,
    inputs
  }
}

/** The sizes more than `tolerance` times the stored ones. */
export const grown = (stored: ClientSize, measured: ClientSize, tolerance: number) =>
  (["minified", "gzipped"] as const).filter((name) => measured[name] > stored[name] * tolerance)

export const clientBegin = "<!-- bench:client:begin -->"
export const clientEnd = "<!-- bench:client:end -->"

/** The figures stored in the document's client block, if it has one. */
export const storedClient = (text: string): ClientSize | undefined => {
  const at = text.indexOf(clientBegin)
  const block = at === -1 ? "" : text.slice(at, text.indexOf(clientEnd))
  const stored = /```json\n([\s\S]*?)\n```/.exec(block)?.[1]
  return stored === undefined ? undefined : (JSON.parse(stored) as { readonly client: ClientSize }).client
}

const bytes = (count: number) => count.toLocaleString("en-US").replaceAll(",", " ")

/** The document with its client block written (or added at the end) for `size`. */
export const withClientBlock = (text: string, size: ClientSize, root: string) => {
  const versions = createRequire(`${root}/package.json`)
  const version = (name: string) => (versions(`${name}/package.json`) as { readonly version: string }).version
  const block = [
    clientBegin,
    `Last measured: ${new Date().toISOString().slice(0, 10)}, esbuild ${version("esbuild")}, effect ${
      version("effect")
    }.`,
    "",
    "| `@lazurio/buddy/client` bundled for a browser | bytes | goal | |",
    "|---|---|---|---|",
    `| minified | ${bytes(size.minified)} | | |`,
    `| gzipped (level 9) | ${bytes(size.gzipped)} | ≤ ${bytes(clientGoal)} | ${
      size.gzipped <= clientGoal ? "met" : "NOT met"
    } |`,
    "",
    "```json",
    JSON.stringify({ client: size }, null, 2),
    "```",
    clientEnd
  ].join("\n")
  const at = text.indexOf(clientBegin)
  return at === -1
    ? `${text.trimEnd()}\n\n${block}\n`
    : text.slice(0, at) + block + text.slice(text.indexOf(clientEnd) + clientEnd.length)
}
