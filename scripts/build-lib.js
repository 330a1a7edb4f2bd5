// Builds dist/lib/, the library a Launchpad imports (docs/decisions.md D20, D44). tsc compiles
// src/index.ts, src/client/index.ts and src/peers.ts (and what they import) to ESM with types; then
// this writes the two files package.json's "." entry names, each of which checks the effect beside
// the library (src/peers.ts) before it loads the library:
//   dist/lib/main.js   for `import`: the check, then `await import("./index.js")` and its names
//   dist/lib/main.cjs  for `require` (Node ≥ 20.19 requires ES modules): the check, then index.js
// A plain `export * from "./index.js"` would not do: Node resolves a module's whole import graph
// before it runs any of it, so against Effect 4 the check would never run. The names are the ones
// index.js exports, read here from the module itself. Then `@lazurio/buddy/testing` (D53), the same way
// behind the same check: see `buildTesting`. Run by `npm run build:lib` and by `prepack` (so by
// `npm pack` and `npm publish`; never at an install, D55).
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const lib = `${root}dist/lib/`
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" })
// The card (`@lazurio/buddy/element`) with the DOM's types, beside the client it is built on (D49).
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build-element.json"], { cwd: root, stdio: "inherit" })

const header =
  "// Written by the repository's scripts/build-lib.js (decision D44): the effect beside the library is checked\n" +
  "// before any of the library is loaded.\n"
/** An ES module entry that checks the effect beside it (`peers`), then loads `module` and exports `names`. */
const checkedEntry = (peers, module, names) =>
  `${header}import { assertEffect } from "${peers}"\nassertEffect()\nconst loaded = await import("${module}")\n` +
  `export const {\n${names.map((name) => `  ${name}`).join(",\n")}\n} = loaded\n`

const names = Object.keys(await import(pathToFileURL(`${lib}index.js`).href))
writeFileSync(`${lib}main.js`, checkedEntry("./peers.js", "./index.js", names))
/** A CommonJS entry that checks the effect beside it (`peers`), then requires `module`, which has no top-level await. */
const checkedRequire = (peers, module) =>
  `${header}"use strict"\nrequire("${peers}").assertEffect()\nmodule.exports = require("${module}")\n`
writeFileSync(`${lib}main.cjs`, checkedRequire("./peers.js", "./index.js"))

/**
 * dist/lib/testing: src/testing/ imports the fake from fixtures/, outside tsc's rootDir, so esbuild
 * bundles it into kit.js, the fake's recorded answers beside it (fixtures/hermes/templates.ts reads
 * them next to itself). effect and @effect/* are the peers; buddy's own modules (src/ outside testing)
 * are imported from where tsc put them in dist/lib, so the kit and the main entry share one copy of
 * each Tag and error class. index.js checks the peers first, as main.js does. The declarations come
 * from tsc over the repository's root, src/testing's and the fake's kept in trees that mirror their
 * sources (dist/lib/testing, dist/fixtures), so their relative imports meet dist/lib's declarations.
 */
const buildTesting = async () => {
  const src = `${root}src/`
  const out = `${lib}testing/`
  rmSync(out, { recursive: true, force: true })
  rmSync(`${root}dist/fixtures`, { recursive: true, force: true })
  const ownModules = {
    name: "buddy-own-modules",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, ({ importer, path }) => {
        const target = resolve(dirname(importer), path)
        if (!target.startsWith(src) || target.startsWith(`${src}testing/`)) return undefined
        const built = relative(out, join(lib, relative(src, target)))
        return { path: built.startsWith(".") ? built : `./${built}`, external: true }
      })
    }
  }
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: ["src/testing/index.ts"],
    outfile: `${out}kit.js`,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["effect", "effect/*", "@effect/*"],
    plugins: [ownModules],
    metafile: true,
    logLevel: "warning"
  })
  copyFileSync(`${root}fixtures/hermes/recorded.json`, `${out}recorded.json`)
  const exported = Object.values(metafile.outputs).find((output) => output.entryPoint === "src/testing/index.ts")
  writeFileSync(`${out}index.js`, checkedEntry("../peers.js", "./kit.js", exported.exports))
  // require() cannot load index.js (its top-level await); kit.js has none, so index.cjs requires it
  // behind the same check (D53.4).
  writeFileSync(`${out}index.cjs`, checkedRequire("../peers.js", "./kit.js"))

  const types = mkdtempSync(join(tmpdir(), "buddy-testing-types-"))
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build-testing.json", "--outDir", types], {
    cwd: root,
    stdio: "inherit"
  })
  cpSync(join(types, "src/testing"), out, { recursive: true })
  // The one fixture whose types the kit names (its controls, faults, record); the rest is bundled code.
  mkdirSync(`${root}dist/fixtures`)
  copyFileSync(join(types, "fixtures/fake-gateway.d.ts"), `${root}dist/fixtures/fake-gateway.d.ts`)
  rmSync(types, { recursive: true, force: true })
}
await buildTesting()
