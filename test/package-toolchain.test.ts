// The package against a Launchpad's toolchain (issue 25, D44): the packed tarball installed as the
// README's install line says, then loaded by require() and imported, type-checked by tsc as a
// CommonJS project and under moduleResolution node10; installed next to Effect 4, where it must say
// at once which effect it supports; installed globally as an operator installs the CLI, where it
// must bring nothing but itself; and published, with npm, to a registry stand-in on loopback.
import { once } from "node:events"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  emptyProject,
  inDir,
  installIn,
  packBuddy,
  type Packed,
  removeScratch,
  removeTimeout,
  root,
  run,
  scratchProject,
  tsc,
  typeCheck
} from "./support/package.js"

const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  readonly version: string
  readonly private?: boolean
  readonly publishConfig?: Record<string, string>
  readonly scripts: Record<string, string>
  readonly peerDependencies: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
}

/** The README's `npm install @lazurio/buddy …` line, as the words a shell passes to npm. */
const readmeInstall = (): ReadonlyArray<string> => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8")
  const line = /^npm install @lazurio\/buddy .*$/m.exec(readme)?.[0] ?? ""
  return (line.replace(/\s+#.*$/, "").match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).map((word) => word.replaceAll("\"", ""))
}

/** The package a bare import specifier names: `effect/Schema` → `effect`, `@effect/platform/X` → `@effect/platform`. */
const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

/** Every file and its size under `dir` (symbolic links as links), and the directories named `name` in it. */
const walk = (dir: string) => {
  const entries = readdirSync(dir, { recursive: true, encoding: "utf8" })
  return {
    bytes: entries.reduce((sum, entry) => {
      const stat = lstatSync(path.join(dir, entry))
      return stat.isFile() ? sum + stat.size : sum
    }, 0),
    named: (name: string) => entries.filter((entry) => entry === name || entry.endsWith(`/${name}`))
  }
}

/** Runs node with `args` in `cwd`: its exit code, stdout and stderr, whether it failed or not. */
const node = (cwd: string, args: ReadonlyArray<string>) =>
  inDir(cwd)(process.execPath, args).then(
    ({ stderr, stdout }) => ({ code: 0, stderr, stdout }),
    (error: { readonly code: number; readonly stderr: string; readonly stdout: string }) => ({
      code: error.code,
      stderr: error.stderr,
      stdout: error.stdout
    })
  )

let temp = ""
let packed: Packed
let readme = ""
let effect4 = ""
/** What npm said while it installed the README's line. */
let installed = { stdout: "", stderr: "" }

beforeAll(async () => {
  temp = mkdtempSync(path.join(os.tmpdir(), "buddy-toolchain-"))
  packed = await packBuddy(temp)
  const line = readmeInstall()
  expect(line.slice(0, 3)).toStrictEqual(["npm", "install", "@lazurio/buddy"])
  ;[readme, effect4] = await Promise.all([
    // Exactly what the README's line installs, the package from the tarball.
    Promise.resolve(emptyProject(temp, "readme")).then(async (dir) => {
      installed = await installIn(dir, [packed.tarball, ...line.slice(3), "@types/node@20"])
      return dir
    }),
    // A Launchpad on Effect 4 (the registry's latest) that forces the package in, as npm's refusal suggests.
    scratchProject(temp, "effect4", ["effect@4"]).then(async (dir) => {
      await installIn(dir, [packed.tarball, `@effect/platform@${manifest.peerDependencies["@effect/platform"]}`], [
        "--force"
      ])
      return dir
    })
  ])
}, 300_000)

afterAll(() => removeScratch(temp), removeTimeout)

describe("the README's install line", () => {
  it("names, with the range package.json gives it as a peer, every package the shipped examples import", () => {
    const line = readmeInstall()
    const examples = path.join(readme, "node_modules/@lazurio/buddy/examples")
    const imported = new Set(
      readdirSync(examples).flatMap((file) =>
        [...readFileSync(path.join(examples, file), "utf8").matchAll(/^import .*?"([^".][^"]*)"$/gm)]
          .map((match) => packageOf(match[1]!))
          .filter((name) => !name.startsWith("node:") && name !== "@lazurio/buddy")
      )
    )
    expect([...imported].toSorted()).toStrictEqual(["@effect/platform", "@effect/platform-node", "effect"])
    for (const name of imported) expect(line).toContain(`${name}@${manifest.peerDependencies[name]}`)
    // and nothing more than the peers: the line and package.json say the same ranges.
    expect(line.slice(3).toSorted()).toStrictEqual(
      Object.entries(manifest.peerDependencies).map(([name, range]) => `${name}@${range}`).toSorted()
    )
  })

  it("installs a project where every shipped example type-checks", async () => {
    const examples = path.join(readme, "node_modules/@lazurio/buddy/examples")
    const files = readdirSync(examples).map((file) => `node_modules/@lazurio/buddy/examples/${file}`)
    expect(files.length).toBeGreaterThanOrEqual(3)
    expect(await typeCheck(readme, files, { module: "NodeNext", moduleResolution: "NodeNext" }, "examples.json"))
      .toBe("clean")
  }, 120_000)
})

// npm runs a dependency's preinstall, install, postinstall and prepare when it installs it, and warns
// of each one allowScripts has not covered; the build is prepack's, which only npm pack runs (D55).
describe("installed from the tarball", () => {
  const installTime = ["preinstall", "install", "postinstall", "prepare"]

  // npm names each package whose install script allowScripts has not covered. The peers' own
  // (@effect/platform-node's @parcel/watcher and msgpackr-extract) are the Launchpad's to review, as the
  // repository's allowScripts does; buddy's must never be among them (it was: `prepare: node scripts/build.js`).
  it("npm says nothing of buddy's install scripts", () => {
    expect(installed.stdout).toMatch(/^added \d+ packages? in /m)
    const said = `${installed.stdout}${installed.stderr}`
    expect(said).not.toMatch(/@lazurio\/buddy|prepare|scripts\/build\.js/)
    const named = [...said.matchAll(/^npm warn install-scripts +(\S+)@\S+ \(/gm)].map((match) => match[1])
    expect(named.filter((name) => !["@parcel/watcher", "msgpackr-extract"].includes(name!))).toStrictEqual([])
  })

  it("its package.json has no install-time script, and the build is prepack's", () => {
    const shipped = JSON.parse(
      readFileSync(path.join(readme, "node_modules/@lazurio/buddy/package.json"), "utf8")
    ) as { readonly scripts: Record<string, string> }
    expect(Object.keys(shipped.scripts).filter((name) => installTime.includes(name))).toStrictEqual([])
    expect(shipped.scripts["prepack"]).toBe("node scripts/build.js && node scripts/build-lib.js")
    // npm pack ran it: what it built is in the tarball (packBuddy packs a copy that had no dist/).
    for (const file of ["dist/buddy.js", "dist/simulator.js", "dist/lib/main.cjs", "dist/lib/testing/index.cjs"]) {
      expect([file, existsSync(path.join(readme, "node_modules/@lazurio/buddy", file))]).toStrictEqual([file, true])
    }
  })
})

describe("exactOptionalPropertyTypes (D51)", () => {
  it(
    "every optional field a Launchpad passes takes an explicit undefined, strict and with skipLibCheck false",
    async () => {
      writeFileSync(
        path.join(readme, "optional.ts"),
        `// Every optional field a Launchpad passes, given as an explicit undefined (D51), under
// exactOptionalPropertyTypes, strict and skipLibCheck false.
import {
  BuddyConfig,
  type BuddyConfigFields,
  BuddyLive,
  BuddyRoutes,
  configFrom,
  makeBuddyWebHandler
} from "@lazurio/buddy"
import { makeBuddyClient } from "@lazurio/buddy/client"
import { BuddyOnFakeGateway, FakeGateway, type FakeGatewayShape, makeSimulator, startSimulator } from "@lazurio/buddy/testing"
import { Effect } from "effect"

// @ts-expect-error the flag is on: a field typed without undefined refuses one (else this line fails as unused)
export const exact: { readonly field?: string } = { field: undefined }

declare const root: string | undefined

const fields: BuddyConfigFields = {
  hermesHome: undefined,
  launchpadOrigin: "http://127.0.0.1:4105",
  buddyOrigin: undefined,
  environment: "hosted-personal",
  locale: undefined,
  deadlines: undefined,
  limits: undefined
}
const parts: BuddyConfigFields = {
  ...fields,
  deadlines: { control: undefined, api: undefined, start: undefined },
  limits: { identifyLine: undefined, ticketLine: undefined, answer: undefined, requestBody: undefined }
}

export const made = BuddyConfig.make(parts)
export const layered = BuddyConfig.layer(fields)
export const gateway = BuddyConfig.forGateway({ hermesHome: undefined, deadlines: { api: undefined } })
export const live = BuddyLive(parts)
export const filed = configFrom({
  launchpadOrigin: "http://127.0.0.1:4105",
  environment: "hosted-personal",
  locale: "en",
  hermesHome: undefined,
  buddyOrigin: undefined,
  socketGroup: undefined
})
export const routes = BuddyRoutes({ prefix: undefined })
export const handler = makeBuddyWebHandler(fields, { prefix: undefined })

export const client = makeBuddyClient({ root, fetch: undefined, pollInterval: undefined })
export const held = client.hold("0123456789abcdef0123456789abcdef", {
  onChange: undefined,
  signal: undefined,
  interval: undefined
})

const setup = { contract: undefined, signedIn: undefined, state: undefined, socket: undefined }
export const fake = FakeGateway.layer(setup)
export const onFake = BuddyOnFakeGateway({ launchpadOrigin: "http://127.0.0.1:4105", environment: "hosted-personal", buddyOrigin: undefined, deadlines: undefined }, setup)
export const simulator = () => startSimulator({ ...setup, home: undefined, approveAfter: undefined })
export const scopedSimulator = makeSimulator({ ...setup, home: undefined, approveAfter: undefined })
export const faults = (shape: FakeGatewayShape) =>
  Effect.sync(() => {
    shape.controls.fault("start", { kind: "raw", status: undefined, body: "{}" })
    shape.controls.fault("start", { kind: "late", ms: 1, then: undefined })
    shape.controls.fault("providers", { kind: "oversize", bytes: undefined })
    shape.controls.fault("start", { kind: "start-failed", detail: undefined })
    shape.controls.fault("identify", { kind: "reply", line: "{}", body: undefined })
    shape.controls.fault("providers", { kind: "reply", line: undefined, body: {} })
    shape.controls.restart({ contract: undefined })
  })
`
      )
      expect(
        await typeCheck(
          readme,
          ["optional.ts"],
          { module: "NodeNext", moduleResolution: "NodeNext", skipLibCheck: false },
          "optional.json"
        )
      ).toBe("clean")
    },
    120_000
  )
})

describe("require() on Node ≥ 20.19", () => {
  it("loads the same library import() gives, names and objects, and the client", async () => {
    const script = `
      const buddy = require("@lazurio/buddy")
      const client = require("@lazurio/buddy/client")
      const testing = require("@lazurio/buddy/testing")
      Promise.all([import("@lazurio/buddy"), import("@lazurio/buddy/testing")]).then(([imported, kit]) =>
        console.log(JSON.stringify({
          names: Object.keys(buddy),
          same: Object.keys(imported).every((name) => imported[name] === buddy[name]),
          imported: Object.keys(imported).length,
          client: Object.keys(client).sort(),
          document: buddy.openApiDocument().openapi,
          testing: Object.keys(testing).sort(),
          kit: Object.keys(kit).sort(),
          sameKit: Object.keys(kit).every((name) => kit[name] === testing[name])
        }))
      )
    `
    const { code, stderr, stdout } = await node(readme, ["--input-type=commonjs", "-e", script])
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const seen = JSON.parse(stdout) as Record<string, unknown>
    expect(seen["names"]).toEqual(expect.arrayContaining(["BuddyHttpApp", "BuddyLive", "makeBuddyWebHandler"]))
    expect(seen["imported"]).toBe((seen["names"] as ReadonlyArray<string>).length)
    expect(seen["same"]).toBe(true)
    expect(seen["client"]).toStrictEqual(["defaultPollInterval", "makeBuddyClient", "maxPollBackoff"])
    expect(seen["document"]).toBe("3.1.0")
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
    expect(seen["kit"]).toStrictEqual(seen["testing"])
    expect(seen["sameKit"]).toBe(true)
  }, 60_000)

  it(
    "type-checks a CommonJS TypeScript file against both entries (module nodenext and node20), and tsc's output runs",
    async () => {
      const dir = path.join(readme, "cjs")
      mkdirSync(dir)
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "commonjs" }))
      writeFileSync(
        path.join(dir, "launchpad.ts"),
        `import { BuddyConfig, BuddyHttpApp, refusals } from "@lazurio/buddy"
import { makeBuddyClient, type StatusResult } from "@lazurio/buddy/client"
import { Effect } from "effect"

export const app = BuddyHttpApp
export const client = makeBuddyClient({ pollInterval: 1000 })
export const kind = (result: StatusResult): string => result.kind
// @ts-expect-error the client's results are a closed union: its types are not \`any\`
export const wrong: StatusResult = { kind: "nope" }
const config = Effect.runSync(BuddyConfig.make({ launchpadOrigin: "http://127.0.0.1", environment: "local" }))
console.log(JSON.stringify([refusals["sign-in-unknown"].status, config.environment, typeof client.status]))
`
      )
      for (const module of ["nodenext", "node20"]) {
        expect(await typeCheck(dir, ["launchpad.ts"], { module, moduleResolution: "nodenext" }, `${module}.json`)).toBe(
          "clean"
        )
      }
      await inDir(dir)(process.execPath, [
        tsc,
        "-p",
        "nodenext.json",
        "--noEmit",
        "false",
        "--outDir",
        "out"
      ])
      expect(readFileSync(path.join(dir, "out/launchpad.js"), "utf8")).toContain("require(\"@lazurio/buddy\")")
      const { code, stdout } = await node(dir, ["out/launchpad.js"])
      expect(code).toBe(0)
      expect(JSON.parse(stdout)).toStrictEqual([409, "local", "function"])
    },
    180_000
  )
})

