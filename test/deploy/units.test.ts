// The systemd units the package ships (systemd/; issue 24 item 4) and the ones `buddy serve
// --print-unit` prints (issue 39 item 3): each passes Debian's `systemd-analyze verify` offline with
// nothing to say (it warns on a bad key or value and still exits 0, so silence is the check; a
// deliberately broken copy of each proves the check can fail). A shipped copy has only ExecStart's
// binary rewritten to the built CLI, which verify requires to exist; a printed one is printed by the
// built CLI run through a link at PREFIX/bin/buddy, as npm installs it, and verified as printed, for
// npm's prefix at /usr (Debian's, where the shipped copies are what it prints) and at /usr/local.
// The socket's place under each unit agrees with what the guide's proxy snippets and the .socket unit
// name, and the built CLI, given the environment each unit gives it, listens exactly there; the exit
// code of each signal that stops it is one the units count as clean. Last, socket activation as
// systemd does it (systemd-socket-activate: LISTEN_PID, LISTEN_FDS=1, fd 3).
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { servicePath } from "../../src/cli/print-unit.js"
import { execWord } from "../../src/cli/unit-text.js"
import { cleanEnv, spawnBuddy } from "../cli/support/buddy-process.js"
import { writeServeConfig } from "../cli/support/cleanup.js"
import { gatewayProcess } from "../support/gateway-process.js"
import { requires } from "../support/required.js"
import {
  BUDDY,
  groupId,
  GUIDE,
  guideSnippet,
  isRoot,
  parseAnswer,
  REPO,
  SYSTEM_SOCKET,
  UNITS,
  unitValue,
  unitValues,
  until
} from "./support/deploy.js"

const ANALYZE = "/usr/bin/systemd-analyze"
const ACTIVATE = "/usr/bin/systemd-socket-activate"
/** Where the shipped units say buddy is: npm's global prefix on Debian is /usr. */
const INSTALLED = "/usr/bin/buddy"

const hasAnalyze = requires(existsSync(ANALYZE), ANALYZE, "apt-get install systemd")
const hasActivate = requires(existsSync(ACTIVATE), ACTIVATE, "apt-get install systemd")

const temps: Array<string> = []
const temp = (prefix: string) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** A copy of systemd/`from` (a file or directory) in a new directory, ExecStart's binary the built CLI. */
const copyUnits = (from: string): string => {
  const dir = temp("buddy-units-")
  cpSync(path.join(UNITS, from), path.join(dir, path.basename(from)), { recursive: true })
  for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const full = path.join(dir, file)
    if (!/\.(service|socket|conf)$/.test(file)) continue
    const text = readFileSync(full, "utf8")
    writeFileSync(full, text.replaceAll(`ExecStart=${INSTALLED} `, `ExecStart=${BUDDY} `))
  }
  return dir
}

interface Verdict {
  readonly code: number | null
  readonly said: string
}

/** `systemd-analyze verify` of `units` (paths in `dir`); `user` for a user unit. */
const verify = (dir: string, units: ReadonlyArray<string>, user = false): Verdict => {
  const run = spawnSync(ANALYZE, [...(user ? ["--user"] : []), "--man=no", "verify", ...units.map((u) => `./${u}`)], {
    cwd: dir,
    encoding: "utf8",
    // --user needs a runtime directory to make its (offline) manager; nothing else is read from it.
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", XDG_RUNTIME_DIR: temp("buddy-units-runtime-") }
  })
  return { code: run.status, said: `${run.stdout}${run.stderr}`.trim() }
}

const clean: Verdict = { code: 0, said: "" }

/** Each unit as the package ships it, and how systemd-analyze is asked about it. */
const shipped = [
  { name: "the user unit", from: "buddy.service", units: ["buddy.service"], user: true },
  {
    name: "the system unit, its socket and its drop-in",
    from: "system",
    units: ["system/buddy.socket", "system/buddy.service"],
    user: false
  }
] as const

