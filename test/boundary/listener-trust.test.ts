// Who reaches `buddy serve` (C6 "Who may reach it", D22, docs/security.md), over the wire, through
// the real executable, with the fake gateway in the test process (another process than buddy's):
// another account is refused on the owner-only socket (by the kernel) and on TCP (closed before a
// byte), Hermes is asked nothing and the journal has no line; the owner and allowed accounts are
// served; a rebinding `Host` is refused on GET and POST; an absolute-form target naming this
// server is served. The other account is a client spawned with Node's uid/gid options, so these
// need root: without it they say so and skip, and in CI they fail.
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { FakeGatewayHandle } from "../../fixtures/fake-gateway.js"
import { BIN, spawnBuddy } from "../cli/support/buddy-process.js"
import { fakeGateway, tempDir } from "../cli/support/cleanup.js"
import { LAUNCHPAD, serveConfig, serveTcp } from "./support/serve-child.js"

const nobody = 65534
const isRoot = process.getuid?.() === 0
const inCi = process.env["CI"] !== undefined && process.env["CI"] !== ""

if (!isRoot) {
  console.log("test/boundary/listener-trust: the other-account cases need root to spawn a client as uid 65534; skipped")
}

/** Root-only cases: skipped with a word locally, failing in CI (where the suite runs as root). */
const asRoot = isRoot || inCi ? it : it.skip
const needRoot = () => {
  if (!isRoot) throw new Error("CI runs this suite as root: the other-account cases cannot be skipped there")
}

const startRequest = (host: string) =>
  `POST /api/buddy/sign-in/start HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${LAUNCHPAD}\r\nSec-Fetch-Site: same-origin\r\n` +
  `Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`

const getRequest = (host: string, target = "/api/buddy") =>
  `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`

/** What came back on one connection: every byte until it closed, or the connect error's code. */
interface Exchange {
  readonly bytes: string
  readonly error?: string
}

/** A raw exchange in a client that runs as `uid` (another account), or as ourselves without one. */
const exchange = (to: { port: number } | { path: string }, raw: string, uid?: number): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const program = `
      const net = require("node:net")
      const socket = net.connect(${JSON.stringify(to)})
      let bytes = ""
      let error
      socket.setEncoding("latin1")
      socket.on("connect", () => socket.write(${JSON.stringify(raw)}))
      socket.on("data", (chunk) => (bytes += chunk))
      socket.on("error", (e) => (error = e.code))
      socket.on("close", () => process.stdout.write(JSON.stringify(error === undefined ? { bytes } : { bytes, error })))
    `
    const child = spawn(process.execPath, ["-e", program], {
      cwd: "/",
      stdio: ["ignore", "pipe", "pipe"],
      ...(uid === undefined ? {} : { uid, gid: uid })
    })
    let out = ""
    let err = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk))
    child.on("error", reject)
    child.on("close", () => {
      if (out === "") reject(new Error(`the client printed nothing: ${err}`))
      else resolve(JSON.parse(out) as Exchange)
    })
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

const onTcp = (fake: FakeGatewayHandle, extra: Record<string, unknown> = {}) => serveTcp(fake.home, { extra })

/** The socket's directory is made 0755-safe for the test: buddy makes its own 0700 directory inside. */
const onSocket = async (fake: FakeGatewayHandle) => {
  const runtime = await tempDir("buddy-trust-runtime-", 0o755)
  const socket = path.join(runtime, "buddy", "serve.sock")
  const serve = spawnBuddy(["serve", "--config", await serveConfig(fake.home), "--socket", socket])
  await serve.stderrWith("listening on")
  return { serve, socket }
}

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
    "on TCP: another account's connection is closed unanswered, Hermes is asked nothing, no journal line",
    async () => {
      needRoot()
      const fake = await fakeGateway()
      const { port, serve } = await onTcp(fake)
      const host = `127.0.0.1:${port}`
      for (
        const raw of [getRequest(host), startRequest(host), "GET /api/buddy HTTP/1.1\r\nContent-Length: abc\r\n\r\n"]
      ) {
        const refused = await exchange({ port }, raw, nobody)
        expect(refused.bytes).toBe("")
      }
      expect(fake.received).toStrictEqual([])
      expect(serve.stdoutNow()).toStrictEqual([])
      expect(serve.stderrNow().filter((line) => line.includes("refused"))).toStrictEqual([
        "buddy serve: refused a connection from nobody (uid 65534): only this account and the config's " +
        "allowedAccounts may connect; its refusals are not repeated."
      ])
      const owner = await exchange({ port }, startRequest(host))
      expect(statusOf(owner.bytes)).toBe("HTTP/1.1 200 OK")
      expect(JSON.parse(bodyOf(owner.bytes))).toMatchObject({ kind: "sign-in", state: "pending" })
      expect(serve.stdoutNow()).toStrictEqual([
        "{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}"
      ])
    }
  )

  for (const allowed of [["nobody"], [nobody]] as const) {
    asRoot(`on TCP: an account the config allows (${JSON.stringify(allowed)}) is served`, async () => {
      needRoot()
      const fake = await fakeGateway()
      const { port } = await onTcp(fake, { allowedAccounts: allowed })
      const served = await exchange({ port }, getRequest(`127.0.0.1:${port}`), nobody)
      expect([statusOf(served.bytes), bodyOf(served.bytes)]).toStrictEqual(["HTTP/1.1 200 OK", works])
      expect(fake.received.filter((entry) => entry.channel === "http").map((entry) => entry.path)).toStrictEqual([
        "/api/providers/oauth"
      ])
    })
  }
})

