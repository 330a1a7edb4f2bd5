// One holder per Hermes home on the whole machine (C4.1, D39), between real processes: `buddy
// serve` and the `buddy` CLI (the built executable), with the fake gateway in a process of its own.
// While one holds a sign-in, the other's start and sign-out are blocked in words naming the holder,
// and Hermes hears nothing of them. The lock runs no outside program (no flock on PATH), is in one
// place whatever the session's environment says, goes at once when its holder is killed (the dead
// holder's leftovers swept), admits exactly one of many processes racing for it, and a place that
// another account made is refused lock-unavailable with words naming the path, never taken as
// held (root only: skipped locally without it, failing in CI).
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { buddy, spawnBuddy } from "../cli/support/buddy-process.js"
import { tempDir } from "../cli/support/cleanup.js"
import { gatewayProcess } from "../support/gateway-process.js"
import { postSameOrigin, serveSocket } from "./support/serve-child.js"

const isRoot = process.getuid?.() === 0
const inCi = process.env["CI"] !== undefined && process.env["CI"] !== ""
const asRoot = isRoot || inCi ? it : it.skip
if (!isRoot) console.log("test/boundary/holder-lock: the other-account cases need root (uid 65534); skipped")

const nobody = 65534

const heldElsewhere = (pid: number | undefined) =>
  `Another buddy (process ${pid}) holds a sign-in for this Hermes, so nothing was changed. ` +
  "Its lock goes when that sign-in ends or that buddy stops."

const blockedLine = (reason: string) => `{"kind":"blocked","reason":"${reason}"}`

const areaOf = (home: string) => path.join(home, ".buddy-lock")
const holderOf = (home: string) => path.join(areaOf(home), "holder")

/** The start requests Hermes received since the last clear. */
const startsReceived = async (gateway: Awaited<ReturnType<typeof gatewayProcess>>) =>
  (await gateway.received()).filter((entry) => entry.channel === "http" && entry.path.endsWith("/start")).length

type Received = Awaited<ReturnType<Awaited<ReturnType<typeof gatewayProcess>>["received"]>>

const isPoll = (entry: Received[number]) =>
  entry.channel === "http" && entry.method === "GET" && entry.path.includes("/poll/")

/**
 * What Hermes received from anyone but a terminal holding a sign-in, which polls every
 * poll_interval (an identify, a ticket, a GET of its session): on a busy machine a poll comes
 * within a test's steps. Its control exchanges are taken out only if there are exactly two per
 * poll; any other exchange stays, to be seen.
 */
const apartFromPolls = (received: Received) => {
  const rest = received.filter((entry) => !isPoll(entry))
  const control = rest.filter((entry) => entry.channel === "control")
  return control.length === 2 * (received.length - rest.length)
    ? rest.filter((entry) => entry.channel !== "control")
    : rest
}

/** A PATH with `node` in it and nothing else: no flock, no util-linux, as in a minimal image or on macOS. */
const nodeOnlyPath = async () => {
  const bin = await tempDir("buddy-node-only-")
  await fs.symlink(process.execPath, path.join(bin, "node"))
  return bin
}

