// Who reaches `buddy serve` (C6 "Who may reach it", D22, D40, docs/security.md), over the wire,
// through the real executable, with the fake gateway in the test process (another process than
// buddy's): another account is refused by the kernel on the owner-only socket and on a socket
// shared with a group it is not in, Hermes is asked nothing and the journal has no line; the owner
// and the group's members are served; a rebinding `Host` is refused on GET and POST and said on
// stderr once, two Hosts are 400; an absolute-form target naming this server is served. The other
// account is a client spawned with Node's uid/gid options, so these need root: without it they
// say so and skip, and in CI they fail.
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import { request } from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { FakeGatewayHandle } from "../../fixtures/fake-gateway.js"
import { BIN, spawnBuddy } from "../cli/support/buddy-process.js"
import { fakeGateway, tempDir } from "../cli/support/cleanup.js"
import { onPath, requires } from "../support/required.js"
import { unixExchangeAs } from "../support/unix-exchange.js"
import { LAUNCHPAD, serveConfig } from "./support/serve-child.js"

const nobody = 65534
const hasStrace = requires(onPath("strace"), "strace", "apt-get install strace")
const isRoot = process.getuid?.() === 0
const inCi = process.env["CI"] !== undefined && process.env["CI"] !== ""

if (!isRoot) {
  console.log("test/boundary/listener-trust: the other-account cases need root to spawn a client as uid 65534; skipped")
}

/** Root-only cases: skipped with a word locally, failing in CI (where the suite runs as root). */
const asRoot = isRoot || inCi ? it : it.skip
/** Root and strace (to see every bind, listen and open buddy serve makes). */
const asRootWithStrace = hasStrace ? asRoot : it.skip
const needRoot = () => {
  if (!isRoot) throw new Error("CI runs this suite as root: the other-account cases cannot be skipped there")
}

const startRequest = (host: string) =>
  `POST /api/buddy/sign-in/start HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${LAUNCHPAD}\r\nSec-Fetch-Site: same-origin\r\n` +
  `Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`

const getRequest = (host: string, target = "/api/buddy") =>
  `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`

/** A raw exchange in a client that runs as `uid` (another account, in group `gid`), or as ourselves without one. */
const exchange = (to: { path: string }, raw: string, uid?: number, gid: number | undefined = uid) =>
  unixExchangeAs(to.path, raw, uid === undefined ? undefined : { uid, gid: gid ?? uid })

/** `GET /api/buddy` from this process over the socket: the status and body. */
const getOver = (socketPath: string) =>
  new Promise<string>((resolve, reject) => {
    const req = request({ socketPath, path: "/api/buddy", agent: false }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve(`${res.statusCode ?? 0} ${text}`))
    })
    req.on("error", reject)
    req.end()
  })

/** A socket file whose server was killed (SIGKILL), so nothing removed it and nothing answers on it. */
const staleSocket = (socketPath: string) =>
  new Promise<void>((resolve, reject) => {
    const program = `require("node:net").createServer().listen(${JSON.stringify(socketPath)}, () => console.log("up"))`
    const child = spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "inherit"] })
    child.stdout.once("data", () => child.kill("SIGKILL"))
    child.on("error", reject)
    child.on("close", () => resolve())
  })

const statusOf = (bytes: string) => bytes.split("\r\n")[0] ?? ""
const bodyOf = (bytes: string) => bytes.slice(bytes.indexOf("\r\n\r\n") + 4)

/** The socket's directory is made 0755-safe for the test: buddy makes its own directory inside. */
const onSocket = async (fake: FakeGatewayHandle, extra: Record<string, unknown> = {}) => {
  const runtime = await tempDir("buddy-trust-runtime-", 0o755)
  const socket = path.join(runtime, "buddy", "serve.sock")
  const serve = spawnBuddy(["serve", "--config", await serveConfig(fake.home, extra), "--socket", socket])
  await serve.stderrWith("listening on")
  return { serve, socket }
}

/** A gid no account on this machine has as its own: the proxy's group in these tests. */
const proxyGroup = 4242

const works = "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
const hostRefused = "{\"error\":\"denied\",\"reason\":\"host-mismatch\"}"