it("moduleResolution node10 (and bundler) finds @lazurio/buddy and @lazurio/buddy/client", async () => {
  writeFileSync(
    path.join(readme, "old.ts"),
    `import { BuddyHttpApp, refusals } from "@lazurio/buddy"
import { makeBuddyClient, type StatusResult } from "@lazurio/buddy/client"

export const app = BuddyHttpApp
export const status: number = refusals["sign-in-unknown"].status
export const client = makeBuddyClient({ pollInterval: 1000 })
// @ts-expect-error the client's results are a closed union: its types are not \`any\`
export const wrong: StatusResult = { kind: "nope" }
`
  )
  expect(await typeCheck(readme, ["old.ts"], { module: "commonjs", moduleResolution: "node10" }, "node10.json")).toBe(
    "clean"
  )
  expect(await typeCheck(readme, ["old.ts"], { module: "esnext", moduleResolution: "bundler" }, "bundler.json")).toBe(
    "clean"
  )
}, 120_000)

// The maps name src/, which the package does not ship: without the sources inside them a stack under
// --enable-source-maps, a debugger, or a bundler's source-map loader (webpack's warns on each) finds nothing.
it("ships source maps that carry every source they name", () => {
  const lib = path.join(readme, "node_modules/@lazurio/buddy/dist/lib")
  const maps = readdirSync(lib, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".js.map"))
  expect(maps.length).toBeGreaterThan(20)
  for (const file of maps) {
    const map = JSON.parse(readFileSync(path.join(lib, file), "utf8")) as {
      readonly sources: ReadonlyArray<string>
      readonly sourcesContent?: ReadonlyArray<string | null>
    }
    expect([file, map.sourcesContent?.length]).toStrictEqual([file, map.sources.length])
    for (const content of map.sourcesContent ?? []) expect(typeof content).toBe("string")
  }
  expect(existsSync(path.join(readme, "node_modules/@lazurio/buddy/src"))).toBe(false)
})

