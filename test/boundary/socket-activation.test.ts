// `buddy serve` started by a service manager that listens for it (systemd's `.socket` units, D40),
// with systemd's own `systemd-socket-activate` and the real executable against the fake gateway:
// it serves on the socket it is handed (fd 3, LISTEN_PID/LISTEN_FDS), checks that socket's owner
// and mode as it checks its own, and refuses one others may connect to, asking Hermes nothing.
import * as fs from "node:fs/promises"
import { request } from "node:http"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { BIN, spawnBuddy } from "../cli/support/buddy-process.js"
import { fakeGateway, tempDir } from "../cli/support/cleanup.js"
import { onPath, requires } from "../support/required.js"
import { serveConfig } from "./support/serve-child.js"

const activate = "systemd-socket-activate"
const present = requires(onPath(activate), activate, "apt-get install systemd")

/** A GET over the socket; `systemd-socket-activate` starts buddy at this first connection. */
const get = (socketPath: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ socketPath, path: "/api/buddy", agent: false }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on("error", reject)
    req.end()
  })

/** `buddy serve` under systemd-socket-activate, listening at `socket`, with the given mode made after it binds. */
const activated = async (socket: string, config: string, mode: number) => {
  const manager = spawnBuddy(["serve", "--config", config], {
    command: [
      "sh",
      "-c",
      `"$@" & until [ -S ${socket} ]; do sleep 0.05; done; chmod ${mode.toString(8)} ${socket}; wait $!`,
      "sh",
      activate,
      "-l",
      socket,
      process.execPath,
      BIN
    ]
  })
  await manager.stderrWith(`Listening on ${socket}`)
  return manager
}

describe.skipIf(!present)("buddy serve on a socket a service manager hands over", { timeout: 30_000 }, () => {
  it("serves on it, checked, and says where it listens", async () => {
    const fake = await fakeGateway()
    const socket = path.join(await tempDir("buddy-activated-", 0o700), "serve.sock")
    const manager = await activated(socket, await serveConfig(fake.home), 0o600)
    // Bounded, saying what buddy said: this test once waited out its 30 s on a loaded machine, unexplained.
    const answered = await Promise.race([
      get(socket),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`no answer within 20 s; stderr: ${JSON.stringify(manager.stderrNow())}`)),
          20_000
        ).unref()
      )
    ])
    expect(answered).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
    })
    expect(await manager.stderrWith("buddy serve: listening")).toContain(`buddy serve: listening on unix:${socket}`)
    expect(fake.received.length).toBeGreaterThan(0)
    expect((await fs.lstat(socket)).mode & 0o777).toBe(0o600)
  })

  it("refuses a handed socket others may connect to, in words, exit 1, asking Hermes nothing", async () => {
    const fake = await fakeGateway()
    const socket = path.join(await tempDir("buddy-activated-open-", 0o700), "serve.sock")
    const manager = await activated(socket, await serveConfig(fake.home), 0o666)
    await get(socket).catch(() => undefined)
    const finished = await manager.finished
    expect(finished.stderr.filter((line) => line.startsWith("buddy serve:"))).toStrictEqual([
      `buddy serve: the socket ${socket} has mode 0666: accounts the config does not name may connect; ` +
      "give it SocketMode=0600 (or 0660 with SocketGroup= the config's socketGroup)."
    ])
    expect(finished.code).toBe(1)
    expect(fake.received).toStrictEqual([])
  })

  it("takes a handed socket only with LISTEN_PID its own, and refuses --socket beside one", async () => {
    const fake = await fakeGateway()
    const socket = path.join(await tempDir("buddy-activated-both-", 0o700), "serve.sock")
    const config = await serveConfig(fake.home)
    const manager = spawnBuddy(["serve", "--config", config, "--socket", path.join(path.dirname(socket), "x.sock")], {
      command: [activate, "-l", socket, process.execPath, BIN]
    })
    await manager.stderrWith(`Listening on ${socket}`)
    await get(socket).catch(() => undefined)
    const finished = await manager.finished
    expect(finished.code).toBe(2)
    expect(finished.stderr.filter((line) => line.startsWith("buddy serve:"))).toStrictEqual([
      "buddy serve: the service manager handed over a socket, so --socket has no use; leave it out."
    ])
    // Another process's LISTEN_PID is not ours: buddy makes its own socket where --socket says.
    const own = path.join(path.dirname(socket), "own.sock")
    const serve = spawnBuddy(["serve", "--config", config, "--socket", own], {
      env: { LISTEN_PID: "1", LISTEN_FDS: "1" }
    })
    expect(await serve.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${own}`)
  })
})