describe("buddy serve answers only its own account", { timeout: 30_000 }, () => {
  asRoot("on its socket: another account cannot connect, Hermes is asked nothing; the owner is served", async () => {
    needRoot()
    const fake = await fakeGateway()
    const { serve, socket } = await onSocket(fake)
    const directory = await fs.lstat(path.dirname(socket))
    const node = await fs.lstat(socket)
    expect({ directory: directory.mode & 0o777, socket: node.mode & 0o777, kind: node.isSocket() }).toStrictEqual({
      directory: 0o700,
      socket: 0o600,
      kind: true
    })
    for (const raw of [getRequest("localhost"), startRequest("localhost")]) {
      expect(await exchange({ path: socket }, raw, nobody)).toStrictEqual({ bytes: "", error: "EACCES" })
    }
    expect(fake.received).toStrictEqual([])
    expect(serve.stdoutNow()).toStrictEqual([])
    const owner = await exchange({ path: socket }, getRequest("localhost"))
    expect([statusOf(owner.bytes), bodyOf(owner.bytes)]).toStrictEqual(["HTTP/1.1 200 OK", works])
    expect(fake.received.length).toBeGreaterThan(0)
  })

  asRoot(
    "shared with socketGroup: its members are served, another account cannot connect, Hermes is asked nothing",
    async () => {
      needRoot()
      const fake = await fakeGateway()
      const { serve, socket } = await onSocket(fake, { socketGroup: proxyGroup })
      const directory = await fs.lstat(path.dirname(socket))
      const node = await fs.lstat(socket)
      expect({
        directory: [directory.mode & 0o777, directory.gid],
        socket: [node.mode & 0o777, node.gid, node.isSocket()]
      }).toStrictEqual({ directory: [0o710, proxyGroup], socket: [0o660, proxyGroup, true] })
      for (const raw of [getRequest("localhost"), startRequest("localhost")]) {
        expect(await exchange({ path: socket }, raw, nobody)).toStrictEqual({ bytes: "", error: "EACCES" })
      }
      expect(fake.received).toStrictEqual([])
      expect(serve.stdoutNow()).toStrictEqual([])
      const member = await exchange({ path: socket }, startRequest("localhost"), nobody, proxyGroup)
      expect(statusOf(member.bytes)).toBe("HTTP/1.1 200 OK")
      expect(JSON.parse(bodyOf(member.bytes))).toMatchObject({ kind: "sign-in", state: "pending" })
      expect(serve.stdoutNow()).toStrictEqual([
        "{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}"
      ])
    }
  )

  asRoot("shares its socket with a group named in /etc/group", async () => {
    needRoot()
    const fake = await fakeGateway()
    const { socket } = await onSocket(fake, { socketGroup: "www-data" })
    const www = Number((await fs.readFile("/etc/group", "utf8")).match(/^www-data:[^:]*:([0-9]+):/m)?.[1])
    expect((await fs.lstat(socket)).gid).toBe(www)
    const member = await exchange({ path: socket }, getRequest("localhost"), nobody, www)
    expect([statusOf(member.bytes), bodyOf(member.bytes)]).toStrictEqual(["HTTP/1.1 200 OK", works])
  })
  asRootWithStrace(
    "under another account's loopback flood it has no TCP door and reads no TCP table; every request on its socket is answered",
    async () => {
      needRoot()
      const fake = await fakeGateway()
      const runtime = await tempDir("buddy-trust-flood-", 0o755)
      const socket = path.join(runtime, "buddy", "serve.sock")
      const trace = path.join(runtime, "trace")
      const serve = spawnBuddy(["serve", "--config", await serveConfig(fake.home), "--socket", socket], {
        command: [
          "strace",
          "-f",
          "-qq",
          "--seccomp-bpf",
          "-e",
          "trace=openat,bind,listen",
          "-o",
          trace,
          process.execPath,
          BIN
        ]
      })
      await serve.stderrWith("listening on")
      // Another account holds 2 000 loopback pairs open and connects in a loop while the owner reads.
      const flood = spawn(process.execPath, [
        "-e",
        `
        const net = require("node:net")
        const held = []
        const server = net.createServer((s) => held.push(s)).listen(0, "127.0.0.1", () => {
          const { port } = server.address()
          let open = 0
          for (let i = 0; i < 2000; i++) net.connect(port, "127.0.0.1", () => { if (++open === 2000) console.log("holding") }).on("error", () => {})
          const churn = () => net.connect(port, "127.0.0.1", function () { this.destroy(); setTimeout(churn, 2) }).on("error", () => setTimeout(churn, 2))
          churn()
        })
      `
      ], { uid: nobody, gid: nobody, stdio: ["ignore", "pipe", "inherit"] })
      try {
        await new Promise<void>((resolve) => flood.stdout.once("data", () => resolve()))
        const reads: Array<string> = []
        for (let n = 0; n < 20; n++) reads.push(await getOver(socket))
        expect(new Set(reads)).toStrictEqual(new Set([`200 ${works}`]))
      } finally {
        flood.kill("SIGKILL")
      }
      // strace passes no signal on: buddy serve, its child, is stopped, and strace ends with it.
      const strace = serve.child.pid ?? 0
      const traced = (await fs.readFile(`/proc/${strace}/task/${strace}/children`, "utf8")).trim().split(" ")
      traced.forEach((pid) => process.kill(Number(pid), "SIGTERM"))
      expect((await serve.finished).code).toBe(143)
      const calls = (await fs.readFile(trace, "utf8")).split("\n")
      expect(calls.filter((call) => call.includes("/proc/net/tcp"))).toStrictEqual([])
      // One listening socket, bound at the socket's path: nothing else listens, on TCP or anywhere.
      expect(calls.filter((call) => / listen\(/.test(call))).toHaveLength(1)
      expect(calls.filter((call) => / bind\(/.test(call)).map((call) => call.includes(`sun_path="${socket}"`)))
        .toStrictEqual([true])
    }
  )

  asRoot("refuses to share with a group its account is not in, and a group no file names", async () => {
    needRoot()
    const fake = await fakeGateway()
    const runtime = await tempDir("buddy-trust-member-", 0o755)
    await fs.mkdir(path.join(runtime, "buddy"), { mode: 0o700 })
    await fs.chown(path.join(runtime, "buddy"), nobody, nobody)
    const config = await serveConfig(fake.home, { socketGroup: proxyGroup })
    await fs.chmod(config, 0o644)
    await fs.chmod(path.dirname(config), 0o755)
    const socket = path.join(runtime, "buddy", "serve.sock")
    const notMember = spawnBuddy(["serve", "--config", config, "--socket", socket], { uid: nobody, gid: nobody })
    const finished = await notMember.finished
    expect({ code: finished.code, stderr: finished.stderr }).toStrictEqual({
      code: 1,
      stderr: [
        `buddy serve: this account (nobody) is not a member of the group ${proxyGroup} (socketGroup), so it cannot ` +
        `share ${path.dirname(socket)} with it; add it (sudo usermod -aG ${proxyGroup} nobody, or ` +
        `SupplementaryGroups=${proxyGroup} in its systemd unit) and start again.`
      ]
    })
    const unknown = spawnBuddy([
      "serve",
      "--config",
      await serveConfig(fake.home, { socketGroup: "no-such-group" }),
      "--socket",
      path.join(runtime, "unknown", "serve.sock")
    ])
    const refused = await unknown.finished
    expect({ code: refused.code, stderr: refused.stderr }).toStrictEqual({
      code: 2,
      stderr: [
        "buddy serve: the --config file's \"socketGroup\" names a group this machine does not have (/etc/group); " +
        "give an existing group or its gid."
      ]
    })
    expect(fake.received).toStrictEqual([])
  })
})

describe("buddy serve answers only under its own name", { timeout: 30_000 }, () => {
  it("refuses a rebinding Host on GET and POST, 403 host-mismatch, asks Hermes nothing, and says each name once", async () => {
    const fake = await fakeGateway()
    const { serve, socket } = await onSocket(fake)
    const refusedNames = [
      "evil.example",
      "evil.example",
      "127.0.0.1:8080",
      "localhost.",
      "launchpad.example:444"
    ]
    for (
      const raw of [
        ...refusedNames.map((host) => getRequest(host)),
        startRequest("evil.example"),
        // An absolute form naming another server is refused whatever Host says.
        getRequest("localhost", "http://evil.example/api/buddy"),
        getRequest("localhost", "https://localhost/api/buddy")
      ]
    ) {
      const refused = await exchange({ path: socket }, raw)
      expect([raw.split("\r\n")[0], statusOf(refused.bytes), bodyOf(refused.bytes)]).toStrictEqual([
        raw.split("\r\n")[0],
        "HTTP/1.1 403 Forbidden",
        hostRefused
      ])
      expect(refused.bytes).toContain("cache-control: no-store")
    }
    expect(fake.received).toStrictEqual([])
    expect(serve.stdoutNow()).toStrictEqual([])
    const accepted = "localhost, 127.0.0.1, [::1], launchpad.example"
    expect(serve.stderrNow().filter((line) => line.includes("refused"))).toStrictEqual(
      [
        "evil.example",
        "127.0.0.1:8080",
        "localhost.",
        "launchpad.example:444",
        "http://evil.example",
        "https://localhost"
      ]
        .map((name) =>
          `buddy serve: refused a request for ${
            JSON.stringify(name)
          } (403 host-mismatch): it serves only ${accepted}; ` +
          "a proxy must send one of them as Host."
        )
    )
  })

  it("answers 400 to a request with two Host fields, or none in HTTP/1.1, and asks Hermes nothing", async () => {
    const fake = await fakeGateway()
    const { socket } = await onSocket(fake)
    for (
      const raw of [
        "GET /api/buddy HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
        "GET /api/buddy HTTP/1.1\r\nHost: evil.example\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        "GET /api/buddy HTTP/1.1\r\nHost: localhost\r\nhost: localhost\r\nConnection: close\r\n\r\n",
        "GET /api/buddy HTTP/1.1\r\nConnection: close\r\n\r\n"
      ]
    ) {
      const refused = await exchange({ path: socket }, raw)
      expect([statusOf(refused.bytes), bodyOf(refused.bytes)]).toStrictEqual([
        "HTTP/1.1 400 Bad Request",
        "{\"error\":\"invalid-request\"}"
      ])
    }
    expect(fake.received).toStrictEqual([])
    // HTTP/1.0 has no Host to require.
    const old = await exchange({ path: socket }, "GET /api/buddy HTTP/1.0\r\n\r\n")
    expect(statusOf(old.bytes)).toBe("HTTP/1.1 403 Forbidden")
  })

  it("serves the socket's names and the Launchpad's host, in any case", async () => {
    const fake = await fakeGateway()
    const { socket } = await onSocket(fake)
    for (const host of ["localhost", "LocalHost", "127.0.0.1", "[::1]", "launchpad.example"]) {
      const served = await exchange({ path: socket }, getRequest(host))
      expect([host, statusOf(served.bytes), bodyOf(served.bytes)]).toStrictEqual([host, "HTTP/1.1 200 OK", works])
    }
  })

  it("serves an absolute-form target that names it, whatever Host says (RFC 9112 §3.2.2)", async () => {
    const fake = await fakeGateway()
    const { serve, socket } = await onSocket(fake)
    const read = await exchange({ path: socket }, getRequest("evil.example", "http://localhost/api/buddy"))
    expect([statusOf(read.bytes), bodyOf(read.bytes)]).toStrictEqual(["HTTP/1.1 200 OK", works])
    const query = await exchange({ path: socket }, getRequest("localhost", "http://127.0.0.1?x=1"))
    expect(bodyOf(query.bytes)).toBe("{\"error\":\"not-found\"}")
    const start = await exchange(
      { path: socket },
      startRequest("localhost").replace(
        "POST /api/buddy/sign-in/start",
        "POST http://launchpad.example/api/buddy/sign-in/start"
      )
    )
    expect(JSON.parse(bodyOf(start.bytes))).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(serve.stdoutNow()).toHaveLength(1)
  })
})

describe("buddy serve's socket place", { timeout: 30_000 }, () => {
  /** The running account's name, as the words name it. */
  const self = process.getuid?.() === 0 ? "root" : String(process.env["USER"])
  const refusedAt = async (socket: string, words: string) => {
    const fake = await fakeGateway()
    const serve = spawnBuddy(["serve", "--config", await serveConfig(fake.home), "--socket", socket])
    const finished = await serve.finished
    expect({ code: finished.code, stderr: finished.stderr, stdout: finished.stdout }).toStrictEqual({
      code: 1,
      stderr: [words],
      stdout: []
    })
    expect(fake.received).toStrictEqual([])
  }

  it("refuses a directory that others may enter, naming its mode and the fix", async () => {
    const dir = await tempDir("buddy-trust-open-", 0o755)
    await refusedAt(
      path.join(dir, "serve.sock"),
      `buddy serve: the socket's directory ${dir} has mode 0755: the group and others may enter it. Choose a --socket ` +
        `in a directory closed to others (make buddy a directory of its own, as root: install -d -o ${self} -m 0700 DIR).`
    )
  })

  it("refuses a directory that is a symbolic link", async () => {
    const dir = await tempDir("buddy-trust-link-", 0o700)
    await fs.mkdir(path.join(dir, "real"), { mode: 0o700 })
    await fs.symlink(path.join(dir, "real"), path.join(dir, "link"))
    await refusedAt(
      path.join(dir, "link", "serve.sock"),
      `buddy serve: the socket's directory ${
        path.join(dir, "link")
      } is a symbolic link; buddy does not follow one. Choose a real directory with --socket.`
    )
  })

  asRoot("refuses a directory owned by another account", async () => {
    needRoot()
    const dir = await tempDir("buddy-trust-foreign-", 0o700)
    await fs.chown(dir, nobody, nobody)
    await refusedAt(
      path.join(dir, "serve.sock"),
      `buddy serve: the socket's directory ${dir} belongs to nobody (uid 65534); buddy runs as root. ` +
        "Choose a --socket in a directory of root's own."
    )
  })

  it("refuses a path that is not a socket, and one where another server listens", async () => {
    const dir = await tempDir("buddy-trust-taken-", 0o700)
    const file = path.join(dir, "file.sock")
    await fs.writeFile(file, "keep me")
    await refusedAt(
      file,
      `buddy serve: ${file} exists and is not a socket; buddy replaces only a socket of its own. ` +
        `Look at it (ls -la ${file}), or choose another --socket.`
    )
    expect(await fs.readFile(file, "utf8")).toBe("keep me")
    const live = path.join(dir, "live.sock")
    const holder = net.createServer()
    await new Promise<void>((resolve) => holder.listen(live, resolve))
    try {
      await refusedAt(
        live,
        `buddy serve: another server is listening on ${live} (another buddy serve?); stop it or choose another --socket.`
      )
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })

  it("refuses a missing parent directory and a path too long for a socket", async () => {
    const dir = await tempDir("buddy-trust-missing-", 0o700)
    await refusedAt(
      path.join(dir, "a", "b", "serve.sock"),
      `buddy serve: ${path.join(dir, "a")} does not exist; create it (mkdir -p ${
        path.join(dir, "a")
      }) or choose another --socket.`
    )
    const long = path.join(dir, "x".repeat(120), "serve.sock")
    await refusedAt(
      long,
      `buddy serve: the socket path ${long} is longer than 107 bytes, the most a Unix socket may have; ` +
        "choose a shorter --socket."
    )
  })

  it("replaces a stale socket of its own in its runtime directory, and never looks in $TMPDIR", async () => {
    const tmp = await tempDir("buddy-trust-tmp-", 0o700)
    const fake = await fakeGateway()
    const directory = path.join(tmp, "buddy")
    await fs.mkdir(directory, { mode: 0o700 })
    const socket = path.join(directory, "serve.sock")
    // A socket left by a server killed before it could remove it: nothing listens on it.
    await staleSocket(socket)
    expect((await fs.lstat(socket)).isSocket()).toBe(true)
    const serve = spawnBuddy(["serve", "--config", await serveConfig(fake.home)], {
      env: { XDG_RUNTIME_DIR: tmp, TMPDIR: "/nonexistent" }
    })
    expect(await serve.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${socket}`)
    expect(bodyOf((await exchange({ path: socket }, getRequest("localhost"))).bytes)).toBe(works)
  })

  it("makes its runtime directory 0700 under $XDG_RUNTIME_DIR, whatever the umask", async () => {
    const runtime = await tempDir("buddy-trust-xdg-", 0o700)
    const fake = await fakeGateway()
    const serve = spawnBuddy(["serve", "--config", await serveConfig(fake.home)], {
      env: { XDG_RUNTIME_DIR: runtime },
      command: ["/bin/sh", "-c", "umask 277; exec \"$0\" \"$@\"", process.execPath, BIN]
    })
    const socket = path.join(runtime, "buddy", "serve.sock")
    expect(await serve.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${socket}`)
    expect((await fs.lstat(path.dirname(socket))).mode & 0o777).toBe(0o700)
    expect((await fs.lstat(socket)).mode & 0o777).toBe(0o600)
  })
})
