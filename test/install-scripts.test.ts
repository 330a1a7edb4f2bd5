// A quiet, reproducible install (issue 11 item 9): every dependency with an install script is
// approved or denied in package.json's allowScripts, so `npm ci` has nothing to warn about. All three
// are denied: esbuild's postinstall only checks (and on some platforms swaps in) the binary its
// @esbuild/<platform> package already ships; @parcel/watcher and msgpackr-extract build optional
// native speed-ups that nothing of ours loads (vitest's watcher, @effect/cluster's msgpack).
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const root = fileURLToPath(new URL("../", import.meta.url))

it("leaves no dependency's install script unreviewed, and denies the three there are", () => {
  const listed = JSON.parse(
    execFileSync("npm", ["install-scripts", "ls", "--json"], { cwd: root, encoding: "utf8" })
  ) as { readonly allowScripts: ReadonlyArray<unknown> }
  expect(listed.allowScripts).toStrictEqual([])
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    readonly allowScripts?: Record<string, boolean>
  }
  expect(manifest.allowScripts).toStrictEqual({ "@parcel/watcher": false, esbuild: false, "msgpackr-extract": false })
})

// And the package's own (D55): npm runs these when it installs a package, the tarball included; the
// build is prepack's, which only npm pack and npm publish run (test/package-toolchain.test.ts
// installs the tarball and reads npm's output).
it("has no install-time script of its own: the build is prepack's", () => {
  const { scripts } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    readonly scripts: Record<string, string>
  }
  const installTime = ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"]
  expect(Object.keys(scripts).filter((name) => installTime.includes(name))).toStrictEqual([])
  expect(scripts["prepack"]).toBe("node scripts/build.js && node scripts/build-lib.js")
})