describe("next to Effect 4", () => {
  const sentence =
    `@lazurio/buddy ${manifest.version} supports effect ^3.21.0 (Effect 3) only, and found effect 4.1.0: ` +
    `install the supported versions beside it (npm install effect@"^3.21.0" @effect/platform@"^0.96.0 || ^0.97.0").`

  it("the project holds Effect 4 (the case under test)", () => {
    const { version } = JSON.parse(readFileSync(path.join(effect4, "node_modules/effect/package.json"), "utf8")) as {
      readonly version: string
    }
    expect(version).toMatch(/^4\./)
  })

  it("import fails at once with a sentence naming the supported range", async () => {
    const { code, stderr } = await node(effect4, ["--input-type=module", "-e", "await import(\"@lazurio/buddy\")"])
    expect(code).toBe(1)
    expect(stderr).toContain(`Error: ${sentence.replace("4.1.0", foundIn(effect4))}`)
    expect(stderr).not.toContain("ERR_MODULE_NOT_FOUND")
  }, 60_000)

  it("@lazurio/buddy/testing fails at once with the same sentence (D53), before its bundle links", async () => {
    const { code, stderr } = await node(effect4, [
      "--input-type=module",
      "-e",
      "await import(\"@lazurio/buddy/testing\")"
    ])
    expect(code).toBe(1)
    expect(stderr).toContain(`Error: ${sentence.replace("4.1.0", foundIn(effect4))}`)
    expect(stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|SyntaxError/)
  }, 60_000)

  it("require fails at once with the same sentence, @lazurio/buddy/testing's too", async () => {
    for (const entry of ["@lazurio/buddy", "@lazurio/buddy/testing"]) {
      const { code, stderr } = await node(effect4, ["--input-type=commonjs", "-e", `require("${entry}")`])
      expect([entry, code]).toStrictEqual([entry, 1])
      expect(stderr).toContain(`Error: ${sentence.replace("4.1.0", foundIn(effect4))}`)
      expect(stderr).not.toMatch(/ERR_REQUIRE_ASYNC_MODULE|ERR_MODULE_NOT_FOUND|SyntaxError/)
    }
  }, 60_000)
})

