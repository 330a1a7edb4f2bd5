// `buddy check` (issue 39, D58), the real executable against a real `buddy serve` on a temporary
// socket: 0 when serve and Hermes (the fake gateway) answer, 4 when serve answers and Hermes cannot
// be used (no gateway; Buddy absent), 1 when serve does not answer (no socket, nobody listening,
// something that is not buddy). One line on stdout, or one JSON object with --json; Hermes is
// asked only what serve's status read asks.
import { spawn } from "node:child_process"
import * as fsp from "node:fs/promises"
import { createServer } from "node:http"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { FakeGatewayHandle } from "../../fixtures/fake-gateway.js"
import { NoAnswer } from "../../src/cli/check-exchange.js"
import { checkExitCode, silentOf, verdictOf } from "../../src/cli/check.js"
import { buddy, spawnBuddy } from "./support/buddy-process.js"
import { onCleanup, serveConfig, tempDir, writeServeConfig } from "./support/cleanup.js"

/** `buddy serve` with `config` (or none) on a socket in a fresh directory, once it listens. */
const serveOn = async (config?: string, env: Record<string, string> = {}) => {
  const dir = await tempDir("buddy-check-", 0o700)
  const socket = path.join(dir, "serve.sock")
  const serve = spawnBuddy(["serve", ...(config === undefined ? [] : ["--config", config]), "--socket", socket], {
    env: { XDG_RUNTIME_DIR: dir, HERMES_HOME: path.join(dir, "no-hermes"), ...env }
  })
  await serve.stderrWith("listening on")
  return { serve, socket, dir }
}

const httpOf = (fake: FakeGatewayHandle) =>
  fake.received.flatMap((entry) => (entry.channel === "http" ? [`${entry.method} ${entry.path}`] : []))

describe("buddy check", () => {
  it("exits 0 when serve answers and Hermes through it, saying so; asks Hermes only the status read", async () => {
    const { config, fake } = await serveConfig("buddy-check-config-")
    const { serve, socket } = await serveOn(config)
    const before = httpOf(fake).length
    const words = await buddy(["check", "--socket", socket])
    expect(words.code).toBe(0)
    expect(words.stdout).toStrictEqual([
      `buddy serve answers on unix:${socket}, and Hermes through it: Buddy waits (not signed in).`
    ])
    expect(words.stderr).toStrictEqual([])
    expect(httpOf(fake).slice(before)).toStrictEqual(["GET /api/providers/oauth"])
    const json = await buddy(["check", "--socket", socket, "--json"])
    expect(json.code).toBe(0)
    expect(json.stdout).toStrictEqual([
      JSON.stringify({ kind: "check", socket, serve: "answers", hermes: "answers", state: "waits" })
    ])
    serve.child.kill("SIGTERM")
    await serve.finished
  })

  it("exits 4 when serve answers but no Hermes runs for its home, naming the reason", async () => {
    const dir = await tempDir("buddy-check-nohermes-", 0o700)
    const home = path.join(dir, "home")
    await fsp.mkdir(home, { mode: 0o700 })
    const config = path.join(dir, "config.json")
    await writeServeConfig(config, home)
    const { serve, socket } = await serveOn(config)
    const words = await buddy(["check", "--socket", socket])
    expect(words.code).toBe(4)
    expect(words.stdout).toStrictEqual([
      `buddy serve answers on unix:${socket}, but Hermes cannot be used through it (not-running).`
    ])
    const json = await buddy(["check", "--json", "--socket", socket])
    expect(json.code).toBe(4)
    expect(JSON.parse(json.stdout[0] ?? "")).toStrictEqual({
      kind: "check",
      socket,
      serve: "answers",
      hermes: "unusable",
      reason: "not-running"
    })
    serve.child.kill("SIGTERM")
    await serve.finished
  })

  it("exits 4 when serve answers with Buddy absent (no config): Hermes is not asked", async () => {
    const { serve, socket } = await serveOn()
    const words = await buddy(["check", "--socket", socket])
    expect(words.code).toBe(4)
    expect(words.stdout).toStrictEqual([
      `buddy serve answers on unix:${socket}, but Buddy is absent there (its config), so Hermes is not asked.`
    ])
    serve.child.kill("SIGTERM")
    await serve.finished
  })

  it("finds serve where serve puts its socket by default: under RUNTIME_DIRECTORY", async () => {
    const { config } = await serveConfig("buddy-check-default-")
    const made = await tempDir("buddy-check-made-", 0o700)
    const serve = spawnBuddy(["serve", "--config", config], { env: { RUNTIME_DIRECTORY: made } })
    await serve.stderrWith("listening on")
    const words = await buddy(["check"], { env: { RUNTIME_DIRECTORY: made } })
    expect(words.code).toBe(0)
    expect(words.stdout).toStrictEqual([
      `buddy serve answers on unix:${made}/serve.sock, and Hermes through it: Buddy waits (not signed in).`
    ])
    serve.child.kill("SIGTERM")
    await serve.finished
  })

  it.skipIf(process.getuid?.() !== 0)(
    "without --socket where serve has no default place (no /tmp, D56) is told to give one, exit 2",
    async () => {
      const finished = await spawnBuddy(["check"], {
        env: { XDG_RUNTIME_DIR: "", RUNTIME_DIRECTORY: "" },
        uid: 65534,
        gid: 65534
      }).finished
      expect([finished.code, finished.stdout, finished.stderr]).toStrictEqual([2, [], [
        "buddy check: serve has no default place for its socket here (no RUNTIME_DIRECTORY, no runtime directory " +
        "of this account's own); give --socket PATH."
      ]])
    }
  )

  it("exits 1 when no serve answers: no socket, a socket nobody listens on, or what answers is not buddy", async () => {
    const dir = await tempDir("buddy-check-none-", 0o700)
    const missing = path.join(dir, "serve.sock")
    const none = await buddy(["check", "--socket", missing])
    expect(none.code).toBe(1)
    expect(none.stdout).toStrictEqual([`buddy serve does not answer on unix:${missing} (no socket there).`])
    const json = await buddy(["check", "--socket", missing, "--json"])
    expect(json.code).toBe(1)
    expect(json.stdout).toStrictEqual([
      JSON.stringify({ kind: "check", socket: missing, serve: "silent", reason: "ENOENT" })
    ])

    // A socket left behind by a server killed outright: its file is there, nobody listens.
    const stale = path.join(dir, "stale.sock")
    const listener = spawn(process.execPath, [
      "-e",
      `require("node:net").createServer().listen(${JSON.stringify(stale)}, () => console.log("up"))`
    ])
    await new Promise((resolve) => listener.stdout.once("data", resolve))
    listener.kill("SIGKILL")
    await new Promise((resolve) => listener.once("exit", resolve))
    const refused = await buddy(["check", "--socket", stale])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toStrictEqual([
      `buddy serve does not answer on unix:${stale} (nobody listens on the socket).`
    ])

    const other = path.join(dir, "other.sock")
    const server = createServer((_req, res) => res.end("<html>hello</html>"))
    await new Promise<void>((resolve) => server.listen(other, resolve))
    onCleanup(() => new Promise((resolve) => server.close(resolve)))
    const notBuddy = await buddy(["check", "--socket", other, "--json"])
    expect(notBuddy.code).toBe(1)
    expect(notBuddy.stdout).toStrictEqual([
      JSON.stringify({ kind: "check", socket: other, serve: "silent", reason: "not-buddy" })
    ])
  })
})

