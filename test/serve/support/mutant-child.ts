// A piece of src/serve run in a child process, for the little a test cannot do in StrykerJS's worker
// thread: set the umask, or run as another uid. The child runs the source as it is here, bundled once
// per worker (in StrykerJS's sandbox that is the mutated source, every mutant behind its switch), with
// the mutant that is active in this process: the instrumented code reads `__STRYKER_ACTIVE_MUTANT__`
// from its environment. Outside StrykerJS no mutant is active and the child runs the source as is.
// The test that runs a child also runs the same code in this process first, which is what StrykerJS's
// per-test coverage sees.
import { build } from "esbuild"
import { execFile } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

interface Stryker {
  readonly __stryker__?: { readonly activeMutant?: string }
}

const bundles = new Map<string, Promise<string>>()

/** The script bundled with the source it imports, readable by any uid; once per worker and script. */
const bundled = (script: string): Promise<string> => {
  const known = bundles.get(script)
  if (known !== undefined) return known
  const made = (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-serve-child-"))
    await fs.chmod(dir, 0o755)
    const outfile = path.join(dir, "child.mjs")
    await build({
      entryPoints: [script],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning"
    })
    await fs.chmod(outfile, 0o644)
    return outfile
  })()
  bundles.set(script, made)
  return made
}

/** Runs `script` (a path beside this file) with `args`, as `uid`/`gid` if given; resolves with its stdout. */
export const runChild = async (
  script: string,
  args: ReadonlyArray<string>,
  as: { readonly uid?: number; readonly gid?: number } = {}
): Promise<string> => {
  const bundle = await bundled(fileURLToPath(new URL(script, import.meta.url)))
  const active = (globalThis as Stryker).__stryker__?.activeMutant
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [bundle, ...args],
      {
        ...as,
        env: { ...process.env, ...(active === undefined ? {} : { __STRYKER_ACTIVE_MUTANT__: active }) },
        timeout: 10_000
      },
      (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
    )
  )
}