/** The effect version installed in a project. */
const foundIn = (dir: string) =>
  (JSON.parse(readFileSync(path.join(dir, "node_modules/effect/package.json"), "utf8")) as { version: string }).version

describe("installed globally, as an operator installs the CLI", () => {
  it(
    "brings the package alone, no peer (no effect, no @effect/*), within 10 % of its own size, and buddy runs",
    async () => {
      const prefix = path.join(temp, "global")
      await inDir(temp)("npm", [
        "install",
        "-g",
        "--prefix",
        prefix,
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        packed.tarball
      ])
      const tree = walk(prefix)
      expect(tree.named("node_modules/effect")).toStrictEqual([])
      expect(tree.named("node_modules/@effect")).toStrictEqual([])
      expect(readdirSync(path.join(prefix, "lib/node_modules"))).toStrictEqual(["@lazurio"])
      expect(tree.bytes).toBeLessThanOrEqual(packed.unpackedSize * 1.1)
      const buddy = path.join(prefix, "bin/buddy")
      expect((await run(buddy, ["--version"])).stdout.trim()).toContain(manifest.version)
      // The CLI runs a command end to end: a home that does not exist is "unknown", exit 1 (C8).
      const status = await node(temp, [buddy, "status", "--json", "--home", path.join(temp, "no-home")])
      expect(status.code).toBe(1)
      expect(JSON.parse(status.stdout)).toStrictEqual({ kind: "buddy", state: "unknown", reason: "not-running" })
    },
    120_000
  )

  it("keeps every peer optional, so npm installs none with it", () => {
    expect(Object.keys(manifest.peerDependenciesMeta ?? {}).toSorted()).toStrictEqual(
      Object.keys(manifest.peerDependencies).toSorted()
    )
    for (const meta of Object.values(manifest.peerDependenciesMeta ?? {})) expect(meta.optional).toBe(true)
  })
})

