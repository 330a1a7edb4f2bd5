#!/usr/bin/env node
// The `buddy` executable (package.json "bin"; `npx buddy` in a clone). It runs the bundle
// dist/buddy.js, which the package ships. In the repository, where `npm run build` (and `npm pack`'s
// prepack, and the test run) makes it, a bundle that is missing or older than a file under src/ (an
// edit without a build) makes it run the TypeScript source through tsx instead, slower but never
// stale; the repository's decision record (D9) has the measurements behind this.
//
// The bundle is CommonJS, compiled here through `vm.Script` with V8's code cache when that cache was
// made from exactly these bytes (its first 32 bytes are the bundle's SHA-256): V8 then skips most of
// the compiling a start otherwise spends. In the repository's clone the cache is dist/buddy.js.cache,
// which scripts/build.js asks for with BUDDY_WRITE_CODE_CACHE=1 (D19 in its decision record). An
// installed package ships none (it would be for the Node that packed it): its first run writes one for
// this bundle and this Node into the user's cache directory, `$XDG_CACHE_HOME/buddy` or
// `~/.cache/buddy`, which must be ours and closed to others' writes, as must the file. A missing,
// foreign or rejected cache only costs the compiling back. BUDDY_CODE_CACHE=0 turns the user's cache
// off: neither read nor written, for a home that must stay untouched (a read-only home, systemd's
// ProtectHome=).
import { createHash } from "node:crypto"
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
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
  // The source is the repository's; an installed package ships the bundle alone: nothing is newer than it.
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

/** Ours, and nobody else may write it: what may hand V8 a cache to load. */
const ours = (path, isDirectory) => {
  const stats = lstatSync(path, { throwIfNoEntry: false })
  return stats !== undefined && stats.uid === process.getuid() && (stats.mode & 0o022) === 0 &&
    (isDirectory ? stats.isDirectory() : stats.isFile())
}

/** Where an installed package keeps the cache of this bundle for this Node, if it may. */
const userCache = (digest) => {
  const base = process.env.XDG_CACHE_HOME?.startsWith("/") ? process.env.XDG_CACHE_HOME : join(homedir(), ".cache")
  const directory = join(base, "buddy")
  const file = join(directory, `buddy-${digest.toString("hex").slice(0, 16)}-${process.version}-${process.arch}.cache`)
  return { directory, file }
}

const runBundle = () => {
  const filename = fileURLToPath(bundle)
  const bytes = readFileSync(filename)
  const digest = createHash("sha256").update(bytes).digest()
  const built = `${filename}.cache`
  const inClone = statSync(built, { throwIfNoEntry: false }) !== undefined || process.env.BUDDY_WRITE_CODE_CACHE === "1"
  const user = inClone || process.env.BUDDY_CODE_CACHE === "0" ? undefined : userCache(digest)
  let cachedData
  try {
    if (inClone) cachedData = cacheFor(built, digest)
    else if (ours(user.directory, true) && ours(user.file, false)) cachedData = cacheFor(user.file, digest)
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
      const partial = `${built}.${process.pid}.tmp`
      writeFileSync(partial, Buffer.concat([digest, script.createCachedData()]))
      renameSync(partial, built)
    })
  } else if (user !== undefined && cachedData === undefined) {
    // The first run of this bundle on this Node: the cache for the next ones, written whole or not at all.
    process.once("exit", () => {
      try {
        mkdirSync(user.directory, { recursive: true, mode: 0o700 })
        if (!ours(user.directory, true)) return
        const partial = `${user.file}.${process.pid}.tmp`
        writeFileSync(partial, Buffer.concat([digest, script.createCachedData()]), { mode: 0o600, flag: "wx" })
        renameSync(partial, user.file)
      } catch {
        // A cache that cannot be written costs the next start its compiling, nothing else.
      }
    })
  }
  const loaded = { exports: {} }
  script.runInThisContext()(loaded.exports, createRequire(filename), loaded, filename, dirname(filename))
}

// Not fresh only in the repository's clone, which has the source to run instead.
if (fresh()) {
  runBundle()
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import(new URL("src/cli/main.ts", root).href)
}
