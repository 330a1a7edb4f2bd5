// The CLI of a source tree bundled as dist/buddy.js is (esbuild, CommonJS), but not minified and with
// its dependencies left in our node_modules, for the benches that run `buddy serve` as a process of
// its own (bench:profile-serve, bench:versus-serve): V8's frames then name our functions and
// Effect's own files. Written into bench/, where those dependencies resolve; removed when the
// bench's process exits, however it exits.
import { build } from "esbuild"
import { rmSync } from "node:fs"
import { join } from "node:path"

/** Bundles `tree`'s src/cli/main.ts into `outfile`; resolves to `outfile`. */
export const bundleCli = async (tree: string, outfile: string): Promise<string> => {
  process.on("exit", () => rmSync(outfile, { force: true }))
  await build({
    entryPoints: [join(tree, "src/cli/main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    packages: "external",
    logLevel: "warning"
  })
  return outfile
}
