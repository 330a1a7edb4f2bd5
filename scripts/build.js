// Builds dist/buddy.js, the one-file bundle bin/buddy.js runs: the CLI and everything it imports,
// so a start reads one file instead of resolving some 800 modules (docs/decisions.md D9), and
// dist/buddy.js.cache, V8's code cache for it, so a start compiles little of it (D19).
// Run by `npm run build`, by `npm pack` (as `prepack`, D55), before the tests and by npm run demo.
//
// The bundle is CommonJS (the name stays buddy.js, which package.json ships): bin/buddy.js runs it
// through `vm.Script`, the one way Node 20 takes a code cache (module.enableCompileCache is Node 22).
// It is minified: V8 scans every byte of it at each start. The cache is made by running the new
// bundle once through bin/buddy.js (`status` against a home that does not exist, which evaluates
// every module and runs a command end to end), and is tagged with the bundle's SHA-256, so it is
// only ever used with exactly the bytes it was made from.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { copyFile, rename } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
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
  format: "cjs",
  target: "node20",
  minify: true,
  logLevel: "warning"
})
await rename(partial, target)

// The simulator for a package user (bin/buddy-simulator.js): one ESM file, with the recorded
// answers it reads beside it (fixtures/hermes/templates.ts finds them next to itself).
await build({
  absWorkingDir: root,
  entryPoints: ["fixtures/simulator.ts"],
  outfile: `${root}dist/simulator.js`,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  logLevel: "warning"
})
await copyFile(`${root}fixtures/hermes/recorded.json`, `${root}dist/recorded.json`)

// A failed cache run leaves no cache: the bundle then simply compiles as it loads.
const nowhere = mkdtempSync(join(tmpdir(), "buddy-build-"))
const warm = spawnSync(process.execPath, [`${root}bin/buddy.js`, "status", "--json", "--home", join(nowhere, "none")], {
  env: { ...process.env, BUDDY_WRITE_CODE_CACHE: "1" },
  stdio: ["ignore", "ignore", "inherit"]
})
rmSync(nowhere, { recursive: true, force: true })
// The warm-up reads a home that does not exist: Buddy's state is unknown, exit 1 (C8).
if (warm.status !== 1) console.warn(`scripts/build.js: no code cache (the warm-up run exited ${warm.status})`)
