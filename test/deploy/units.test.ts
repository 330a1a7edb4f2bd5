// The systemd units the package ships (systemd/; issue 24 item 4): each passes Debian's
// `systemd-analyze verify` offline with nothing to say (it warns on a bad key or value and still
// exits 0, so silence is the check; a deliberately broken copy of each proves the check can fail),
// with only ExecStart's binary rewritten to the built CLI, which verify requires to exist. The
// socket's place under each unit agrees with what the guide's proxy snippets and the .socket unit
// name, and the built CLI, given the environment each unit gives it, listens exactly there. Last,
// socket activation as systemd does it (systemd-socket-activate: LISTEN_PID, LISTEN_FDS=1, fd 3).
import { spawnSync } from "node:child_process"
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { spawnBuddy } from "../cli/support/buddy-process.js"
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
const INSTALLED = "/usr/local/bin/buddy"

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
    expect(group).toBe("www-data")
    expect(unitValue("system/buddy.socket", "SocketGroup")).toBe(group)
    expect(unitValue("system/buddy.socket", "SocketMode")).toBe("0660")
    expect(unitValue("system/buddy.socket", "SocketUser")).toBe(unitValue("system/buddy.service", "User"))
    expect(unitValue("system/buddy.service", "RuntimeDirectoryMode")).toBe("0700")
    for (const file of ["buddy.service", "system/buddy.service"]) {
      expect([file, unitValue(file, "SuccessExitStatus"), unitValue(file, "Restart")]).toStrictEqual([
        file,
        "130 143",
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
    await fs.writeFile(
      file,
      JSON.stringify({
        hermesHome: home,
        launchpadOrigin: "https://launchpad.example",
        buddyOrigin: "https://buddy.example",
        environment: "hosted-personal",
        locale: "en"
      })
    )
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
    chmodSync(dir, 0o700)
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