describe("what a check's exchange means", () => {
  const socket = "/run/buddy/serve.sock"
  const status = (body: object) => ({ status: 200, body: JSON.stringify(body) })
  const answer = { kind: "buddy", signIn: { state: "none" }, locale: "en" }

  it("works and waits are both Hermes answering: 0", () => {
    for (const state of ["works", "waits"] as const) {
      const line = verdictOf(socket, status({ ...answer, state }))
      expect(line).toStrictEqual({ kind: "check", socket, serve: "answers", hermes: "answers", state })
      expect(checkExitCode(line)).toBe(0)
    }
  })

  it("unknown is Hermes unusable, with its reason: 4", () => {
    const line = verdictOf(socket, status({ ...answer, state: "unknown", reason: "timeout" }))
    expect(line).toStrictEqual({ kind: "check", socket, serve: "answers", hermes: "unusable", reason: "timeout" })
    expect(checkExitCode(line)).toBe(4)
  })

  it("anything but buddy's status answer or its buddy-absent is not buddy: 1", () => {
    for (
      const exchange of [
        { status: 200, body: "{\"kind\":\"buddy\",\"state\":\"works\"}" },
        { status: 503, body: JSON.stringify({ ...answer, state: "works" }) },
        { status: 404, body: "{\"error\":\"not-found\"}" },
        { status: 200, body: JSON.stringify({ error: "buddy-absent" }) },
        { status: 403, body: "{\"error\":\"denied\",\"reason\":\"host-mismatch\"}" }
      ]
    ) {
      const line = verdictOf(socket, exchange)
      expect(line).toStrictEqual({ kind: "check", socket, serve: "silent", reason: "not-buddy" })
      expect(checkExitCode(line)).toBe(1)
    }
  })

  it("no answer in time, or too much, or a connect's code, is serve silent: 1", () => {
    expect(silentOf(socket, new NoAnswer({ reason: "timeout" }))).toStrictEqual({
      kind: "check",
      socket,
      serve: "silent",
      reason: "timeout"
    })
    expect(silentOf(socket, new NoAnswer({ reason: "too-large" }))).toMatchObject({ reason: "too-large" })
    expect(silentOf(socket, new NoAnswer({ reason: "connect", code: "EACCES" }))).toMatchObject({ reason: "EACCES" })
    expect(silentOf(socket, new NoAnswer({ reason: "connect" }))).toMatchObject({ reason: "unknown" })
    expect(checkExitCode(silentOf(socket, new NoAnswer({ reason: "timeout" })))).toBe(1)
  })
})
