// `buddy serve`'s journal when stdout's reader stops reading (D35): the lines wait in memory up to
// a bound, the rest are dropped and counted, every request is still answered, and once stdout is
// read again one line on stderr says how many were dropped. On the real executable, its stdout a
// pipe the test has filled and does not read, as a journal that stalls.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import { Agent, request } from "node:http"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { spawnBuddy } from "./support/buddy-process.js"
import { onCleanup, tempDir, writeServeConfig } from "./support/cleanup.js"

const launchpad = "https://launchpad.example"
const signOutLine =
  "{\"scope\":\"buddy-sign-in\",\"operation\":\"sign-out\",\"outcome\":\"unavailable\",\"reason\":\"not-running\"}"

/** Buddy present, on a home where no gateway runs: each sign-out is journaled, and asks nobody. */
const configWithoutGateway = async (dir: string) => {
  const home = path.join(dir, "home")
  await fsp.mkdir(home, { mode: 0o700 })
  const config = path.join(dir, "config.json")
  await writeServeConfig(config, home, { launchpadOrigin: launchpad })
  return config
}

/** A pipe already full (its reader stalled), open both ways here, its bytes so far returned. */
const fullPipe = (dir: string) => {
  const fifo = path.join(dir, "stdout")
  execFileSync("mkfifo", ["-m", "600", fifo])
  // Read-write never waits for the other end on Linux; non-blocking, a full pipe says EAGAIN.
  const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK)
  onCleanup(async () => fs.closeSync(fd))
  const filler = Buffer.alloc(4096, "-")
  let filled = 0
  for (;;) {
    try {
      filled += fs.writeSync(fd, filler)
    } catch {
      return { fd, filled }
    }
  }
}

/** Whatever the pipe holds now. */
const drain = (fd: number) => {
  const chunks: Array<Buffer> = []
  const buffer = Buffer.alloc(64 * 1024)
  for (;;) {
    try {
      const read = fs.readSync(fd, buffer)
      if (read === 0) return Buffer.concat(chunks)
      chunks.push(Buffer.from(buffer.subarray(0, read)))
    } catch {
      return Buffer.concat(chunks)
    }
  }
}

const signOut = (agent: Agent, socketPath: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method: "POST",
        path: "/api/buddy/sign-out",
        agent,
        headers: { "content-type": "application/json", origin: launchpad, "sec-fetch-site": "same-origin" }
      },
      (res) => {
        res.resume().on("end", () => resolve(res.statusCode ?? 0))
      }
    )
    req.on("error", reject)
    req.end("{}")
  })

describe("buddy serve's journal, while stdout is not read", () => {
  it("keeps at most its bound, answers every request, and says on stderr how many lines it dropped", async () => {
    const dir = await tempDir("buddy-journal-bound-", 0o700)
    const { fd, filled } = fullPipe(dir)
    const at = path.join(dir, "runtime", "serve.sock")
    const serve = spawnBuddy(["serve", "--config", await configWithoutGateway(dir), "--socket", at], { stdout: fd })
    await serve.stderrWith("listening on")
    // 1 000 lines of 99 bytes: the 64 KiB bound holds some 660 of them.
    const total = 1_000
    const agent = new Agent({ keepAlive: true, maxSockets: 8 })
    const statuses = await Promise.all(Array.from({ length: total }, () => signOut(agent, at)))
    agent.destroy()
    expect(new Set(statuses)).toStrictEqual(new Set([503]))
    expect(serve.stderrNow().filter((line) => line.includes("dropped"))).toStrictEqual([])
    // Read again: what waited comes through, then the count of what did not.
    let read = Buffer.alloc(0)
    const readUntilSaid = async (tries = 250): Promise<ReadonlyArray<string>> => {
      read = Buffer.concat([read, drain(fd)])
      const said = serve.stderrNow().filter((line) => line.includes("dropped"))
      if (said.length > 0 || tries === 0) return said
      await new Promise((next) => setTimeout(next, 20))
      return readUntilSaid(tries - 1)
    }
    const said = await readUntilSaid()
    expect(said).toHaveLength(1)
    const dropped = Number(/^buddy: (\d+) journal lines dropped: stdout was not being read$/.exec(said[0] ?? "")?.[1])
    read = Buffer.concat([read, drain(fd)])
    expect(read.subarray(0, filled).toString()).toBe("-".repeat(filled))
    const kept = read.subarray(filled).toString()
    expect(kept).toBe(`${signOutLine}\n`.repeat(total - dropped))
    // What waited in buddy's memory was the bound (64 KiB) and at most a line more.
    expect(kept.length).toBeGreaterThanOrEqual(64 * 1024)
    expect(kept.length).toBeLessThan(64 * 1024 + signOutLine.length + 1)
  })
})
