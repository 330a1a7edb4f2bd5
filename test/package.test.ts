// buddy as a package a Launchpad installs (D20): built from the current source into a copy of
// the package, packed with `npm pack`, installed from the tarball into a scratch project (its
// dependencies from this machine's npm cache), then imported from plain Node and type-checked by
// tsc in that project. The public surface is exactly the one listed below; internals stay inside;
// `buddy/client` bundles for a browser without a Node import.
import { build } from "esbuild"
import { execFile } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, "..")
const tsc = path.join(root, "node_modules/typescript/bin/tsc")

/** What `import("buddy")` gives, name by name: the deliberate surface of src/index.ts. */
const publicSurface = [
  "BlockedAnswer",
  "Blocked",
  "BlockedReason",
  "BuddyAnswer",
  "BuddyConfig",
  "BuddyHttpApp",
  "BuddyLive",
  "BuddyServicesLive",
  "BuddyState",
  "CancelAnswer",
  "ConfigFile",
  "DeniedAnswer",
  "EmptyBody",
  "Environment",
  "ErrorAnswer",
  "GatewayReason",
  "Handle",
  "HandleBody",
  "Journal",
  "JournalLine",
  "JournalLive",
  "JournalOperation",
  "JournalOutcome",
  "JournalSilent",
  "Locale",
  "OpenApiAnswer",
  "Origin",
  "PlainError",
  "PollAnswer",
  "SignIn",
  "SignInState",
  "SignOutAnswer",
  "StartAnswer",
  "Status",
  "Unavailable",
  "UnavailableAnswer",
  "apiRoot",
  "buddyVersion",
  "configFrom",
  "defaultDeadlines",
  "defaultLimits",
  "makeBuddyWebHandler",
  "makeJournal",
  "openApiDocument",
  "operations",
  "pathRefusals",
  "refusals",
  "refusalsOf"
].toSorted()

let temp = ""
let app = ""

const inApp = (file: string, args: ReadonlyArray<string>) =>
  run(file, [...args], { cwd: app, env: { ...process.env, npm_config_update_notifier: "false" } })

beforeAll(async () => {
  temp = mkdtempSync(path.join(os.tmpdir(), "buddy-package-"))
  // The package as the repository holds it, built from the current source into its own copy
  // (the repository's dist/lib is left alone: other tests import it meanwhile).
  const pkg = path.join(temp, "pkg")
  mkdirSync(path.join(pkg, "dist"), { recursive: true })
  for (const entry of ["package.json", "README.md", "tsconfig.json", "tsconfig.build.json", "bin", "src"]) {
    cpSync(path.join(root, entry), path.join(pkg, entry), { recursive: true })
  }
  cpSync(path.join(root, "dist/buddy.js"), path.join(pkg, "dist/buddy.js"))
  symlinkSync(path.join(root, "node_modules"), path.join(pkg, "node_modules"))
  await run(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: pkg })
  const packed = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", temp], { cwd: pkg })
  const [{ filename }] = JSON.parse(packed.stdout) as [{ readonly filename: string }]

  app = path.join(temp, "app")
  mkdirSync(app)
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "launchpad", private: true, type: "module" }))
  await inApp("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    path.join(temp, filename),
    "@types/node@20"
  ])
}, 240_000)

afterAll(() => {
  if (temp !== "") rmSync(temp, { recursive: true, force: true })
})

