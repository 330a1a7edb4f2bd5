// One holder per Hermes home on the whole machine (C4.1, D23), between real processes: `buddy
// serve` and the `buddy` CLI, with the fake gateway in a third process. While one holds a sign-in,
// the other's start and sign-out are blocked in words naming the holder, and Hermes hears nothing
// of them; the kernel lets the lock go when its holder is killed; the lock file holds a process id
// only, and another account can neither take nor squat it (root only: skipped locally without it,
// failing in CI).
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { lockName } from "../../src/services/HolderLock.js"
import { buddy, spawnBuddy } from "../cli/support/buddy-process.js"
import { tempDir } from "../cli/support/cleanup.js"
import { gatewayProcess } from "../support/gateway-process.js"
import { postSameOrigin, serveSocket } from "./support/serve-child.js"

const isRoot = process.getuid?.() === 0
const inCi = process.env["CI"] !== undefined && process.env["CI"] !== ""
const asRoot = isRoot || inCi ? it : it.skip
if (!isRoot) console.log("test/boundary/holder-lock: the other-account case needs root (uid 65534 client); skipped")

/** A runtime directory shared by the processes of one test, as one login's processes share theirs. */
const runtimeFor = async () => {
  const runtime = await tempDir("buddy-lock-runtime-", 0o700)
  return { runtime, env: { XDG_RUNTIME_DIR: runtime } }
}

const heldElsewhere = (pid: number | undefined) =>
  `Another buddy (process ${pid}) holds a sign-in for this Hermes, so nothing was changed. ` +
  "Its lock goes when that sign-in ends or that buddy stops."

const lockFile = async (runtime: string, home: string) => path.join(runtime, "buddy", lockName(await fs.realpath(home)))

describe("one holder per Hermes home across processes", { timeout: 60_000 }, () => {
  it("while buddy serve holds a sign-in, the CLI's sign-out and start are blocked naming it, and Hermes hears nothing", async () => {
    const gateway = await gatewayProcess({ signedIn: true })
    const { env, runtime } = await runtimeFor()
    const { at, serve } = await serveSocket(gateway.home, { env })
    const started = await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")
    expect(started.status).toBe(200)
    const { handle } = JSON.parse(started.body) as { readonly handle: string }
    await gateway.clearReceived()

    for (const args of [["sign-out"], ["sign-in", "start"]]) {
      const words = await buddy([...args, "--home", gateway.home], { env })
      expect({ args, code: words.code, stdout: words.stdout, stderr: words.stderr }).toStrictEqual({
        args,
        code: 4,
        stdout: [],
        stderr: [heldElsewhere(serve.child.pid)]
      })
      const json = await buddy([...args, "--json", "--home", gateway.home], { env })
      expect({ code: json.code, stdout: json.stdout }).toStrictEqual({
        code: 4,
        stdout: ["{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}"]
      })
    }
    // Not even an identify: the lock is checked before anything is sent.
    expect(await gateway.received()).toStrictEqual([])
    expect(await gateway.signedIn()).toBe(true)
    // The lock file names the holder and nothing else.
    expect(await fs.readFile(await lockFile(runtime, gateway.home), "utf8")).toBe(`${serve.child.pid}\n`)

    // The person approves; the holder reads it, lets the lock go, and the terminal's sign-out then runs.
    const [session] = await gateway.sessions()
    expect(await gateway.approve(session!.id)).toBe(true)
    expect(await postSameOrigin(at, "/api/buddy/sign-in/poll", JSON.stringify({ handle }))).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"sign-in\",\"state\":\"signed-in\"}"
    })
    const out = await buddy(["sign-out", "--json", "--home", gateway.home], { env })
    expect({ code: out.code, stdout: out.stdout }).toStrictEqual({
      code: 0,
      stdout: ["{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"]
    })
    expect(await gateway.signedIn()).toBe(false)
  })

  it("a terminal holding a sign-in blocks buddy serve's start, until the kernel lets go of its lock on kill -9", async () => {
    const gateway = await gatewayProcess()
    const { env, runtime } = await runtimeFor()
    const terminal = spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home], { env })
    expect(JSON.parse((await terminal.stdoutLines(1))[0]!)).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(await fs.readFile(await lockFile(runtime, gateway.home), "utf8")).toBe(`${terminal.child.pid}\n`)

    const { at } = await serveSocket(gateway.home, { env })
    await gateway.clearReceived()
    expect(await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")).toStrictEqual({
      status: 409,
      body: "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}"
    })
    expect(await gateway.received()).toStrictEqual([])

    terminal.child.kill("SIGKILL")
    await terminal.finished
    const after = await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")
    expect(after.status).toBe(200)
    // The killed terminal cancelled nothing (C4.9); its session is left to Hermes.
    expect((await gateway.sessions()).map((session) => session.cancelled)).toStrictEqual([false, false])
  })

  asRoot("another account can neither take nor squat the lock: it cannot reach buddy's runtime directory", async () => {
    if (!isRoot) throw new Error("CI runs this suite as root: the other-account case cannot be skipped there")
    const gateway = await gatewayProcess()
    const { env, runtime } = await runtimeFor()
    const file = await lockFile(runtime, gateway.home)
    // Before buddy ever locked (a squat) and while it holds the lock (a take).
    const attempt = () =>
      new Promise<number | null>((resolve, reject) => {
        const child = spawn("flock", ["--nonblock", file, "true"], {
          cwd: "/",
          uid: 65534,
          gid: 65534,
          stdio: "ignore"
        })
        child.on("error", reject)
        child.on("close", resolve)
      })
    await fs.mkdir(path.dirname(file), { mode: 0o700 })
    expect(await attempt()).not.toBe(0)
    await expect(fs.lstat(file)).rejects.toMatchObject({ code: "ENOENT" })
    const terminal = spawnBuddy(["sign-in", "start", "--json", "--home", gateway.home], { env })
    await terminal.stdoutLines(1)
    expect(await attempt()).not.toBe(0)
    const stats = await fs.lstat(file)
    expect({ mode: stats.mode & 0o777, uid: stats.uid }).toStrictEqual({ mode: 0o600, uid: 0 })
  })
})
