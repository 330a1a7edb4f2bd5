// The browser client's weight (docs/performance.md, docs/decisions.md D45, D49): `@lazurio/buddy/client`
// (src/client/index.ts) alone, and the card, `@lazurio/buddy/element` with the client it is built on,
// each bundled as a Launchpad's front end would (esbuild: bundle, minify, ESM, for the browser), in
// bytes, and gzipped at level 9. The same source and esbuild give the same bytes,
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

/** Issue 37's goal: the card and the client together at most 12 KB gzipped. */
export const cardGoal = 12_000

/** The card's entry: it holds the client. */
export const cardEntry = "src/element/index.ts"

export interface Sizes {
  readonly client: ClientSize
  readonly card: ClientSize
}

/** Both bundles' sizes. */
export const measureBoth = async (root: string): Promise<Sizes> => ({
  client: (await measureClient(root)).size,
  card: (await measureClient(root, cardEntry)).size
})

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

/** The figures stored in the document's client block, if it has one (the card's since issue 37). */
export const storedSizes = (text: string): Partial<Sizes> | undefined => {
  const at = text.indexOf(clientBegin)
  const block = at === -1 ? "" : text.slice(at, text.indexOf(clientEnd))
  const stored = /```json\n([\s\S]*?)\n```/.exec(block)?.[1]
  return stored === undefined ? undefined : (JSON.parse(stored) as Partial<Sizes>)
}

/** The client's stored figures, if the document has them. */
export const storedClient = (text: string): ClientSize | undefined => storedSizes(text)?.client

const bytes = (count: number) => count.toLocaleString("en-US").replaceAll(",", " ")

/** The document with its client block written (or added at the end) for `sizes`. */
export const withClientBlock = (text: string, sizes: Sizes, root: string) => {
  const versions = createRequire(`${root}/package.json`)
  const version = (name: string) => (versions(`${name}/package.json`) as { readonly version: string }).version
  const block = [
    clientBegin,
    `Last measured: ${new Date().toISOString().slice(0, 10)}, esbuild ${version("esbuild")}, effect ${
      version("effect")
    }.`,
    "",
    "| bundled for a browser | bytes | goal | |",
    "|---|---|---|---|",
    `| \`@lazurio/buddy/client\`, minified | ${bytes(sizes.client.minified)} | | |`,
    `| \`@lazurio/buddy/client\`, gzipped (level 9) | ${bytes(sizes.client.gzipped)} | ≤ ${bytes(clientGoal)} | ${
      sizes.client.gzipped <= clientGoal ? "met" : "NOT met"
    } |`,
    `| \`@lazurio/buddy/element\` with the client, minified | ${bytes(sizes.card.minified)} | | |`,
    `| \`@lazurio/buddy/element\` with the client, gzipped (level 9) | ${bytes(sizes.card.gzipped)} | ≤ ${
      bytes(cardGoal)
    } | ${sizes.card.gzipped <= cardGoal ? "met" : "NOT met"} |`,
    "",
    "```json",
    JSON.stringify(sizes, null, 2),
    "```",
    clientEnd
  ].join("\n")
  const at = text.indexOf(clientBegin)
  return at === -1
    ? `${text.trimEnd()}\n\n${block}\n`
    : text.slice(0, at) + block + text.slice(text.indexOf(clientEnd) + clientEnd.length)
}
