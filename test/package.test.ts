// buddy as a package a Launchpad installs (D20, D26): built from the current source into a copy of
// the package, packed with `npm pack`, installed from the tarball into a scratch project with the
// peers the library imports (from the npm registry or this machine's npm cache; test/support/package.ts),
// then imported from plain Node and type-checked by tsc in that project. The public surface is
// exactly the one listed below; internals stay inside; `@lazurio/buddy/client` bundles for a browser
// without a Node import. A project with @effect/platform-node compiles the examples the tarball ships
// and a Launchpad's module exporting buddy's layers with `declaration: true` (D43), then walks every
// host they make, each under a prefix, on the simulator the tarball ships. A last project installs it
// next to the oldest `effect`, `@effect/platform` and `@effect/platform-node` its peer ranges name:
// one copy of each of the first two in the tree, and the same build and walk there. A Launchpad's own
// test project runs docs/testing.md's examples with vitest on `@lazurio/buddy/testing` (D53).
import { build } from "esbuild"
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync
} from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { measureClient } from "../bench/client-size.js"
import { generatedClient, mergedDocument, prefix, published, validated } from "./support/openapi-launchpad.js"
import {
  copiesOf,
  inDir,
  packBuddy,
  removeScratch,
  removeTimeout,
  root,
  run,
  scratchProject,
  typeCheck
} from "./support/package.js"
import { danglingPointers } from "./support/shipped-docs.js"

/** What `import("@lazurio/buddy")` gives, name by name: the deliberate surface of src/index.ts. */
const publicSurface = [
  "BlockedAnswer",
  "Blocked",
  "BlockedReason",
  "BuddyAnswer",
  "BuddyConfig",
  "BuddyHttpApp",
  "BuddyLive",
  "BuddyLiveConfig",
  "BuddyRoutes",
  "BuddyServicesLive",
  "BuddyState",
  "CancelAnswer",
  "ConfigFile",
  "ConfigInvalid",
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
  "buddyHttpAppAt",
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
  "refusalsOf",
  "withBuddyOperations"
].toSorted()

let temp = ""
let app = ""
let tarball = ""

const inApp = (file: string, args: ReadonlyArray<string>) => inDir(app)(file, args)

/** A scratch Launchpad project with the tarball and `extra` installed. */
const launchpad = (name: string, extra: ReadonlyArray<string>) =>
  scratchProject(temp, name, [tarball, "@types/node@20", ...extra])

const { peerDependencies } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  readonly peerDependencies: Record<string, string>
}
/** Each peer named with its range from package.json: npm picks the newest version it allows. */
const inRange = (names: ReadonlyArray<string>) => names.map((name) => `${name}@${peerDependencies[name]}`)

/**
 * tsc as a Launchpad that publishes its own types builds: `declaration: true`, emitting `files` into
 * `out/` of the project `dir` (D43: a layer whose type names a tag the package does not export is
 * TS2742 here). "clean", or what it said.
 */