describe.skipIf(!hasAnalyze)("the package's systemd units", () => {
  for (const unit of shipped) {
    it(`${unit.name}: systemd-analyze verify has nothing to say`, () => {
      const dir = copyUnits(unit.from)
      const units = unit.units.map((u) => (unit.from === "system" ? path.basename(u) : u))
      const at = unit.from === "system" ? path.join(dir, "system") : dir
      expect(readFileSync(path.join(at, units.at(-1)!), "utf8")).toContain(`ExecStart=${BUDDY} serve --config `)
      expect(verify(at, units, unit.user)).toStrictEqual(clean)
    })
  }

  it("a broken copy of each fails the same check: a misspelt key, a bad value, a missing binary, a drop-in's bad path", () => {
    const breakIt = (from: string, file: string, edit: (text: string) => string) => {
      const dir = copyUnits(from)
      const at = from === "system" ? path.join(dir, "system") : dir
      const full = path.join(at, file)
      writeFileSync(full, edit(readFileSync(full, "utf8")))
      return at
    }
    const cases = [
      breakIt("buddy.service", "buddy.service", (t) => t.replace("Restart=on-failure", "Restart=on-failur")),
      breakIt("buddy.service", "buddy.service", (t) => t.replace("SuccessExitStatus=", "SuccesExitStatus=")),
      breakIt("buddy.service", "buddy.service", (t) => t.replace(`${BUDDY} serve`, `${BUDDY}.missing serve`)),
      breakIt("system", "buddy.service", (t) => t.replace("RuntimeDirectoryMode=0700", "RuntimeDirectoryMode=0o700")),
      breakIt("system", "buddy.socket", (t) => t.replace("SocketMode=0660", "SocketMode=rw-rw----")),
      breakIt("system", path.join("buddy.service.d", "socket.conf"), (t) => `${t}RuntimeDirectory=../run\n`)
    ]
    const verdicts = cases.map((at, i) =>
      i < 3 ? verify(at, ["buddy.service"], true) : verify(at, ["buddy.socket", "buddy.service"])
    )
    for (const verdict of verdicts) expect(verdict).not.toStrictEqual(clean)
  })
})

