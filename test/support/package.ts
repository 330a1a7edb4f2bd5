// The package as a Launchpad gets it (D20, D26, D44): built from the current source into a copy of
// the repository's package files, packed with `npm pack`, and installed from the tarball into
// scratch projects with npm (their other packages from the npm registry or this machine's npm
// cache), where tsc and node then run as a Launchpad's would.
import { execFile } from "node:child_process"
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"

export const run = promisify(execFile)
export const root = path.resolve(import.meta.dirname, "../..")
export const tsc = path.join(root, "node_modules/typescript/bin/tsc")

/** Runs `file` in `cwd`, npm's update notice off. */
export const inDir = (cwd: string) => (file: string, args: ReadonlyArray<string>) =>
  run(file, [...args], { cwd, env: { ...process.env, npm_config_update_notifier: "false" } })

export type Packed = Readonly<{
  /** The copy of the package it was packed from. */
  readonly dir: string
  readonly tarball: string
  /** What npm pack reports: the bytes of every file it ships. */
  readonly unpackedSize: number
}>

/**
 * Packs the package as the repository holds it, with `npm pack` as a maintainer runs it: its `prepack`
 * builds dist/ (the CLI bundle, the simulator, dist/lib) from the current source (D55), in its own copy
 * under `temp`, so the repository's dist/ is left alone for the tests using it meanwhile.
 */
export const packBuddy = async (temp: string): Promise<Packed> => {
  const dir = path.join(temp, "pkg")
  mkdirSync(dir)
  const entries = [
    "package.json",
    "README.md",
    "CHANGELOG.md",
    "tsconfig.json",
    "tsconfig.build.json",
    "tsconfig.element.json",
    "tsconfig.build-element.json",
    "tsconfig.build-testing.json",
    "bin",
    "src",
    // @lazurio/buddy/testing bundles the fake gateway from here (scripts/build-lib.js, D53).
    "fixtures",
    "scripts"
  ]
  for (const entry of [...entries, "docs", "examples", "systemd"]) {
    cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true })
  }
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"))
  // --silent keeps the prepack's banner off stdout, where --json writes the report.
  const packed = await inDir(dir)("npm", ["pack", "--silent", "--json", "--pack-destination", temp])
  const [{ filename, unpackedSize }] = JSON.parse(packed.stdout) as [
    { readonly filename: string; readonly unpackedSize: number }
  ]
  return { dir, tarball: path.join(temp, filename), unpackedSize }
}

/** A scratch Launchpad project `temp/name` (an ES module package) where `npm install` took `specs`. */
export const scratchProject = async (
  temp: string,
  name: string,
  specs: ReadonlyArray<string>,
  flags: ReadonlyArray<string> = []
) => {
  const dir = emptyProject(temp, name)
  await installIn(dir, specs, flags)
  return dir
}

/** A scratch Launchpad project `temp/name` (an ES module package) with nothing installed yet. */
export const emptyProject = (temp: string, name: string) => {
  const dir = path.join(temp, name)
  mkdirSync(dir)
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "launchpad", private: true, type: "module" }))
  return dir
}

/** `npm install` of `specs` in the project `dir`. */
export const installIn = (dir: string, specs: ReadonlyArray<string>, flags: ReadonlyArray<string> = []) =>
  inDir(dir)("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...flags, ...specs])

/** tsc, strict as a Launchpad's own, on `files` in the project `dir`: "clean", or what it said. */
export const typeCheck = (
  dir: string,
  files: ReadonlyArray<string>,
  options: Readonly<Record<string, unknown>> = { module: "NodeNext", moduleResolution: "NodeNext" },
  config = "tsconfig.json"
) => {
  writeFileSync(
    path.join(dir, config),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2023"],
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        ...options
      },
      files
    })
  )
  return inDir(dir)(process.execPath, [tsc, "-p", config]).then(
    () => "clean",
    (error: { readonly stdout: string }) => error.stdout
  )
}

/** Every installed copy of a package in a project's tree, by the package.json each has. */
export const copiesOf = (dir: string, name: string) =>
  readdirSync(path.join(dir, "node_modules"), { recursive: true, encoding: "utf8" })
    .filter((file) => file === `${name}/package.json` || file.endsWith(`/node_modules/${name}/package.json`))

/** Removes a test file's scratch directory (`""`: none was made). */
export const removeScratch = (temp: string) => {
  if (temp !== "") rmSync(temp, { recursive: true, force: true })
}

/** How long `removeScratch` may take: the projects' trees are large, and the machine may be busy. */
export const removeTimeout = 120_000
