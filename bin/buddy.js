#!/usr/bin/env node
// The `buddy` executable (package.json "bin"; `npx buddy` in a clone). It runs the bundle
// dist/buddy.js, which `npm run build` makes and `npm ci` runs as `prepare`; if any file under src/
// is newer than the bundle (an edit without a build), it runs the TypeScript source through tsx
// instead, slower but never stale. docs/decisions.md D9 has the measurements behind this.
//
// The bundle is CommonJS, compiled here through `vm.Script` with V8's code cache from
// dist/buddy.js.cache when that cache was made from exactly these bytes (its first 32 bytes are the
// bundle's SHA-256): V8 then skips most of the compiling a start otherwise spends (D19). A missing,
// foreign or rejected cache (another Node) only costs that time back; it is never written here,
// except for scripts/build.js, which asks for it with BUDDY_WRITE_CODE_CACHE=1.
import { createHash } from "node:crypto"
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { constants as vmConstants, Script } from "node:vm"

const root = new URL("../", import.meta.url)
const bundle = new URL("dist/buddy.js", root)

const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs

/** Whether the bundle exists and no source file is newer than it. */
const fresh = () => {
  const built = mtime(bundle)
  if (built === undefined) return false
  const sources = new URL("src/", root)
  // An installed package ships the bundle without its source: nothing can be newer than it.
  if (mtime(sources) === undefined) return true
  for (const entry of readdirSync(sources, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs > built) return false
  }
  return true
}

/**
 * The cache's data if it was made from the bundle whose SHA-256 is `digest`. V8 itself checks only
 * its own version, its flags and the source's length: a same-length edit would run stale code.
 */
const cacheFor = (file, digest) => {
  const cache = readFileSync(file)
  return cache.subarray(0, 32).equals(digest) ? cache.subarray(32) : undefined
}

const runBundle = () => {
  const filename = fileURLToPath(bundle)
  const bytes = readFileSync(filename)
  const digest = createHash("sha256").update(bytes).digest()
  let cachedData
  try {
    cachedData = cacheFor(`${filename}.cache`, digest)
  } catch {
    // No cache: compile as it loads.
  }
  // CommonJS's own wrapper; the cache is for exactly this text, wrapper included.
  const source = `(function (exports, require, module, __filename, __dirname) {${bytes.toString("utf8")}\n})`
  // A dynamic import() left in the bundle (of a module it does not hold) loads as it would from a file.
  const importModuleDynamically = vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  const script = new Script(source, { filename, cachedData, importModuleDynamically })
  if (process.env.BUDDY_WRITE_CODE_CACHE === "1") {
    // After the run, so the cache holds every function the run compiled, not only the top level.
    process.once("exit", () => {
      const partial = `${filename}.cache.${process.pid}.tmp`
      writeFileSync(partial, Buffer.concat([digest, script.createCachedData()]))
      renameSync(partial, `${filename}.cache`)
    })
  }
  const loaded = { exports: {} }
  script.runInThisContext()(loaded.exports, createRequire(filename), loaded, filename, dirname(filename))
}

if (fresh()) {
  runBundle()
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import(new URL("src/cli/main.ts", root).href)
}
