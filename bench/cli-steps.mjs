// Each step of the CLI's start-up work (docs/performance.md, D19), as ratios to `node -e 0` in the
// same run: the bundle as D9 built it (ESM, not minified), minified, then CommonJS through
// `vm.Script` as bin/buddy.js runs it now, without and with V8's code cache (the current bundle,
// where only serve loads the HTTP stack, through `import()` of src/serve/serving.ts); and, to see
// what that split gives, the cached bundle with serving.ts imported statically, as before it. Every variant is built from the current source into a temporary directory and run
// directly (no launcher, so only the bundle differs); hyperfine runs them in ROUNDS rounds
// (default 5) of RUNS runs (default 10), all commands in each round, and the ratio is the median
// over the rounds, so a change of load on this shared machine weighs on every variant alike.
//   node bench/cli-steps.mjs [--version | status]      (needs hyperfine)
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startRatios } from "./start-ratios.mjs"

const root = fileURLToPath(new URL("../", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "buddy-cli-steps-"))
const rounds = Number(process.env.ROUNDS ?? 5)
const runs = Number(process.env.RUNS ?? 10)
const args = process.argv[2] === "status" ? ["status", "--json", "--home", join(work, "none")] : ["--version"]

const common = {
  absWorkingDir: root,
  entryPoints: ["src/cli/main.ts"],
  bundle: true,
  platform: "node",
  target: "node20"
}
const esmBanner = {
  js: "import { createRequire } from \"node:module\"; const require = createRequire(import.meta.url);"
}
await build({ ...common, format: "esm", banner: esmBanner, outfile: join(work, "esm.mjs"), logLevel: "error" })
await build({ ...common, format: "esm", banner: esmBanner, minify: true, outfile: join(work, "esm-min.mjs") })
await build({ ...common, format: "cjs", minify: true, outfile: join(work, "cjs-min.js"), logLevel: "error" })
// serve.ts with its lazy `import("./serving.js")` made a static import: the HTTP stack at every start.
const eagerServe = {
  name: "eager-serve",
  setup: (b) => {
    b.onLoad({ filter: /src\/cli\/serve\.ts$/ }, (a) => {
      const text = readFileSync(a.path, "utf8")
      const eager = text.replace(
        /yield\* Effect\.promise\(\(\) =>\s*import\("\.\.\/serve\/serving\.js"\)\s*\)/,
        "servingEager"
      )
      if (eager === text) throw new Error("bench/cli-steps.mjs: serve.ts no longer imports serving.js lazily as it did")
      return { contents: `import * as servingEager from "../serve/serving.js"\n${eager}`, loader: "ts" }
    })
  }
}
await build({
  ...common,
  format: "cjs",
  minify: true,
  outfile: join(work, "eager.js"),
  plugins: [eagerServe],
  logLevel: "error"
})

// bin/buddy.js's way of running the bundle, with or without its cache.
const runner = (cached, bundle = "cjs-min.js") => `
const { readFileSync, writeFileSync } = require("node:fs")
const { Script } = require("node:vm")
const filename = ${JSON.stringify(join(work, bundle))}
const source = \`(function (exports, require, module, __filename, __dirname) {\${readFileSync(filename, "utf8")}\\n})\`
let cachedData
${cached ? "try { cachedData = readFileSync(filename + \".cache\") } catch {}" : ""}
const script = new Script(source, { filename, cachedData })
if (process.env.WRITE === "1") process.once("exit", () => writeFileSync(filename + ".cache", script.createCachedData()))
const loaded = { exports: {} }
script.runInThisContext()(loaded.exports, require, loaded, filename, ${JSON.stringify(work)})
`
writeFileSync(join(work, "vm.cjs"), runner(false))
writeFileSync(join(work, "vm-cached.cjs"), runner(true))
writeFileSync(join(work, "eager-cached.cjs"), runner(true, "eager.js"))
for (const cached of ["vm-cached.cjs", "eager-cached.cjs"]) {
  spawnSync(process.execPath, [join(work, cached), "status", "--json", "--home", join(work, "none")], {
    env: { ...process.env, WRITE: "1" }
  })
}

const variants = [
  ["node -e 0", ["-e", "0"]],
  ["ESM bundle (D9)", [join(work, "esm.mjs")]],
  ["ESM, minified", [join(work, "esm-min.mjs")]],
  ["CJS minified via vm.Script", [join(work, "vm.cjs")]],
  ["… with V8 code cache", [join(work, "vm-cached.cjs")]],
  ["… serve's HTTP stack eager", [join(work, "eager-cached.cjs")]]
]
const quote = (parts) => parts.map((part) => `'${part}'`).join(" ")
const before = loadavg()[0]
const commands = variants.map(([, argv]) => `${process.execPath} ${quote(argv)} ${argv[0] === "-e" ? "" : quote(args)}`)
const ratios = startRatios(commands, rounds, runs)
rmSync(work, { recursive: true, force: true })

console.log(`buddy ${args[0]}: median over ${rounds} rounds of the ratio to node -e 0 in each round`)
console.log(`(${availableParallelism()} cores, load ${before.toFixed(1)} → ${loadavg()[0].toFixed(1)})`)
variants.forEach(([name], i) => console.log(`${name.padEnd(30)} ×${ratios[i].toFixed(2)}`))