/** `buddy serve ARGS` run as the executable at `bin` itself (its `#!/usr/bin/env node`), as a shell would. */
const runAs = (bin: string, args: ReadonlyArray<string>) => {
  const run = spawnSync(bin, ["serve", ...args], { cwd: "/", encoding: "utf8", env: cleanEnv() })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** Whether systemd's PATH for services finds the node running this test first: then ExecStart= names the bin alone. */
const serviceFindsThisNode = (() => {
  const first = servicePath.map((dir) => path.join(dir, "node")).find((file) => existsSync(file))
  return first !== undefined && realpathSync(first) === realpathSync(process.execPath)
})()

/** A scratch root with `PREFIX/bin/buddy`, a link to the repository's bin, as `npm install -g --prefix` makes it. */
const installedAt = (prefix: string) => {
  const root = temp("buddy-units-prefix-")
  const bin = path.join(root, prefix, "bin", "buddy")
  mkdirSync(path.dirname(bin), { recursive: true })
  symlinkSync(BUDDY, bin)
  return { root, bin }
}

/** The units `bin` prints, written into a new directory as an operator would install them (the drop-in from systemd/). */
const printedUnits = (bin: string) => {
  const dir = temp("buddy-units-printed-")
  const print = (kind: string, file: string) => {
    const ran = runAs(bin, ["--print-unit", kind])
    expect({ kind, code: ran.code, stderr: ran.stderr }).toStrictEqual({ kind, code: 0, stderr: "" })
    writeFileSync(path.join(dir, file), ran.stdout)
    return ran.stdout
  }
  mkdirSync(path.join(dir, "user"))
  const texts = {
    user: print("user", "user/buddy.service"),
    system: print("system", "buddy.service"),
    socket: print("socket", "buddy.socket")
  }
  cpSync(path.join(UNITS, "system", "buddy.service.d"), path.join(dir, "buddy.service.d"), { recursive: true })
  return { dir, texts }
}

const execStartOf = (text: string) => text.split("\n").filter((line) => line.startsWith("ExecStart="))

describe.skipIf(!hasAnalyze)("buddy serve --print-unit, run from where npm installed it", () => {
  // /usr: Debian's npm; /usr/local: npm's own default; the third, a prefix systemd must be told about
  // carefully (a space, a specifier's %, a variable's $).
  for (const prefix of ["/usr", "/usr/local", "/opt/npm 100%$x"]) {
    it(`at prefix ${prefix}: ExecStart= names PREFIX/bin/buddy, and systemd-analyze verify has nothing to say`, () => {
      const { bin } = installedAt(prefix)
      const { dir, texts } = printedUnits(bin)
      const program = serviceFindsThisNode
        ? execWord(bin, true)
        : `${execWord(process.execPath, true)} ${execWord(bin)}`
      expect(execStartOf(texts.system)).toStrictEqual([`ExecStart=${program} serve --config /etc/buddy/serve.json`])
      expect(execStartOf(texts.user)).toStrictEqual([`ExecStart=${program} serve --config %E/buddy/serve.json`])
      // The link npm keeps through upgrades, not the package's own path behind it.
      expect(texts.system).not.toContain(REPO)
      expect(verify(path.join(dir, "user"), ["buddy.service"], true)).toStrictEqual(clean)
      expect(verify(dir, ["buddy.socket", "buddy.service"])).toStrictEqual(clean)
      // The same units once the link is gone (buddy uninstalled, or a unit for another prefix) fail.
      rmSync(bin)
      expect(verify(path.join(dir, "user"), ["buddy.service"], true)).not.toStrictEqual(clean)
      expect(verify(dir, ["buddy.socket", "buddy.service"])).not.toStrictEqual(clean)
    })
  }

  it("at prefix /usr, prints the package's systemd/ copies exactly, but for the scratch root", () => {
    const { bin, root } = installedAt("/usr")
    const { texts } = printedUnits(bin)
    const shippedText = (file: string) => readFileSync(path.join(UNITS, file), "utf8")
    const asInstalled = (text: string) =>
      serviceFindsThisNode ? text.replaceAll(`${root}/usr/bin/buddy`, INSTALLED) : text
    expect.soft(serviceFindsThisNode, "ExecStart= names the bin alone only where systemd finds this node").toBe(true)
    expect(asInstalled(texts.user)).toBe(shippedText("buddy.service"))
    expect(asInstalled(texts.system)).toBe(shippedText("system/buddy.service"))
    expect(texts.socket).toBe(shippedText("system/buddy.socket"))
  })

  it("names the account, config and home given, absolute, refuses a flag a unit has no use for, warns from npx's cache", () => {
    const { bin } = installedAt("/usr")
    const config = runAs(bin, [
      "--print-unit",
      "system",
      "--account",
      "hermes",
      "--config",
      "etc/serve.json",
      "--home",
      "h"
    ])
    expect(config.code).toBe(0)
    expect(config.stdout).toContain("\nUser=hermes\n")
    expect(execStartOf(config.stdout)[0]).toMatch(/ serve --config \/etc\/serve\.json --home \/h$/)
    expect(runAs(bin, ["--print-unit", "socket", "--account", "hermes"]).stdout).toContain("\nSocketUser=hermes\n")
    // From npx's cache, which npm clears: printed, with a warning that the unit would outlive it.
    const { bin: cached } = installedAt("/root/.npm/_npx/0123abcd/node_modules/.bin/..")
    const fromCache = runAs(cached, ["--print-unit", "user"])
    expect([fromCache.code, fromCache.stderr.split("\n").filter((line) => line !== "")]).toStrictEqual([0, [
      expect.stringContaining(`this buddy runs from npx's cache (${cached}), which npm may clear`)
    ]])
    expect(execStartOf(fromCache.stdout)).toHaveLength(1)
    for (
      const args of [
        ["--print-unit", "user", "--account", "hermes"],
        ["--print-unit", "system", "--socket", "/run/x.sock"],
        ["--print-unit", "socket", "--config", "/etc/buddy/serve.json"],
        ["--account", "hermes"],
        ["--print-unit", "service"],
        ["--print-unit", "system", "--account", "root\nExecStartPre=/bin/sh"]
      ]
    ) {
      const ran = runAs(bin, args)
      expect([args, ran.code, ran.stdout]).toStrictEqual([args, 2, ""])
    }
  })
})

describe("the exit code of each signal that stops buddy serve", () => {
  // Restart=on-failure starts buddy again after any exit its unit does not count as clean: each
  // code the built CLI really exits with on a stop is in SuccessExitStatus=, printed and shipped.
  // SIGHUP (a closed terminal, or an operator's `kill -HUP`) stops it: there is no reload.
  it("SIGHUP, SIGINT and SIGTERM: each exit code is in every unit's SuccessExitStatus=, and no unit reloads", async () => {
    const codes: Array<readonly [string, number | null]> = []
    for (const signal of ["SIGHUP", "SIGINT", "SIGTERM"] as const) {
      const dir = temp("buddy-units-signal-")
      chmodSync(dir, 0o700)
      const serve = spawnBuddy(["serve", "--socket", path.join(dir, "serve.sock")], {
        env: { HERMES_HOME: path.join(dir, "hermes") }
      })
      await serve.stderrWith("listening on")
      serve.child.kill(signal)
      codes.push([signal, (await serve.finished).code])
    }
    expect(codes).toStrictEqual([["SIGHUP", 129], ["SIGINT", 130], ["SIGTERM", 143]])
    const { bin } = installedAt("/usr")
    const { texts } = printedUnits(bin)
    const shipped = [
      readFileSync(path.join(UNITS, "buddy.service"), "utf8"),
      readFileSync(path.join(UNITS, "system/buddy.service"), "utf8")
    ]
    for (const text of [texts.user, texts.system, ...shipped]) {
      const clean = text.split("\n").filter((line) => line.startsWith("SuccessExitStatus=")).flatMap((line) =>
        line.slice("SuccessExitStatus=".length).split(/\s+/).map(Number)
      )
      for (const [signal, code] of codes) expect([signal, clean.includes(code ?? -1)]).toStrictEqual([signal, true])
      expect(text).not.toMatch(/^ExecReload=/m)
      expect(text).toMatch(/^Restart=on-failure$/m)
    }
  })
})

/** The socket a proxy_pass `http://unix:PATH:` names. */
const nginxSockets = (text: string) => [...text.matchAll(/proxy_pass http:\/\/unix:([^:;\s]+):;/g)].map((m) => m[1])
/** The socket a Caddy `reverse_proxy … unix/PATH` names. */
const caddySockets = (text: string) => [...text.matchAll(/reverse_proxy .*unix\/(\/[^\s]+)/g)].map((m) => m[1])

describe("where the socket lands under each unit", () => {
  it("the system unit's $RUNTIME_DIRECTORY/serve.sock is the socket the guide's nginx and Caddy snippets and buddy.socket name", () => {
    // No --socket: buddy serve's default under systemd, $RUNTIME_DIRECTORY/serve.sock.
    const exec = unitValue("system/buddy.service", "ExecStart")
    expect(exec).toMatch(new RegExp(`^${INSTALLED} serve --config \\S+$`))
    const runtime = `/run/${unitValue("system/buddy.service", "RuntimeDirectory")}`
    const place = `${runtime}/serve.sock`
    expect(place).toBe(SYSTEM_SOCKET)
    expect(nginxSockets(guideSnippet("test/deploy/proxies.test.ts", "nginx").text)).toStrictEqual([place, place])
    expect(caddySockets(guideSnippet("test/deploy/proxies.test.ts", "caddy").text)).toStrictEqual([place])
    expect(unitValue("system/buddy.socket", "ListenStream")).toBe(place)
    // Socket activation takes RuntimeDirectory= away from the service (systemd makes /run/buddy for
    // the socket, and the service's would be removed, the socket's name with it, at each stop).
    expect(unitValues("system/buddy.service.d/socket.conf", "RuntimeDirectory")).toStrictEqual([""])
  })

  it("the system unit gives buddy's account the proxy's group, the one buddy.socket and the nginx snippet's account use", () => {
    const group = unitValue("system/buddy.service", "SupplementaryGroups")
    // A group of its own for the proxy's account, not the proxy's (www-data), which all its sites share.
    expect(group).toBe("buddy-proxy")
    expect(unitValue("system/buddy.socket", "SocketGroup")).toBe(group)
    expect(unitValue("system/buddy.socket", "SocketMode")).toBe("0660")
    expect(unitValue("system/buddy.socket", "SocketUser")).toBe(unitValue("system/buddy.service", "User"))
    expect(unitValue("system/buddy.service", "RuntimeDirectoryMode")).toBe("0700")
    for (const file of ["buddy.service", "system/buddy.service"]) {
      expect([file, unitValue(file, "SuccessExitStatus"), unitValue(file, "Restart")]).toStrictEqual([
        file,
        "129 130 143",
        "on-failure"
      ])
    }
  })

  it("the user unit's socket is %t/buddy/serve.sock, as the guide says", () => {
    expect(unitValue("buddy.service", "ExecStart")).toMatch(new RegExp(`^${INSTALLED} serve --config \\S+$`))
    // No RuntimeDirectory=: buddy makes and checks %t/buddy itself, and systemd would remove a
    // runtime directory at each stop, with whatever else the account keeps in it.
    expect(unitValues("buddy.service", "RuntimeDirectory")).toStrictEqual([])
    const guide = readFileSync(GUIDE, "utf8")
    expect(guide).toContain("`%t/buddy/serve.sock`, i.e. `$XDG_RUNTIME_DIR/buddy/serve.sock`")
    expect(guide).toContain("`$RUNTIME_DIRECTORY/serve.sock` = `/run/buddy/serve.sock`")
  })

  it("the package ships systemd/", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as {
      readonly files: ReadonlyArray<string>
    }
    expect(pkg.files).toContain("systemd/")
  })

  const config = async (home: string) => {
    const dir = temp("buddy-units-config-")
    const file = path.join(dir, "serve.json")
    await writeServeConfig(file, home)
    return file
  }

  it("the built CLI, given each unit's environment, listens where the unit says", async () => {
    const gateway = await gatewayProcess()
    const file = await config(gateway.home)
    // The system unit: systemd makes RuntimeDirectory= (0700, RuntimeDirectoryMode=) and sets RUNTIME_DIRECTORY.
    const run = temp("buddy-units-run-")
    const runtime = path.join(run, "buddy")
    await fs.mkdir(runtime, { mode: 0o700 })
    const system = spawnBuddy(["serve", "--config", file], { env: { RUNTIME_DIRECTORY: runtime } })
    expect(await system.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${runtime}/serve.sock`)
    // The user unit: the user manager sets XDG_RUNTIME_DIR (%t), and no RUNTIME_DIRECTORY.
    const t = temp("buddy-units-user-")
    chmodSync(t, 0o700)
    const user = spawnBuddy(["serve", "--config", file], { env: { XDG_RUNTIME_DIR: t } })
    expect(await user.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${t}/buddy/serve.sock`)
  })
})

