// The units `buddy serve --print-unit` prints (src/cli/unit-text.ts, src/cli/print-unit.ts; issue 39
// item 3): for npm's prefix on Debian they are the package's copies in systemd/, byte for byte;
// ExecStart= names the bin alone only where systemd can run it with the same node; what a unit names
// is escaped so systemd reads back exactly it. The units against systemd itself: test/deploy/units.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { commandOf, printUnitChecks } from "../../src/cli/print-unit.js"
import { cleanStops, execWord, unitKinds, unitText } from "../../src/cli/unit-text.js"
import { REPO } from "./support/buddy-process.js"

const debian = { command: ["/usr/bin/buddy"], config: Option.none(), home: Option.none(), account: "buddy" }
const shipped = {
  user: "systemd/buddy.service",
  system: "systemd/system/buddy.service",
  socket: "systemd/system/buddy.socket"
}

const line = (text: string, key: string) => text.split("\n").filter((each) => each.startsWith(`${key}=`))

describe("the printed units", () => {
  for (const kind of unitKinds) {
    it(`${kind}: for npm's prefix /usr, the package's ${shipped[kind]} exactly`, async () => {
      expect(unitText(kind, debian)).toBe(await fs.readFile(path.join(REPO, shipped[kind]), "utf8"))
    })
  }

  it("name the command, the config, the home and the account given, and the defaults otherwise", () => {
    const given = {
      command: ["/opt/node/bin/node", "/home/ops/.npm-global/bin/buddy"],
      config: Option.some("/srv/buddy/serve.json"),
      home: Option.some("/var/lib/hermes"),
      account: "hermes"
    }
    const system = unitText("system", given)
    expect(line(system, "ExecStart")).toStrictEqual([
      "ExecStart=/opt/node/bin/node /home/ops/.npm-global/bin/buddy serve --config /srv/buddy/serve.json --home /var/lib/hermes"
    ])
    expect([line(system, "User"), line(system, "SupplementaryGroups")]).toStrictEqual([
      ["User=hermes"],
      ["SupplementaryGroups=buddy-proxy"]
    ])
    expect(line(unitText("user", debian), "ExecStart")).toStrictEqual([
      "ExecStart=/usr/bin/buddy serve --config %E/buddy/serve.json"
    ])
    expect(line(unitText("system", debian), "ExecStart")).toStrictEqual([
      "ExecStart=/usr/bin/buddy serve --config /etc/buddy/serve.json"
    ])
    const socket = unitText("socket", given)
    expect([line(socket, "SocketUser"), line(socket, "SocketGroup"), line(socket, "ExecStart")]).toStrictEqual([
      ["SocketUser=hermes"],
      ["SocketGroup=buddy-proxy"],
      []
    ])
  })

  it("count SIGHUP, SIGINT and SIGTERM as clean stops, and have no reload", () => {
    expect(cleanStops).toStrictEqual([129, 130, 143])
    for (const kind of ["user", "system"] as const) {
      const text = unitText(kind, debian)
      expect([line(text, "SuccessExitStatus"), line(text, "Restart"), line(text, "ExecReload")]).toStrictEqual([
        ["SuccessExitStatus=129 130 143"],
        ["Restart=on-failure"],
        []
      ])
    }
  })

  it("escape what systemd would expand or split: % doubled, $ in an argument, a word with a space or quote quoted", () => {
    expect(execWord("/usr/bin/buddy", true)).toBe("/usr/bin/buddy")
    expect(execWord("/srv/100%/a$HOME.json")).toBe("/srv/100%%/a$$HOME.json")
    // The program is not expanded for variables: verify looks for a `$$` in its name as written.
    expect(execWord("/opt/100%/$x/buddy", true)).toBe("/opt/100%%/$x/buddy")
    expect(execWord("/srv/my buddy/serve.json")).toBe("\"/srv/my buddy/serve.json\"")
    expect(execWord("/srv/a\"b\\c")).toBe("\"/srv/a\\\"b\\\\c\"")
    expect(execWord("/srv/it's")).toBe("\"/srv/it's\"")
  })
})

describe("the values --print-unit and --account take", () => {
  it("are the three units, and an account's name that cannot break a unit line", () => {
    const unit = printUnitChecks["--print-unit"]!
    const account = printUnitChecks["--account"]!
    expect(["user", "system", "socket"].map(unit)).toStrictEqual([Option.none(), Option.none(), Option.none()])
    expect(unit("service")).toStrictEqual(Option.some("--print-unit takes user, system or socket, not \"service\""))
    expect(["buddy", "hermes_1", "_svc", "a-b", "A".repeat(32)].map(account).every(Option.isNone)).toBe(true)
    for (const bad of ["1buddy", "bud dy", "buddy\nUser=root", "%u", "a".repeat(33), "-x", "é"]) {
      expect([bad, Option.isSome(account(bad))]).toStrictEqual([bad, true])
    }
  })
})

describe("ExecStart's program", () => {
  const scratch = Effect.acquireRelease(
    Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "buddy-unit-command-"))),
    (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
  )
  /** A directory holding `node`, a link to the node running the test, as a PATH entry would. */
  const withNode = (dir: string) =>
    Effect.promise(async () => {
      const bin = path.join(dir, "path")
      await fs.mkdir(bin)
      await fs.symlink(process.execPath, path.join(bin, "node"))
      return bin
    })
  const script = (dir: string, mode: number) =>
    Effect.promise(async () => {
      const file = path.join(dir, "buddy")
      await fs.writeFile(file, "#!/usr/bin/env node\n", { mode })
      await fs.chmod(file, mode)
      return file
    })

  it.scoped("is the bin alone when it is executable and the service's PATH finds this node first", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const search = [path.join(dir, "none"), yield* withNode(dir)]
      const bin = yield* script(dir, 0o755)
      expect(yield* commandOf(bin, process.execPath, search)).toStrictEqual([bin])
    }))

  it.scoped("names this node first when the bin is not executable, or the PATH has no node or another", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const search = [yield* withNode(dir)]
      const plain = yield* script(dir, 0o644)
      expect(yield* commandOf(plain, process.execPath, search)).toStrictEqual([process.execPath, plain])
      const bin = path.join(dir, "run")
      yield* Effect.promise(() => fs.writeFile(bin, "#!/usr/bin/env node\n", { mode: 0o755 }))
      expect(yield* commandOf(bin, process.execPath, [path.join(dir, "none")])).toStrictEqual([process.execPath, bin])
      // Another node first on the PATH (a system's older one): the bin would run under it.
      const other = path.join(dir, "other")
      yield* Effect.promise(async () => {
        await fs.mkdir(other)
        await fs.writeFile(path.join(other, "node"), "#!/bin/sh\n", { mode: 0o755 })
      })
      expect(yield* commandOf(bin, process.execPath, [other, ...search])).toStrictEqual([process.execPath, bin])
    }))
})