const emit = (dir: string, files: ReadonlyArray<string>) =>
  typeCheck(
    dir,
    files,
    {
      lib: ["ES2023", "DOM"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      declaration: true,
      noEmit: false,
      outDir: "out"
    },
    "tsconfig.emit.json"
  )

/** The examples the tarball ships, and a Launchpad exporting each of buddy's layers and hosts, copied into `dir`. */
const launchpadSources = (dir: string) => {
  const examples = readdirSync(path.join(dir, "node_modules/@lazurio/buddy/examples")).filter((file) =>
    file.endsWith(".ts")
  )
  for (const file of examples) {
    cpSync(path.join(dir, "node_modules/@lazurio/buddy/examples", file), path.join(dir, file))
  }
  writeFileSync(path.join(dir, "layers.ts"), layersSource)
  return [...examples, "layers.ts"]
}

/** A Launchpad's module exporting what it builds of buddy, every type inferred. */
const layersSource = `import { Console, Layer } from "effect"
import {
  BuddyConfig,
  buddyHttpAppAt,
  BuddyLive,
  BuddyLiveConfig,
  BuddyRoutes,
  BuddyServicesLive,
  Journal,
  JournalSilent,
  makeBuddyWebHandler,
  withBuddyOperations
} from "@lazurio/buddy"

const fields = {
  launchpadOrigin: "https://launchpad.example",
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal"
} as const
export const BuddyLayer = BuddyLive(fields)
export const QuietLayer = BuddyLive(fields, JournalSilent)
export const EnvLayer = BuddyLiveConfig()
export const Pieces = BuddyServicesLive.pipe(
  Layer.provideMerge(Journal.layer((line) => Console.log(line))),
  Layer.provideMerge(BuddyConfig.layerConfig())
)
export const Routes = BuddyRoutes({ prefix: "/launchpad/buddy" })
export const App = buddyHttpAppAt("/launchpad/buddy")
export const web = makeBuddyWebHandler(BuddyLayer, { prefix: "/launchpad/buddy" })
export const document = withBuddyOperations("/launchpad/buddy")({})
export const merge = withBuddyOperations("/launchpad/buddy")
`

/** Every host of the examples, compiled in `dir`, walked against the simulator: what each answered. */
const walkHosts = async (dir: string) => {
  cpSync(path.join(root, "test/support/walk-hosts.mjs"), path.join(dir, "walk-hosts.mjs"))
  const home = path.join(dir, "hermes")
  const { stdout } = await inDir(dir)(process.execPath, ["walk-hosts.mjs", home])
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, ReadonlyArray<string>>
}

/** What each host answers under `root`: the same C6, wherever it is. */
const walked = (root: string) => [
  "200 {\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}",
  "200 ",
  "405 ",
  "200 {\"kind\":\"sign-in\",\"state\":\"pending\",\"handle\":\"H\",\"code\":\"C\",\"page\":\"https://auth.openai.com/codex/device\"}",
  "200 {\"kind\":\"sign-in\",\"state\":\"pending\",\"code\":\"C\",\"page\":\"https://auth.openai.com/codex/device\"}",
  "200 {\"kind\":\"sign-in\",\"state\":\"cancelled\"}",
  "200 {\"kind\":\"sign-out\",\"state\":\"signed-out\"}",
  `200 ${
    ["", "/openapi.json", "/sign-in/start", "/sign-in/poll", "/sign-in/cancel", "/sign-out"].map((path) =>
      `${root}${path}`
    ).join(" ")
  }`
]

/** Every host walked: the same answers under its prefix; outside it, the Launchpad's or nobody's. */
const expectWalked = (results: Record<string, ReadonlyArray<string>>) => {
  const prefix = "/launchpad/buddy"
  expect(results["mountApp"]).toStrictEqual([...walked(prefix), "404 "])
  expect(results["layerRouter"]).toStrictEqual([...walked(prefix), "404 "])
  expect(results["nodeHttp"]).toStrictEqual([...walked(prefix), "200 the Launchpad"])
  expect(results["webHandler"]).toStrictEqual([...walked(prefix), "404 {\"error\":\"not-found\"}"])
  expect(results["routerAll"]).toStrictEqual([...walked("/api/buddy"), "404 "])
  expect(results["document"]).toStrictEqual([
    "buddy.cancelSignIn",
    "buddy.openApi",
    "buddy.pollSignIn",
    "buddy.signOut",
    "buddy.startSignIn",
    "buddy.status",
    "pages.home"
  ])
}

beforeAll(async () => {
  temp = mkdtempSync(path.join(os.tmpdir(), "buddy-package-"))
  ;({ tarball } = await packBuddy(temp))
  // The peers the library imports, as npm chooses them in their ranges (the newest they allow);
  // they are optional peers (D44), so a Launchpad names them, as the README's install line does.
  app = await launchpad("app", inRange(["effect", "@effect/platform"]))
}, 240_000)

afterAll(() => removeScratch(temp), removeTimeout)

describe("the packed package", () => {
  it("ships the built library, its types, the executables, the guides, examples and systemd units; no source, no tests, no code cache", () => {
    const installed = path.join(app, "node_modules/@lazurio/buddy")
    const files = readdirSync(installed, { recursive: true, encoding: "utf8" })
    for (const file of ["dist/lib/index.js", "dist/lib/index.d.ts", "dist/lib/client/index.js"]) {
      expect(files).toContain(file)
    }
    for (
      const file of ["dist/lib/client/index.d.ts", "dist/buddy.js", "bin/buddy.js", "package.json", "CHANGELOG.md"]
    ) {
      expect(files).toContain(file)
    }
    for (const file of ["bin/buddy-simulator.js", "dist/simulator.js", "dist/recorded.json"]) {
      expect(files).toContain(file)
    }
    // @lazurio/buddy/testing (D53): the fake bundled with its recorded answers, its types beside buddy's.
    for (
      const file of [
        "dist/lib/testing/index.js",
        "dist/lib/testing/kit.js",
        "dist/lib/testing/recorded.json",
        "dist/lib/testing/index.d.ts",
        "dist/fixtures/fake-gateway.d.ts"
      ]
    ) expect(files).toContain(file)
    // The fake's code is in the bundle alone; dist/fixtures holds the types the kit names.
    expect(files.filter((file) => file.startsWith("dist/fixtures/") && file.endsWith(".js"))).toStrictEqual([])
    // The systemd units the operator guide installs from the package (issue 24).
    for (
      const file of [
        "systemd/buddy.service",
        "systemd/system/buddy.service",
        "systemd/system/buddy.socket",
        "systemd/system/buddy.service.d/socket.conf"
      ]
    ) expect(files).toContain(file)
    // Every guide and example the README points to ships with it.
    const readme = readFileSync(path.join(installed, "README.md"), "utf8")
    const named = [
      ...new Set([...readme.matchAll(/\b((?:docs|examples)\/[\w.-]+\.(?:md|ts))\b/g)].map((match) => match[1]!))
    ]
    expect(named).toEqual(
      expect.arrayContaining([
        "docs/http-api.md",
        "docs/operator-guide.md",
        "docs/testing.md",
        "examples/mount-effect.ts"
      ])
    )
    // and nothing in any shipped text leads outside what was installed (D55; test/docs.test.ts scans the same way).
    expect(
      danglingPointers(files, (file) => readFileSync(path.join(installed, file), "utf8"))
        .map(({ file, pointer }) => `${file}: ${pointer}`)
    ).toStrictEqual([])
    expect(files.filter((file) => /^(src|test|fixtures|scripts|bench)\//.test(file))).toStrictEqual([])
    expect(files.filter((file) => file.endsWith(".cache"))).toStrictEqual([])
  })

  it("installs only what the library imports: no CLI packages, no native builds (the CLI is one bundle)", () => {
    const installed = JSON.parse(readFileSync(path.join(app, "node_modules/@lazurio/buddy/package.json"), "utf8")) as {
      readonly dependencies?: Record<string, string>
      readonly peerDependencies?: Record<string, string>
    }
    expect(installed.dependencies).toBeUndefined()
    // Peers, all optional (D44): the library's two, and the examples' @effect/platform-node, not installed here.
    expect(Object.keys(installed.peerDependencies ?? {}).toSorted()).toStrictEqual([
      "@effect/platform",
      "@effect/platform-node",
      "effect"
    ])
    // (@effect/platform's own dependencies, msgpackr among them, are the peer's, not ours.)
    for (const absent of ["@effect/cli", "@effect/platform-node", "@parcel/watcher"]) {
      expect(copiesOf(app, absent)).toStrictEqual([])
    }
    expect(copiesOf(app, "effect")).toHaveLength(1)
  })

  it("writes its code cache on the first run, for this Node, into the user's own cache directory only", async () => {
    const buddy = path.join(app, "node_modules/.bin/buddy")
    const cacheHome = path.join(temp, "cache")
    const env = { ...process.env, XDG_CACHE_HOME: cacheHome }
    await run(process.execPath, [buddy, "--version"], { cwd: app, env })
    const written = readdirSync(path.join(cacheHome, "buddy"))
    expect(written).toHaveLength(1)
    expect(written[0]).toMatch(
      new RegExp(`^buddy-[0-9a-f]{16}-${process.version.replaceAll(".", "\\.")}-${process.arch}\\.cache$`)
    )
    const file = path.join(cacheHome, "buddy", written[0]!)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(path.join(cacheHome, "buddy")).mode & 0o777).toBe(0o700)
    const first = statSync(file).mtimeMs
    await run(process.execPath, [buddy, "--version"], { cwd: app, env })
    expect(statSync(file).mtimeMs).toBe(first) // used, not written again

    // A cache directory others may write is neither read nor written.
    const open = path.join(temp, "open-cache")
    mkdirSync(path.join(open, "buddy"), { recursive: true })
    chmodSync(path.join(open, "buddy"), 0o777)
    const { stdout } = await run(process.execPath, [buddy, "--version"], {
      cwd: app,
      env: { ...process.env, XDG_CACHE_HOME: open }
    })
    expect(stdout.trim()).not.toBe("")
    expect(readdirSync(path.join(open, "buddy"))).toStrictEqual([])

    // BUDDY_CODE_CACHE=0: nothing read, nothing written, not even the directory (the operator guide says so).
    const off = path.join(temp, "off-cache")
    const quiet = await run(process.execPath, [buddy, "--version"], {
      cwd: app,
      env: { ...process.env, XDG_CACHE_HOME: off, BUDDY_CODE_CACHE: "0" }
    })
    expect(quiet.stdout.trim()).not.toBe("")
    expect(existsSync(off)).toBe(false)
  })

  it("installs the simulator a package user tries buddy with: --help says how", async () => {
    const { stdout } = await inApp(process.execPath, [path.join(app, "node_modules/.bin/buddy-simulator"), "--help"])
    expect(stdout).toContain("usage: buddy-simulator --home DIR")
    expect(stdout).toContain("HERMES_HOME=DIR buddy status")
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
      const buddy = await import("@lazurio/buddy")
      const client = await import("@lazurio/buddy/client")
      const element = await import("@lazurio/buddy/element")
      const testing = await import("@lazurio/buddy/testing")
      const { dispose, handler } = buddy.makeBuddyWebHandler(await (await import("effect")).Effect.runPromise(buddy.BuddyConfig.make({ launchpadOrigin: "http://127.0.0.1", environment: "local" })))
      const answer = await handler(new Request("http://127.0.0.1/api/buddy"))
      const body = await answer.text()
      await dispose()
      let internal = "exported"
      await import("@lazurio/buddy/dist/lib/services/GatewaySocket.js").catch((error) => (internal = error.code))
      console.log(JSON.stringify({
        names: Object.keys(buddy).sort(),
        client: Object.keys(client).sort(),
        element: [Object.keys(element).sort(), element.defineCard()],
        testing: Object.keys(testing).sort(),
        app: buddy.BuddyHttpApp !== undefined && typeof buddy.BuddyLive === "function",
        document: buddy.openApiDocument().openapi,
        answer: [answer.status, body],
        internal
      }))
    `
    const { stdout } = await inApp(process.execPath, ["--input-type=module", "-e", script])
    // The last line: the layer said on Effect's logger (stdout by default) that Buddy is absent here.
    const seen = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Record<string, unknown>
    expect(stdout).toContain("level=WARN")
    expect(stdout).toContain("the config has no buddyOrigin, so Buddy is absent here")
    expect(seen["names"]).toStrictEqual(publicSurface)
    expect(seen["client"]).toStrictEqual(["defaultPollInterval", "makeBuddyClient", "maxPollBackoff"])
    // On a server the card's module loads and defines nothing: there are no custom elements there.
    expect(seen["element"]).toStrictEqual([["changeEvent", "defineCard", "words"], false])
    expect(seen["testing"]).toStrictEqual([
      "BuddyOnFakeGateway",
      "FakeGateway",
      "FakeGatewayError",
      "JournalCapture",
      "JournalLines",
      "journalLines",
      "makeSimulator",
      "startSimulator"
    ])
    expect(seen["app"]).toBe(true)
    expect(seen["document"]).toBe("3.1.0")
    expect(seen["answer"]).toStrictEqual([404, "{\"error\":\"buddy-absent\"}"])
    expect(seen["internal"]).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED")
  }, 30_000)

  it("says a Launchpad's misconfiguration where it is made and on its logger, from the tarball (D50)", async () => {
    const script = `
      const buddy = await import("@lazurio/buddy")
      let refusal
      try {
        buddy.makeBuddyWebHandler({ launchpadOrigin: "http://127.0.0.1:4105", environment: "hosted-personal", buddyorigin: "https://buddy.example" })
      } catch (error) {
        refusal = [error._tag, error.message]
      }
      const { dispose, handler } = buddy.makeBuddyWebHandler({
        hermesHome: "/nonexistent/buddy-package-home",
        launchpadOrigin: "http://127.0.0.1:4105",
        buddyOrigin: "https://buddy.example",
        environment: "hosted-personal"
      })
      const read = await (await handler(new Request("http://127.0.0.1:4105/api/buddy"))).text()
      const post = () => handler(new Request("http://127.0.0.1:4105/api/buddy/sign-in/start", {
        method: "POST",
        headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", origin: "http://localhost:4105" },
        body: "{}"
      })).then((answer) => answer.text().then((body) => [answer.status, body]))
      const posts = [await post(), await post()]
      await dispose()
      console.log(JSON.stringify({ refusal, read, posts }))
    `
    const { stdout } = await inApp(process.execPath, ["--input-type=module", "-e", script])
    const lines = stdout.trim().split("\n")
    const seen = JSON.parse(lines.at(-1) ?? "") as Record<string, unknown>
    expect(seen["refusal"]).toStrictEqual([
      "ConfigInvalid",
      expect.stringMatching(/buddyorigin.*did you mean "buddyOrigin"\?/)
    ])
    expect(JSON.parse(seen["read"] as string)).toMatchObject({ state: "unknown", reason: "not-running" })
    const forbidden = [403, "{\"error\":\"denied\",\"reason\":\"origin-mismatch\"}"]
    expect(seen["posts"]).toStrictEqual([forbidden, forbidden])
    const warned = lines.filter((line) => line.includes("level=WARN"))
    expect(warned.filter((line) => line.includes("does not exist"))).toHaveLength(2)
    expect(warned.filter((line) => line.includes("different origins to a browser"))).toHaveLength(1)
    expect(stdout).not.toContain("/nonexistent/buddy-package-home")
  }, 30_000)

  it("type-checks a Launchpad's use of it with tsc, and its types are not `any`", async () => {
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
  type ConfigInvalid,
  makeBuddyWebHandler,
  openApiDocument,
  refusals
} from "@lazurio/buddy"
import { makeBuddyClient, type PollResult, type StatusResult } from "@lazurio/buddy/client"
import { Effect, Schema } from "effect"

const config: BuddyConfigShape = Effect.runSync(BuddyConfig.make({
  launchpadOrigin: "https://launchpad.example",
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal",
  locale: "cs"
}))
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
BuddyConfig.make({ launchpadOrigin: "https://launchpad.example", environment: "workstation" })
// @ts-expect-error a Launchpad names its origin and environment: nothing defaults to an absent Buddy
BuddyConfig.make({})
// A wrong origin is a typed failure, not a default.
export const refusedConfig: Effect.Effect<unknown, ConfigInvalid> = BuddyConfig.make({
  launchpadOrigin: "launchpad.example",
  environment: "hosted-personal"
})
`
    )
    expect(await typeCheck(app, ["launchpad.ts"])).toBe("clean")
  }, 180_000)

  it("@lazurio/buddy/client bundles for a browser with no Node import", async () => {
    writeFileSync(path.join(app, "page.js"), "export { makeBuddyClient } from \"@lazurio/buddy/client\"\n")
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

describe("a front end with nothing but @lazurio/buddy installed (issue 37, D49)", () => {
  /** The README's client snippet, as it is written there. */
  const readmeSnippet = () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8")
    const snippet = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "").find((code) =>
      code.includes("@lazurio/buddy/client")
    )
    expect(snippet).toBeDefined()
    return snippet ?? ""
  }
  const frontEnd = {
    module: "ESNext",
    moduleResolution: "Bundler",
    lib: ["ES2023", "DOM"],
    types: [],
    skipLibCheck: false
  }

  it("bundles /element and /client with esbuild, together at most 12 KB gzipped, nothing but buddy in it", async () => {
    const front = await scratchProject(temp, "front", [tarball])
    expect(readdirSync(path.join(front, "node_modules")).filter((name) => !name.startsWith("."))).toStrictEqual([
      "@lazurio"
    ])
    writeFileSync(
      path.join(front, "page.js"),
      "import \"@lazurio/buddy/element\"\nexport { makeBuddyClient } from \"@lazurio/buddy/client\"\n"
    )
    // Measured as the bench measures the card (bench/client-size.ts), from the installed package.
    const { inputs, size } = await measureClient(front, "page.js")
    expect(size.gzipped).toBeLessThanOrEqual(12_000)
    expect(
      inputs.map(({ file }) => file).filter((file) =>
        !file.startsWith("node_modules/@lazurio/buddy/dist/lib/") && file !== "page.js"
      )
    ).toStrictEqual([])
  }, 120_000)

  it("type-checks the README's snippet and the card with skipLibCheck off, its types exact (no `any`)", async () => {
    const front = path.join(temp, "front")
    writeFileSync(path.join(front, "snippet.ts"), `${readmeSnippet()}\nexport {}\n`)
    writeFileSync(
      path.join(front, "card.ts"),
      [
        "import { changeEvent, type Change } from \"@lazurio/buddy/element\"",
        "import { makeBuddyClient, type BuddyState } from \"@lazurio/buddy/client\"",
        "const card = document.createElement(\"buddy-sign-in\")",
        "card.addEventListener(changeEvent, (event) => {",
        "  const change = (event as CustomEvent<Change>).detail",
        "  if (change.view === \"buddy\") { const state: BuddyState = change.state; console.log(state) }",
        "})",
        "const status = await makeBuddyClient({ root: undefined, pollInterval: undefined }).status()",
        "if (status.kind === \"buddy\") { const state: BuddyState = status.state; console.log(state) }",
        "export {}"
      ].join("\n")
    )
    expect(await typeCheck(front, ["snippet.ts", "card.ts"], frontEnd)).toBe("clean")
    // Exact: a state is not a number, and a result is not any member one likes.
    writeFileSync(
      path.join(front, "wrong.ts"),
      [
        "import { makeBuddyClient } from \"@lazurio/buddy/client\"",
        "const status = await makeBuddyClient().status()",
        "if (status.kind === \"buddy\") { const state: number = status.state; console.log(state) }",
        "export {}"
      ].join("\n")
    )
    expect(await typeCheck(front, ["wrong.ts"], frontEnd)).toContain("TS2322")
  }, 180_000)
})

describe("every host a Launchpad uses, from the installed tarball (D43)", () => {
  let hosts = ""
  beforeAll(async () => {
    // The examples' @effect/platform-node beside the library's peers, all named (D44: they are optional).
    hosts = await launchpad("hosts", inRange(["effect", "@effect/platform", "@effect/platform-node"]))
  }, 240_000)

  it(
    "a Launchpad that exports buddy's layers and hosts builds its declarations, naming only the package's exports",
    async () => {
      expect(await emit(hosts, launchpadSources(hosts))).toBe("clean")
      const declared = readFileSync(path.join(hosts, "out/layers.d.ts"), "utf8")
      expect(declared).toContain("\"@lazurio/buddy\"")
      expect(declared).not.toMatch(/dist\/lib|services\//)
      expect(readFileSync(path.join(hosts, "out/mount-router.d.ts"), "utf8")).toContain("ConfigInvalid")
    },
    60_000
  )

  it(
    "walks mountApp, HttpLayerRouter beside an HttpApi, node:http and the web handler under a prefix, on the simulator",
    async () => {
      expectWalked(await walkHosts(hosts))
    },
    60_000
  )

  it(
    "merges buddy's operations into OpenApi.fromApi's document with skipLibCheck off; valid OpenAPI 3.1, a generated client compiles (D54)",
    async () => {
      const { compiled, merged, transformed } = await mergedDocument(hosts)
      expect(compiled).toBe("clean")
      expect(transformed).toStrictEqual(merged)
      const file = published(hosts, merged ?? {})
      expect(await validated(file)).toStrictEqual({ valid: true, warnings: [], specification: "OpenAPI" })
      const paths = (merged ?? {})["paths"] as Record<string, Record<string, Record<string, unknown>>>
      expect(paths[`${prefix}/sign-in/start`]?.["post"]?.["parameters"]).toStrictEqual([])
      expect(Object.keys(paths[`${prefix}/sign-in/start`]?.["post"]?.["responses"] ?? {})).toStrictEqual(
        ["200", "400", "403", "404", "409", "413", "415", "500", "503"]
      )
      expect(await generatedClient(hosts, file)).toBe("clean")
    },
    // tsc over effect's and the platform's own declarations, twice.
    180_000
  )
})

describe("next to the oldest effect and @effect/platform its peer ranges name", () => {
  let oldest = ""
  beforeAll(async () => {
    oldest = await launchpad("oldest", ["effect@3.21.5", "@effect/platform@0.96.3", "@effect/platform-node@0.107.0"])
  }, 240_000)

  it(
    "one copy of effect and of @effect/platform in the tree; the shipped examples build their declarations and every host walks",
    async () => {
      expect(copiesOf(oldest, "effect")).toStrictEqual(["effect/package.json"])
      expect(copiesOf(oldest, "@effect/platform")).toStrictEqual(["@effect/platform/package.json"])
      expect(await emit(oldest, launchpadSources(oldest))).toBe("clean")
      const script = `
      const buddy = await import("@lazurio/buddy")
      const { dispose, handler } = buddy.makeBuddyWebHandler(await (await import("effect")).Effect.runPromise(buddy.BuddyConfig.make({ launchpadOrigin: "http://127.0.0.1", environment: "local" })))
      const answer = await handler(new Request("http://127.0.0.1/api/buddy"))
      console.log(JSON.stringify([answer.status, await answer.text()]))
      await dispose()
    `
      const { stdout } = await inDir(oldest)(process.execPath, ["--input-type=module", "-e", script])
      expect(JSON.parse(stdout.trim().split("\n").at(-1) ?? "")).toStrictEqual([404, "{\"error\":\"buddy-absent\"}"])
      expectWalked(await walkHosts(oldest))
    },
    // tsc over effect's types: more than a minute at load 10 (a fresh clone's .ci/run beside two suites).
    180_000
  )
})

describe("a Launchpad's own tests on @lazurio/buddy/testing, from the installed tarball (D53)", () => {
  let kit = ""
  /** The vitest and @effect/vitest this repository runs, so npm takes them from its cache. */
  const devTool = (name: string) => {
    const { version } = JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as {
      readonly version: string
    }
    return `${name}@${version}`
  }
  /** docs/testing.md's examples, each written as a test file of the Launchpad's: their names. */
  const examples = () => {
    const blocks = [...readFileSync(path.join(root, "docs/testing.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((
      match
    ) => match[1] ?? "")
    expect(blocks.length).toBeGreaterThanOrEqual(2)
    return blocks.map((code, index) => {
      writeFileSync(path.join(kit, `testing-${index}.test.ts`), code)
      return { file: `testing-${index}.test.ts`, tests: code.match(/\bit(?:\.\w+)?\(/g)?.length ?? 0 }
    })
  }

  beforeAll(async () => {
    kit = await launchpad("kit", [
      ...inRange(["effect", "@effect/platform"]),
      devTool("vitest"),
      devTool("@effect/vitest")
    ])
  }, 240_000)

  it("runs docs/testing.md's examples with vitest: every test passes", async () => {
    const files = examples()
    await inDir(kit)(process.execPath, [
      path.join(kit, "node_modules/vitest/vitest.mjs"),
      "run",
      "--reporter=json",
      "--outputFile=results.json",
      ...files.map(({ file }) => file)
    ]).catch((error: { readonly stdout: string; readonly stderr: string }) => {
      throw new Error(`vitest failed in the Launchpad's project:\n${error.stdout}\n${error.stderr}`)
    })
    const results = JSON.parse(readFileSync(path.join(kit, "results.json"), "utf8")) as {
      readonly numPassedTests: number
      readonly numTotalTests: number
    }
    expect(results.numTotalTests).toBe(files.reduce((sum, { tests }) => sum + tests, 0))
    expect(results.numPassedTests).toBe(results.numTotalTests)
  }, 120_000)

  it("type-checks the examples, and a module exporting the kit's layers builds its declarations", async () => {
    const files = examples().map(({ file }) => file)
    writeFileSync(
      path.join(kit, "kit-layers.ts"),
      `import { BuddyOnFakeGateway, FakeGateway, JournalCapture, makeSimulator } from "@lazurio/buddy/testing"
export const Buddy = BuddyOnFakeGateway(
  { launchpadOrigin: "https://launchpad.example", buddyOrigin: undefined, environment: "hosted-personal" },
  { contract: undefined, signedIn: true, state: undefined, socket: "pointer" }
)
export const Fake = FakeGateway.layer()
export const Journal = JournalCapture
export const simulator = makeSimulator({ home: undefined, approveAfter: "3 seconds" })
// @ts-expect-error the fake's home is its own: a Launchpad's fields here have no hermesHome
export const Homed = BuddyOnFakeGateway({ launchpadOrigin: "https://l.example", environment: "local", hermesHome: "/x" })
`
    )
    expect(await emit(kit, [...files, "kit-layers.ts"])).toBe("clean")
    const declared = readFileSync(path.join(kit, "out/kit-layers.d.ts"), "utf8")
    expect(declared).toContain("\"@lazurio/buddy/testing\"")
    expect(declared).not.toMatch(/dist\/lib|fixtures\//)
  }, 180_000)
})
