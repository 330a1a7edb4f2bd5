// Builds dist/buddy.js, the one-file bundle bin/buddy.js runs: the CLI and everything it imports,
// so a start reads one file instead of resolving some 800 modules (docs/decisions.md D9).
// Run by `npm run build`, by `npm ci` (as `prepare`) and before the tests.
import { build } from "esbuild"
import { rename } from "node:fs/promises"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const target = `${root}dist/buddy.js`
// Written beside the target and renamed over it, so a buddy starting meanwhile never reads half a file.
const partial = `${target}.${process.pid}.tmp`

await build({
  absWorkingDir: root,
  entryPoints: ["src/cli/main.ts"],
  outfile: partial,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  // A few CommonJS dependencies (yaml, via @effect/cli) call require() for Node's own modules.
  banner: { js: "import { createRequire } from \"node:module\"; const require = createRequire(import.meta.url);" }
})
await rename(partial, target)
