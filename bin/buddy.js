#!/usr/bin/env node
// The `buddy` executable (package.json "bin"; `npx buddy` in a clone). It runs the bundle
// dist/buddy.js, which `npm run build` makes and `npm ci` runs as `prepare`; if any file under src/
// is newer than the bundle (an edit without a build), it runs the TypeScript source through tsx
// instead, slower but never stale. docs/decisions.md D9 has the measurements behind this.
import { readdirSync, statSync } from "node:fs"

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

if (fresh()) {
  await import(bundle.href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import(new URL("src/cli/main.ts", root).href)
}