describe("one holder per Hermes home across processes", { timeout: 60_000 }, () => {
  it("while buddy serve holds a sign-in, the CLI's sign-out and start are blocked naming it, and Hermes hears nothing", async () => {
    const gateway = await gatewayProcess({ signedIn: true })
    const { at, serve } = await serveSocket(gateway.home)
    const started = await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")
    expect(started.status).toBe(200)
    const { handle } = JSON.parse(started.body) as { readonly handle: string }
    await gateway.clearReceived()

    for (const args of [["sign-out"], ["sign-in", "start"]]) {
      const words = await buddy([...args, "--home", gateway.home])
      expect({ args, code: words.code, stdout: words.stdout, stderr: words.stderr }).toStrictEqual({
        args,
        code: 4,
        stdout: [],
        stderr: [heldElsewhere(serve.child.pid)]
      })
      const json = await buddy([...args, "--json", "--home", gateway.home])
      expect({ code: json.code, stdout: json.stdout }).toStrictEqual({
        code: 4,
        stdout: [blockedLine("sign-in-running")]
      })
    }
    // Not even an identify: the lock is checked before anything is sent.
    expect(await gateway.received()).toStrictEqual([])
    expect(await gateway.signedIn()).toBe(true)
    // The holder's directory names the holder and holds nothing but its socket.
    expect(await fs.readFile(path.join(holderOf(gateway.home), "pid"), "utf8")).toBe(`${serve.child.pid}\n`)
    expect((await fs.readdir(holderOf(gateway.home))).toSorted()).toStrictEqual(["pid", "s"])

    // The person approves; the holder reads it, lets the lock go, and the terminal's sign-out then runs.
    const [session] = await gateway.sessions()
    expect(await gateway.approve(session!.id)).toBe(true)
    expect(await postSameOrigin(at, "/api/buddy/sign-in/poll", JSON.stringify({ handle }))).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"sign-in\",\"state\":\"signed-in\"}"
    })
    const out = await buddy(["sign-out", "--json", "--home", gateway.home])
    expect({ code: out.code, stdout: out.stdout }).toStrictEqual({
      code: 0,
      stdout: ["{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"]
    })
    expect(await gateway.signedIn()).toBe(false)
  })

  it("needs no flock: with only node on PATH a sign-in holds, a second process is blocked naming it, and sign-out works", async () => {
    const gateway = await gatewayProcess({ signedIn: true })
    const env = { PATH: await nodeOnlyPath() }
    const terminal = spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home], { env })
    expect(JSON.parse((await terminal.stdoutLines(1))[0]!)).toMatchObject({ kind: "sign-in", state: "pending" })
    await gateway.clearReceived()
    const words = await buddy(["sign-out", "--home", gateway.home], { env })
    expect({ code: words.code, stderr: words.stderr }).toStrictEqual({
      code: 4,
      stderr: [heldElsewhere(terminal.child.pid)]
    })
    const json = await buddy(["sign-in", "start", "--json", "--home", gateway.home], { env })
    expect({ code: json.code, stdout: json.stdout }).toStrictEqual({
      code: 4,
      stdout: [blockedLine("sign-in-running")]
    })
    expect(apartFromPolls(await gateway.received())).toStrictEqual([])
    expect(await gateway.signedIn()).toBe(true)

    // Ctrl-C cancels the terminal's sign-in and lets the lock go; the sign-out then runs.
    terminal.child.kill("SIGINT")
    expect((await terminal.finished).code).toBe(130)
    const out = await buddy(["sign-out", "--json", "--home", gateway.home], { env })
    expect({ code: out.code, stdout: out.stdout }).toStrictEqual({
      code: 0,
      stdout: ["{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"]
    })
    expect(await gateway.signedIn()).toBe(false)
  })

  it("is one lock whatever XDG_RUNTIME_DIR says: a login's terminal, a service with another, a cron job with none", async () => {
    const gateway = await gatewayProcess()
    const [login, service] = [await tempDir("buddy-run-login-", 0o700), await tempDir("buddy-run-service-", 0o700)]
    const terminal = spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home], {
      env: { XDG_RUNTIME_DIR: login }
    })
    await terminal.stdoutLines(1)
    await gateway.clearReceived()
    const { at } = await serveSocket(gateway.home, { env: { XDG_RUNTIME_DIR: service } })
    expect(await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")).toStrictEqual({
      status: 409,
      body: blockedLine("sign-in-running")
    })
    // No XDG_RUNTIME_DIR, and no /run/user/UID on this machine.
    const cron = await buddy(["sign-in", "start", "--json", "--home", gateway.home], { env: { XDG_RUNTIME_DIR: "" } })
    expect({ code: cron.code, stdout: cron.stdout }).toStrictEqual({
      code: 4,
      stdout: [blockedLine("sign-in-running")]
    })
    expect(await startsReceived(gateway)).toBe(0)
    expect(await gateway.sessions()).toHaveLength(1)
    // Nothing of the lock in either runtime directory (buddy serve's socket alone: it listens on TCP here).
    expect([await fs.readdir(login), await fs.readdir(service)]).toStrictEqual([[], []])
  })

  it("a terminal holding a sign-in blocks buddy serve's start until it is killed with kill -9; then the next process takes the lock at once, and the dead processes' leftovers are swept", async () => {
    const gateway = await gatewayProcess({ signedIn: true })
    const terminal = spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home])
    expect(JSON.parse((await terminal.stdoutLines(1))[0]!)).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(await fs.readFile(path.join(holderOf(gateway.home), "pid"), "utf8")).toBe(`${terminal.child.pid}\n`)

    const { at, serve } = await serveSocket(gateway.home)
    // A second buddy serve that tried too: its own directory is there when it is killed.
    const other = await serveSocket(gateway.home)
    await gateway.clearReceived()
    for (const server of [at, other.at]) {
      expect(await postSameOrigin(server, "/api/buddy/sign-in/start", "{}")).toStrictEqual({
        status: 409,
        body: blockedLine("sign-in-running")
      })
    }
    expect(await gateway.received()).toStrictEqual([])
    const own = (pid: number | undefined) => (name: string) => name.startsWith(`p-${pid}-`)
    const before = await fs.readdir(areaOf(gateway.home))
    expect(
      [before.filter(own(serve.child.pid)), before.filter(own(other.serve.child.pid))].map((names) => names.length)
    )
      .toStrictEqual([1, 1])

    terminal.child.kill("SIGKILL")
    other.serve.child.kill("SIGKILL")
    await Promise.all([terminal.finished, other.serve.finished])
    // The killed holder's directory is still there, its socket dead: a sign-out takes the lock at once.
    expect(await fs.readFile(path.join(holderOf(gateway.home), "pid"), "utf8")).toBe(`${terminal.child.pid}\n`)
    const out = await buddy(["sign-out", "--json", "--home", gateway.home])
    expect({ code: out.code, stdout: out.stdout }).toStrictEqual({
      code: 0,
      stdout: ["{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"]
    })
    // Its first take swept the killed buddy serve's directory; its end removed its own. Only the live serve's is left.
    const after = await fs.readdir(areaOf(gateway.home))
    expect(after.length === 1 && own(serve.child.pid)(after[0]!)).toBe(true)
    const restarted = await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")
    expect(restarted.status).toBe(200)
    // The killed terminal cancelled nothing (C4.9); its session is left to Hermes.
    expect((await gateway.sessions()).map((session) => session.cancelled)).toStrictEqual([false, false])
  })

  it("eight processes starting at once, a killed holder's directory in the way: exactly one holds, seven are blocked, Hermes starts one", async () => {
    const gateway = await gatewayProcess()
    const killed = spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home])
    await killed.stdoutLines(1)
    killed.child.kill("SIGKILL")
    await killed.finished
    await gateway.clearReceived()
    const racers = Array.from({ length: 8 }, () => spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home]))
    const blocked = blockedLine("sign-in-running")
    const firstLines = await Promise.all(racers.map(async (racer) => (await racer.stdoutLines(1))[0]))
    const holders = firstLines.filter((line) => line !== blocked)
    expect({ holders: holders.length, blocked: firstLines.filter((line) => line === blocked).length }).toStrictEqual({
      holders: 1,
      blocked: 7
    })
    expect(JSON.parse(holders[0]!)).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(await startsReceived(gateway)).toBe(1)
    const holder = racers[firstLines.indexOf(holders[0])]!
    expect(await fs.readFile(path.join(holderOf(gateway.home), "pid"), "utf8")).toBe(`${holder.child.pid}\n`)
  })

  asRoot("another account cannot create in the home: nothing of its own can be where the lock goes", async () => {
    if (!isRoot) throw new Error("CI runs this suite as root: the other-account case cannot be skipped there")
    const gateway = await gatewayProcess()
    // Searchable by others, as C1 allows (0755); only the owner writes.
    await fs.chmod(gateway.home, 0o755)
    const attempt = (script: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["-e", script, areaOf(gateway.home)], {
          cwd: "/",
          uid: nobody,
          gid: nobody,
          stdio: ["ignore", "pipe", "ignore"]
        })
        let out = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
        child.on("error", reject)
        child.on("close", () => resolve(out))
      })
    const tryTo = (call: string) => `try { ${call}; console.log("made") } catch (e) { console.log(e.code) }`
    expect(await attempt(tryTo("require('fs').mkdirSync(process.argv[1])"))).toBe("EACCES\n")
    expect(await attempt(tryTo("require('fs').symlinkSync('/tmp', process.argv[1])"))).toBe("EACCES\n")
    expect(await attempt(tryTo("require('fs').writeFileSync(process.argv[1], '')"))).toBe("EACCES\n")
    const terminal = spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home])
    expect(JSON.parse((await terminal.stdoutLines(1))[0]!)).toMatchObject({ kind: "sign-in", state: "pending" })
    // Nor can it reach the area buddy made, to take or clear the lock.
    expect(await attempt(tryTo("require('fs').readdirSync(process.argv[1])"))).toBe("EACCES\n")
    const stats = await fs.lstat(areaOf(gateway.home))
    expect({ mode: stats.mode & 0o777, uid: stats.uid }).toStrictEqual({ mode: 0o700, uid: 0 })
  })

  asRoot(
    "a place another account made is refused lock-unavailable, in words naming the path, as HTTP 409 and --json; Hermes hears nothing",
    async () => {
      if (!isRoot) throw new Error("CI runs this suite as root: the other-account cases cannot be skipped there")
      const gateway = await gatewayProcess({ signedIn: true })
      const area = areaOf(gateway.home)
      const holder = holderOf(gateway.home)
      const { at } = await serveSocket(gateway.home)
      const first = "buddy could not take its sign-in lock for this Hermes, so nothing was changed."
      const places: ReadonlyArray<readonly [string, () => Promise<void>, ReadonlyArray<string>]> = [
        ["the area, another account's", async () => {
          await fs.mkdir(area, { mode: 0o700 })
          await fs.chown(area, nobody, nobody)
        }, [
          first,
          `${area} belongs to uid ${nobody}, not to you (uid 0).`,
          `Fix: while no buddy runs, remove buddy's own entry: sudo rm -r ${area} (buddy makes it again)`
        ]],
        ["the holder, another account's", async () => {
          // As a squatter would leave it: a pid in it (an empty directory is replaced by the rename, D39).
          await fs.mkdir(holder, { recursive: true, mode: 0o700 })
          await fs.writeFile(path.join(holder, "pid"), "4242\n")
          await fs.chown(path.join(holder, "pid"), nobody, nobody)
          await fs.chown(holder, nobody, nobody)
        }, [
          first,
          `${holder} belongs to uid ${nobody}, not to you (uid 0).`,
          `Fix: while no buddy runs, remove buddy's own entry: sudo rm -r ${holder} (buddy makes it again)`
        ]],
        ["the holder, a link", async () => {
          await fs.mkdir(area, { mode: 0o700 })
          await fs.symlink("/tmp", holder)
        }, [first, `${holder} is a symbolic link.`, `Fix: rm ${holder} (buddy makes its own there)`]],
        ["the holder, a file", async () => {
          await fs.mkdir(area, { mode: 0o700 })
          await fs.writeFile(holder, "4242\n")
        }, [first, `${holder} is not a directory.`, `Fix: rm ${holder} (buddy makes its own there)`]]
      ]
      for (const [what, make, words] of places) {
        await fs.rm(area, { recursive: true, force: true })
        await make()
        await gateway.clearReceived()
        for (const args of [["sign-in", "start"], ["sign-out"]]) {
          const said = await buddy([...args, "--home", gateway.home])
          expect({ what, args, code: said.code, stdout: said.stdout, stderr: said.stderr }).toStrictEqual({
            what,
            args,
            code: 4,
            stdout: [],
            stderr: words
          })
          const json = await buddy([...args, "--json", "--home", gateway.home])
          expect({ what, code: json.code, stdout: json.stdout }).toStrictEqual({
            what,
            code: 4,
            stdout: [blockedLine("lock-unavailable")]
          })
        }
        for (const route of ["/api/buddy/sign-in/start", "/api/buddy/sign-out"]) {
          expect({ what, route, answer: await postSameOrigin(at, route, "{}") }).toStrictEqual({
            what,
            route,
            answer: { status: 409, body: blockedLine("lock-unavailable") }
          })
        }
        expect({ what, received: await gateway.received() }).toStrictEqual({ what, received: [] })
      }
      expect(await gateway.signedIn()).toBe(true)
      expect(await gateway.sessions()).toStrictEqual([])
    },
    // Every place tried over HTTP and at the terminal, each then put right: more than a minute at load 10.
    120_000
  )
})