describe("the packed package", () => {
  it("ships the built library, its types, the executable and its bundle; no source, no tests", () => {
    const installed = path.join(app, "node_modules/buddy")
    const files = readdirSync(installed, { recursive: true, encoding: "utf8" })
    for (const file of ["dist/lib/index.js", "dist/lib/index.d.ts", "dist/lib/client/index.js"]) {
      expect(files).toContain(file)
    }
    for (const file of ["dist/lib/client/index.d.ts", "dist/buddy.js", "bin/buddy.js", "package.json"]) {
      expect(files).toContain(file)
    }
    expect(files.filter((file) => /^(src|test|fixtures|examples|scripts|bench)\//.test(file))).toStrictEqual([])
  })

  it("installs an executable that runs its bundle (no source shipped, no tsx needed)", async () => {
    const { stdout } = await run(process.execPath, [path.join(app, "node_modules/.bin/buddy"), "--version"], {
      cwd: app
    })
    const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }
    expect(stdout.trim()).toContain(version)
  })

  it("imports from plain Node: exactly the public surface, and the app answers a web Request", async () => {
    const script = `
      const buddy = await import("buddy")
      const client = await import("buddy/client")
      const { dispose, handler } = buddy.makeBuddyWebHandler(buddy.BuddyConfig.make({ environment: "local" }))
      const answer = await handler(new Request("http://127.0.0.1/api/buddy"))
      const body = await answer.text()
      await dispose()
      let internal = "exported"
      await import("buddy/dist/lib/services/GatewaySocket.js").catch((error) => (internal = error.code))
      console.log(JSON.stringify({
        names: Object.keys(buddy).sort(),
        client: Object.keys(client).sort(),
        app: buddy.BuddyHttpApp !== undefined && typeof buddy.BuddyLive === "function",
        document: buddy.openApiDocument().openapi,
        answer: [answer.status, body],
        internal
      }))
    `
    const { stdout } = await inApp(process.execPath, ["--input-type=module", "-e", script])
    const seen = JSON.parse(stdout) as Record<string, unknown>
    expect(seen["names"]).toStrictEqual(publicSurface)
    expect(seen["client"]).toStrictEqual(["defaultPollInterval", "makeBuddyClient"])
    expect(seen["app"]).toBe(true)
    expect(seen["document"]).toBe("3.1.0")
    expect(seen["answer"]).toStrictEqual([404, "{\"error\":\"buddy-absent\"}"])
    expect(seen["internal"]).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED")
  }, 30_000)

  it("type-checks a Launchpad's use of it with tsc, and its types are not `any`", async () => {
    writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"]
        },
        files: ["launchpad.ts"]
      })
    )
    writeFileSync(
      path.join(app, "launchpad.ts"),
      `import { HttpRouter } from "@effect/platform"
import {
  BlockedReason,
  BuddyAnswer,
  BuddyConfig,
  type BuddyConfigShape,
  BuddyHttpApp,
  BuddyLive,
  makeBuddyWebHandler,
  openApiDocument,
  refusals
} from "buddy"
import { makeBuddyClient, type PollResult, type StatusResult } from "buddy/client"
import { Schema } from "effect"

const config: BuddyConfigShape = BuddyConfig.make({
  launchpadOrigin: "https://launchpad.example",
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal",
  locale: "cs"
})
export const router = HttpRouter.empty.pipe(HttpRouter.mountApp("/api/buddy", BuddyHttpApp))
export const layer = BuddyLive(config)
export const { dispose, handler } = makeBuddyWebHandler(config)
export const document: unknown = openApiDocument()
export const status: number = refusals["sign-in-unknown"].status
export const reasons: ReadonlyArray<BlockedReason> = BlockedReason.literals
export const decoded = Schema.decodeUnknownEither(BuddyAnswer)({})

const client = makeBuddyClient({ pollInterval: 1000 })
export const read = async (): Promise<string> => {
  const answer: StatusResult = await client.status()
  switch (answer.kind) {
    case "buddy":
      return answer.state
    case "error":
      return answer.error
    case "network-failed":
      return "offline"
    default:
      return answer.kind
  }
}
export const onChange = (result: PollResult) => result.kind
// @ts-expect-error the results are a closed union: no such kind
export const wrong: StatusResult = { kind: "nope" }
// @ts-expect-error a config needs an environment the contract names
BuddyConfig.make({ environment: "workstation" })
`
    )
    const checked = await inApp(process.execPath, [tsc, "-p", "tsconfig.json"]).then(
      () => "clean",
      (error: { readonly stdout: string }) => error.stdout
    )
    expect(checked).toBe("clean")
  }, 60_000)

  it("buddy/client bundles for a browser with no Node import", async () => {
    writeFileSync(path.join(app, "page.js"), "export { makeBuddyClient } from \"buddy/client\"\n")
    const bundled = await build({
      absWorkingDir: app,
      entryPoints: ["page.js"],
      bundle: true,
      minify: true,
      format: "esm",
      platform: "browser",
      write: false,
      logLevel: "silent"
    })
    const code = bundled.outputFiles[0]?.text ?? ""
    expect(code.length).toBeGreaterThan(0)
    expect(code).not.toMatch(/["']node:/)
  }, 30_000)
})