describe.skipIf(!hasActivate)("socket activation (LISTEN_FDS), as buddy.socket does it", { timeout: 30_000 }, () => {
  /** `systemd-socket-activate -l SOCKET` running the built CLI with a config of `extra` fields. */
  const activated = async (extra: Record<string, unknown>) => {
    const gateway = await gatewayProcess()
    const dir = temp("buddy-units-activate-")
    // As systemd makes a ListenStream= socket's directory (0755): the proxy's group must pass it (D56).
    chmodSync(dir, 0o711)
    const socket = path.join(dir, "serve.sock")
    const file = await (async () => {
      const f = path.join(dir, "serve.json")
      await fs.writeFile(
        f,
        JSON.stringify({
          hermesHome: gateway.home,
          launchpadOrigin: "https://launchpad.example",
          buddyOrigin: "https://buddy.example",
          environment: "hosted-personal",
          locale: "en",
          ...extra
        })
      )
      return f
    })()
    const serve = spawnBuddy(["serve", "--config", file], {
      command: [
        ACTIVATE,
        "-l",
        socket,
        "--",
        process.execPath,
        BUDDY
      ]
    })
    return { gateway, socket, serve }
  }

  /** One exchange on the socket; what came back when the server closed (bounded: an old buddy never answers). */
  /** One connection's whole answer to `raw`. */
  const once = (socket: string, raw: string) =>
    new Promise<string>((resolve, reject) => {
      const client = net.connect(socket)
      let bytes = ""
      client.setEncoding("latin1")
      client.setTimeout(10_000, () => client.destroy())
      client.on("connect", () => client.write(raw))
      client.on("data", (chunk: string) => (bytes += chunk))
      client.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? undefined : reject(e)))
      client.on("close", () => resolve(bytes))
    })
  // systemd-socket-activate binds the socket (the file appears) a moment before it listens; a
  // connection refused then starts nothing, so it is tried again, for at most 5 s.
  const exchange = async (socket: string, raw: string): Promise<string> => {
    for (const began = Date.now();;) {
      const answer = await once(socket, raw).then(
        (bytes) => ({ bytes }),
        (e: NodeJS.ErrnoException) => {
          if (e.code !== "ECONNREFUSED" || Date.now() - began > 5_000) throw e
          return undefined
        }
      )
      if (answer !== undefined) return answer.bytes
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const get = "GET /api/buddy HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"

  // systemd-socket-activate makes the socket (always 0644, its owner the caller) and starts buddy at
  // the first connection: before that, the test gives the socket the mode and group buddy.socket's
  // SocketMode= and SocketGroup= would.
  const cases = [
    { mode: 0o600, group: undefined },
    ...(isRoot ? [{ mode: 0o660, group: "www-data" }] : [])
  ] as const

  for (const { group, mode } of cases) {
    it(`buddy serve serves on the socket systemd hands it (fd 3), mode ${mode.toString(8)}${group === undefined ? "" : ` of group ${group} (socketGroup)`}, asking Hermes as for its own`, async () => {
      const { gateway, serve, socket } = await activated(group === undefined ? {} : { socketGroup: group })
      await until("the activated socket", async () => (await fs.lstat(socket).catch(() => undefined)) !== undefined)
      if (group !== undefined) await fs.chown(socket, 0, groupId(group))
      await fs.chmod(socket, mode)
      const made = await fs.lstat(socket)
      const parsed = parseAnswer(await exchange(socket, get))
      expect([parsed.status, JSON.parse(parsed.body)]).toStrictEqual([
        "HTTP/1.1 200 OK",
        { kind: "buddy", state: "waits", signIn: { state: "none" }, locale: "en" }
      ])
      const heard = (await gateway.received()).map((entry) =>
        entry.channel === "control"
          ? (JSON.parse(entry.line) as { verb: string }).verb
          : `${entry.method} ${entry.path}`
      )
      expect(heard).toStrictEqual(["identify", "session-ticket", "GET /api/providers/oauth"])
      expect(await serve.stderrWith("listening on")).toContainEqual(expect.stringContaining(socket))
      // The socket systemd made, as it made it: not one buddy made in its place.
      const after = await fs.lstat(socket)
      expect([after.ino, after.isSocket(), after.mode & 0o777, after.gid]).toStrictEqual([
        made.ino,
        true,
        mode,
        made.gid
      ])
    })
  }

  it("a socket systemd made open to others is refused before Hermes is asked", async () => {
    const { gateway, serve, socket } = await activated({})
    await until("the activated socket", async () => (await fs.lstat(socket).catch(() => undefined)) !== undefined)
    await fs.chmod(socket, 0o666)
    expect(await exchange(socket, get)).toBe("")
    const finished = await serve.finished
    expect(finished.code).toBe(1)
    expect(finished.stderr.filter((line) => line.startsWith("buddy serve:"))).toStrictEqual([
      expect.stringContaining(socket)
    ])
    expect(await gateway.received()).toStrictEqual([])
  })
})