describe("published", () => {
  it(
    "npm publish sends the package, restricted, with the files npm pack ships, to the registry it is given",
    async () => {
      const received: Array<{ readonly url: string; readonly body: string }> = []
      const registry = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          received.push({ url: `${request.method} ${request.url}`, body: Buffer.concat(chunks).toString("utf8") })
          response.writeHead(request.method === "PUT" ? 201 : 404, { "content-type": "application/json" })
          response.end("{}")
        })
      })
      registry.listen(0, "127.0.0.1")
      await once(registry, "listening")
      const { port } = registry.address() as AddressInfo
      const url = `http://127.0.0.1:${port}/`
      try {
        // From the packed copy, as from a clean clone after `npm run check` (its scripts are the check and
        // the build, which this test run has done).
        await inDir(packed.dir)("npm", [
          "publish",
          "--ignore-scripts",
          `--registry=${url}`,
          `--//127.0.0.1:${port}/:_authToken=stand-in`
        ])
      } finally {
        registry.close()
      }
      const put = received.find(({ url }) => url.startsWith("PUT "))
      expect(put?.url).toBe("PUT /@lazurio%2fbuddy")
      const document = JSON.parse(put?.body ?? "{}") as {
        readonly access?: string
        readonly versions?: Record<string, { readonly private?: boolean }>
        readonly _attachments?: Record<string, { readonly length: number }>
      }
      expect(document.access).toBe("restricted")
      expect(Object.keys(document.versions ?? {})).toStrictEqual([manifest.version])
      expect(document.versions?.[manifest.version]?.private).toBeUndefined()
      // The tarball it sent is the one npm pack makes: the same files, byte for byte.
      expect(Object.entries(document._attachments ?? {}).map(([name, { length }]) => [name, length])).toStrictEqual([
        [`@lazurio/buddy-${manifest.version}.tgz`, statSync(packed.tarball).size]
      ])
      expect(manifest.private).toBeUndefined()
      expect(manifest.publishConfig).toStrictEqual({ access: "restricted" })
      expect(manifest.scripts["prepublishOnly"]).toBe("npm run check")
    },
    60_000
  )
})