describe("buddy serve answers only under its own name", { timeout: 30_000 }, () => {
  it("refuses a rebinding Host on GET and POST, 403 host-mismatch, and asks Hermes nothing", async () => {
    const fake = await fakeGateway()
    const { port, serve } = await onTcp(fake)
    for (
      const raw of [
        getRequest(`evil.example:${port}`),
        startRequest(`evil.example:${port}`),
        getRequest(`127.0.0.1:${port + 1}`),
        getRequest("127.0.0.1"),
        getRequest("localhost.:" + port),
        "GET /api/buddy HTTP/1.0\r\n\r\n",
        // An absolute form naming another server is refused whatever Host says.
        getRequest(`127.0.0.1:${port}`, `http://evil.example:${port}/api/buddy`),
        getRequest(`127.0.0.1:${port}`, `https://127.0.0.1:${port}/api/buddy`)
      ]
    ) {
      const refused = await exchange({ port }, raw)
      expect([raw.split("\r\n")[0], statusOf(refused.bytes), bodyOf(refused.bytes)]).toStrictEqual([
        raw.split("\r\n")[0],
        "HTTP/1.1 403 Forbidden",
        hostRefused
      ])
      expect(refused.bytes).toContain("cache-control: no-store")
    }
    expect(fake.received).toStrictEqual([])
    expect(serve.stdoutNow()).toStrictEqual([])
  })

  it("serves its loopback names with its port and the Launchpad's host, in any case", async () => {
    const fake = await fakeGateway()
    const { port } = await onTcp(fake)
    for (
      const host of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `LocalHost:${port}`,
        `[::1]:${port}`,
        "launchpad.example"
      ]
    ) {
      const served = await exchange({ port }, getRequest(host))
      expect([host, statusOf(served.bytes), bodyOf(served.bytes)]).toStrictEqual([host, "HTTP/1.1 200 OK", works])
    }
  })

  it("serves an absolute-form target that names it, whatever Host says (RFC 9112 §3.2.2)", async () => {
    const fake = await fakeGateway()
    const { port, serve } = await onTcp(fake)
    const read = await exchange({ port }, getRequest("evil.example", `http://127.0.0.1:${port}/api/buddy`))
    expect([statusOf(read.bytes), bodyOf(read.bytes)]).toStrictEqual(["HTTP/1.1 200 OK", works])
    const query = await exchange({ port }, getRequest(`localhost:${port}`, `http://localhost:${port}?x=1`))
    expect(bodyOf(query.bytes)).toBe("{\"error\":\"not-found\"}")
    const start = await exchange(
      { port },
      startRequest(`127.0.0.1:${port}`).replace(
        "POST /api/buddy/sign-in/start",
        `POST http://127.0.0.1:${port}/api/buddy/sign-in/start`
      )
    )
    expect(JSON.parse(bodyOf(start.bytes))).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(serve.stdoutNow()).toHaveLength(1)
  })

  it("on its socket serves localhost and refuses another name", async () => {
    const fake = await fakeGateway()
    const { socket } = await onSocket(fake)
    const served = await exchange({ path: socket }, getRequest("localhost"))
    expect(bodyOf(served.bytes)).toBe(works)
    const refused = await exchange({ path: socket }, getRequest("evil.example"))
    expect([statusOf(refused.bytes), bodyOf(refused.bytes)]).toStrictEqual(["HTTP/1.1 403 Forbidden", hostRefused])
  })
})

describe("buddy serve's socket place", { timeout: 30_000 }, () => {
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
      `buddy serve: the socket's directory ${dir} has mode 0755: others may enter it; run chmod 700 ${dir}.`
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
      `buddy serve: the socket's directory ${dir} belongs to nobody (uid 65534), not to you; ` +
        `remove it (rm -r ${dir}) or choose another --socket.`
    )
  })

  it("refuses a path that is not a socket, and one where another server listens", async () => {
    const dir = await tempDir("buddy-trust-taken-", 0o700)
    const file = path.join(dir, "file.sock")
    await fs.writeFile(file, "keep me")
    await refusedAt(
      file,
      `buddy serve: ${file} exists and is not a socket; buddy replaces only a socket of its own. ` +
        "Remove it or choose another --socket."
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

  it("replaces a stale socket of its own, under $TMPDIR/buddy-UID without XDG_RUNTIME_DIR", async () => {
    const tmp = await tempDir("buddy-trust-tmp-", 0o755)
    const fake = await fakeGateway()
    const directory = path.join(tmp, `buddy-${process.getuid?.() ?? -1}`)
    await fs.mkdir(directory, { mode: 0o700 })
    const socket = path.join(directory, "serve.sock")
    // A socket left by a server killed before it could remove it: nothing listens on it.
    await staleSocket(socket)
    expect((await fs.lstat(socket)).isSocket()).toBe(true)
    const serve = spawnBuddy(["serve", "--config", await serveConfig(fake.home)], { env: { TMPDIR: tmp } })
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
