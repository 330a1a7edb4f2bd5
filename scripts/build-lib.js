// Builds dist/lib/, the library a Launchpad imports (docs/decisions.md D20, D44). tsc compiles
// src/index.ts, src/client/index.ts and src/peers.ts (and what they import) to ESM with types; then
// this writes the two files package.json's "." entry names, each of which checks the effect beside
// the library (src/peers.ts) before it loads the library:
//   dist/lib/main.js   for `import`: the check, then `await import("./index.js")` and its names
//   dist/lib/main.cjs  for `require` (Node ≥ 20.19 requires ES modules): the check, then index.js
// A plain `export * from "./index.js"` would not do: Node resolves a module's whole import graph
// before it runs any of it, so against Effect 4 the check would never run. The names are the ones
// index.js exports, read here from the module itself. Run by `npm run build:lib` and by `prepare`.
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const lib = `${root}dist/lib/`
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" })
// The card (`@lazurio/buddy/element`) with the DOM's types, beside the client it is built on (D49).
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build-element.json"], { cwd: root, stdio: "inherit" })

const names = Object.keys(await import(pathToFileURL(`${lib}index.js`).href))
const header =
  "// Written by scripts/build-lib.js (docs/decisions.md D44): the effect beside the library is checked\n" +
  "// before any of the library is loaded.\n"
writeFileSync(
  `${lib}main.js`,
  `${header}import { assertEffect } from "./peers.js"\nassertEffect()\nconst buddy = await import("./index.js")\n` +
    `export const {\n${names.map((name) => `  ${name}`).join(",\n")}\n} = buddy\n`
)
writeFileSync(
  `${lib}main.cjs`,
  `${header}"use strict"\nrequire("./peers.js").assertEffect()\nmodule.exports = require("./index.js")\n`
)
