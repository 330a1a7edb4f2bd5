// `npm run bench:profile [runs] [out]`: bench/profile.ts and src/ as one esbuild bundle (names kept,
// not minified; dependencies left in node_modules, so their frames keep their own files), so the
// profile's frames name our real functions and lines, run by plain node, then summarised
// (bench/profile-summary.mjs). The bundle is written beside this file, so it finds the stand-in as
// the source does, and removed afterwards.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const here = fileURLToPath(new URL("./", import.meta.url))
const bundle = `${here}.profile-${process.pid}.mjs`
const [runs = "3000", out = join(tmpdir(), "buddy-bench.cpuprofile")] = process.argv.slice(2)
await build({
  entryPoints: [`${here}profile.ts`],
  outfile: bundle,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  keepNames: true,
  packages: "external",
  logLevel: "warning"
})
const run = spawnSync(process.execPath, [bundle, runs, out], { stdio: "inherit" })
if (process.env.KEEP_BUNDLE !== "1") rmSync(bundle, { force: true })
if (run.status !== 0) process.exit(run.status ?? 1)
spawnSync(process.execPath, [`${here}profile-summary.mjs`, out, "25"], { stdio: "inherit" })
