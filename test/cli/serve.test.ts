// `buddy serve` as a child process (the real executable) against the fake gateway: the address on
// stderr, the journal on stdout, a same-origin start served, and a clean stop on SIGINT/SIGTERM
// that cancels nothing on Hermes (C4.9), at once even with a request in flight (D15). A closed
// stdout stops neither a request nor the server (C6). A config it cannot use is said in words,
// exit 2. Its deadlines and limits on the wire: serve-limits.test.ts. Its own errors in words (D18):
// a port in use (exit 1), a port out of range and a flag it does not have (usage, exit 2), and the
// config field that is wrong, named from the decode's path without the file's values.
import * as fs from "node:fs/promises"
import { createServer, request } from "node:http"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { FakeGatewayHandle } from "../../fixtures/fake-gateway.js"
import { buddy, spawnBuddy } from "./support/buddy-process.js"
import { serveConfig, tempDir } from "./support/cleanup.js"

const launchpad = "https://launchpad.example"

const setUp = () => serveConfig("buddy-serve-", launchpad)

const call = (port: number, method: string, pathname: string, body?: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: pathname,
        agent: false,
        headers: body === undefined
          ? {}
          : { "content-type": "application/json", origin: launchpad, "sec-fetch-site": "same-origin" }
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

/** The same over the owner-only socket, as curl --unix-socket and nginx send it (`Host: localhost`). */
const callSocket = (socketPath: string, method: string, pathname: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ socketPath, method, path: pathname, agent: false }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on("error", reject)
    req.end()
  })

const portFrom = (stderr: ReadonlyArray<string>) => {
  const line = stderr.find((entry) => entry.startsWith("buddy serve: listening on http://127.0.0.1:")) ?? ""
  return Number(line.slice(line.lastIndexOf(":") + 1))
}

/** Resolves once `ready()` holds, checked every 20 ms, or rejects after 5 s. */
const until = (ready: () => boolean) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now()
    const check = () => {
      if (ready()) resolve()
      else if (Date.now() - started > 5_000) reject(new Error("not within 5 s"))
      else setTimeout(check, 20)
    }
    check()
  })

const httpOf = (fake: FakeGatewayHandle) =>
  fake.received.flatMap((entry) => (entry.channel === "http" ? [`${entry.method} ${entry.path}`] : []))

describe("buddy serve", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`serves the routes, journals on stdout, and stops on ${signal} without cancelling the held sign-in`, async () => {
      const { config, fake } = await setUp()
      const serve = spawnBuddy(["serve", "--config", config, "--port", "0"])
      const port = portFrom(await serve.stderrWith("listening on"))
      expect(port).toBeGreaterThan(0)
      expect(await call(port, "GET", "/api/buddy")).toStrictEqual({
        status: 200,
        body: "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
      })
      const started = await call(port, "POST", "/api/buddy/sign-in/start", "{}")
      expect(started.status).toBe(200)
      expect(JSON.parse(started.body)).toMatchObject({ kind: "sign-in", state: "pending", code: "ABCD-EFGHK" })
      expect(await serve.stdoutLines(1)).toStrictEqual([
        "{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}"
      ])
      serve.child.kill(signal)
      const finished = await serve.finished
      expect(finished.code).toBe(signal === "SIGINT" ? 130 : 143)
      expect(httpOf(fake)).toStrictEqual([
        "GET /api/providers/oauth",
        "POST /api/providers/oauth/openai-codex/start"
      ])
      const [session] = fake.sessions()
      expect(session?.cancelled).toBe(false)
      expect(fake.approve(session?.id ?? "")).toBe(true)
    })
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`stops within a second of ${signal} while a request waits on Hermes, cancelling nothing`, async () => {
      const { config, fake } = await setUp()
      const serve = spawnBuddy(["serve", "--config", config, "--port", "0"])
      const port = portFrom(await serve.stderrWith("listening on"))
      expect((await call(port, "POST", "/api/buddy/sign-in/start", "{}")).status).toBe(200)
      // The status read's providers call is never answered: its own deadline is 5 s.
      fake.fault("providers", { kind: "timeout" })
      const before = httpOf(fake).length
      const inFlight = call(port, "GET", "/api/buddy").then(() => "answered", () => "cut off")
      await until(() => httpOf(fake).slice(before).includes("GET /api/providers/oauth"))
      const killed = performance.now()
      serve.child.kill(signal)
      const finished = await serve.finished
      const stopMs = performance.now() - killed
      expect(finished.code).toBe(signal === "SIGINT" ? 130 : 143)
      expect(stopMs).toBeLessThan(2_000)
      expect(await inFlight).toBe("cut off")
      // The status read polled the held sign-in first (C5), then asked for the card.
      expect(httpOf(fake).slice(before).map((entry) => entry.replace(/poll\/.*$/, "poll/<id>"))).toStrictEqual([
        "GET /api/providers/oauth/openai-codex/poll/<id>",
        "GET /api/providers/oauth"
      ])
      expect(httpOf(fake).filter((entry) => entry.includes("cancel"))).toStrictEqual([])
      expect(fake.sessions().map((session) => session.cancelled)).toStrictEqual([false])
    })
  }

  it("keeps answering and keeps running after its stdout is closed (`buddy serve | head -1`)", async () => {
    const { config } = await setUp()
    const serve = spawnBuddy(["serve", "--config", config, "--port", "0"])
    const port = portFrom(await serve.stderrWith("listening on"))
    const started = await call(port, "POST", "/api/buddy/sign-in/start", "{}")
    expect(started.status).toBe(200)
    expect(await serve.stdoutLines(1)).toHaveLength(1)
    // The reader goes away after its one line, as `head -1` does: every later line meets EPIPE.
    serve.child.stdout!.destroy()
    const { handle } = JSON.parse(started.body) as { handle: string }
    const polled = await call(port, "POST", "/api/buddy/sign-in/poll", JSON.stringify({ handle }))
    expect(polled.status).toBe(200)
    expect(JSON.parse(polled.body)).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(await call(port, "POST", "/api/buddy/sign-in/cancel", JSON.stringify({ handle }))).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"sign-in\",\"state\":\"cancelled\"}"
    })
    // Node reports the broken pipe as an event after the write: give it time to be heard.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await call(port, "GET", "/api/buddy")).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
    })
    expect(serve.child.exitCode).toBeNull()
    serve.child.kill("SIGTERM")
    expect((await serve.finished).code).toBe(143)
  })

  it("listens on the port it is given", async () => {
    const { config } = await setUp()
    const probe = spawnBuddy(["serve", "--config", config, "--port", "0"])
    const free = portFrom(await probe.stderrWith("listening on"))
    probe.child.kill("SIGTERM")
    await probe.finished
    const serve = spawnBuddy(["serve", "--config", config, "--port", String(free)])
    expect(portFrom(await serve.stderrWith("listening on"))).toBe(free)
    expect((await call(free, "GET", "/api/buddy/nope")).body).toBe("{\"error\":\"not-found\"}")
    serve.child.kill("SIGTERM")
    await serve.finished
  })

  it("without --config or --port says Buddy is absent here, and answers buddy-absent on its default socket", async () => {
    const runtime = await tempDir("buddy-serve-runtime-", 0o700)
    const serve = spawnBuddy(["serve"], { env: { XDG_RUNTIME_DIR: runtime } })
    const socket = path.join(runtime, "buddy", "serve.sock")
    expect(await serve.stderrWith("listening on")).toStrictEqual([
      "buddy serve: no --config given; Buddy is absent here and every route answers buddy-absent.",
      `buddy serve: listening on unix:${socket}`
    ])
    expect(await callSocket(socket, "GET", "/api/buddy")).toStrictEqual({
      status: 404,
      body: "{\"error\":\"buddy-absent\"}"
    })
    serve.child.kill("SIGTERM")
    await serve.finished
  })

  it("refuses a config it cannot use, in words, with exit 2 and nothing served", async () => {
    const { dir } = await setUp()
    const extra = path.join(dir, "extra.json")
    await fs.writeFile(
      extra,
      JSON.stringify({ launchpadOrigin: launchpad, environment: "local", locale: "en", token: "x" })
    )
    const invalid = await buddy(["serve", "--config", extra])
    expect(invalid.code).toBe(2)
    expect(invalid.stderr).toStrictEqual([
      "buddy serve: the --config file has a field buddy does not know: \"token\"; it takes hermesHome (optional), launchpadOrigin, buddyOrigin (optional), environment, locale and allowedAccounts (optional)."
    ])
    expect(invalid.stdout).toStrictEqual([])
    const missing = await buddy(["serve", "--config", path.join(dir, "missing.json")])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toStrictEqual([
      `buddy serve: the --config file ${
        path.join(dir, "missing.json")
      } cannot be read: no such file or directory (ENOENT).`
    ])
  })

  it("says where a config is broken: the JSON error's line and column, what it holds instead of an object, a shared origin", async () => {
    const { dir } = await setUp()
    const cases: ReadonlyArray<readonly [string, string]> = [
      [
        "{\n  \"launchpadOrigin\": \"https://l.example\",\n  \"environment\": \"local\",\n}\n",
        "is not valid JSON at line 4, column 1: Expected double-quoted property name."
      ],
      ["{\"a\":", "is not valid JSON at line 1, column 6: Unexpected end of JSON input."]
    ]
    for (const [text, said] of cases) {
      const file = path.join(dir, "broken.json")
      await fs.writeFile(file, text)
      expect((await buddy(["serve", "--config", file])).stderr).toStrictEqual([
        `buddy serve: the --config file ${file} ${said}`
      ])
    }
    const array = path.join(dir, "array.json")
    await fs.writeFile(array, "[1,2]")
    expect(await buddy(["serve", "--config", array])).toMatchObject({
      code: 2,
      stderr: [
        "buddy serve: the --config file holds an array, not a JSON object with hermesHome (optional), launchpadOrigin, buddyOrigin (optional), environment, locale and allowedAccounts (optional)."
      ]
    })
    const same = path.join(dir, "same.json")
    await fs.writeFile(
      same,
      JSON.stringify({
        launchpadOrigin: "https://l.example",
        buddyOrigin: "https://l.example",
        environment: "hosted-personal",
        locale: "en"
      })
    )
    expect(await buddy(["serve", "--config", same])).toMatchObject({
      code: 2,
      stdout: [],
      stderr: [
        "buddy serve: the --config file's launchpadOrigin and buddyOrigin are the same origin; buddy's own origin must differ from the Launchpad's page, or every POST from that page is refused."
      ]
    })
  })
})

const SERVE_USAGE =
  "Usage: buddy serve [--config FILE] [--socket PATH] [--port N] [--home DIR]; `buddy serve --help` says more."

describe("buddy serve's own errors", { timeout: 60_000 }, () => {
  it("says that the port is in use, exit 1, and serves nothing", async () => {
    const { config } = await setUp()
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve))
    const address = holder.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      const ran = await buddy(["serve", "--config", config, "--port", String(port)])
      expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
        code: 1,
        stdout: [],
        stderr: [
          `buddy serve: port ${port} on 127.0.0.1 is in use by another program; stop it or choose another --port.`
        ]
      })
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })

  it("refuses a port out of range or not a number as a usage error, exit 2, before anything starts", async () => {
    const range = "a port is a whole number from 0 to 65535 (0 picks a free one)."
    const runs: Array<[ReadonlyArray<string>, string]> = [
      [["--port", "80000"], `--port 80000 is out of range: ${range}`],
      [["--port=65536"], `--port 65536 is out of range: ${range}`],
      [["--port", "http"], `--port "http" is not a port number: ${range}`],
      [["--port=-1"], `--port -1 is out of range: ${range}`],
      [["--port", "-1"], `--port -1 is out of range: ${range}`],
      [["--port", "8080.5"], `--port "8080.5" is not a port number: ${range}`]
    ]
    for (const [args, complaint] of runs) {
      const ran = await buddy(["serve", ...args])
      expect({ args, code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
        args,
        code: 2,
        stdout: [],
        stderr: [complaint, SERVE_USAGE]
      })
    }
  })

  it("refuses --json, which it does not have, wherever it is typed", async () => {
    for (const args of [["serve", "--json"], ["--json", "serve"], ["serve", "--port", "0", "--json"]]) {
      const ran = await buddy(args)
      expect({ args, code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
        args,
        code: 2,
        stdout: [],
        stderr: ["unknown flag \"--json\" for \"buddy serve\"", SERVE_USAGE]
      })
    }
  })

  it("names each config field that is wrong and what it must be, never the file's values", async () => {
    const dir = await tempDir("buddy-serve-fields-")
    const wrong = path.join(dir, "wrong.json")
    await fs.writeFile(
      wrong,
      JSON.stringify({
        hermesHome: 7,
        launchpadOrigin: "https://launchpad.example/s3cret-path",
        environment: "s3cret-environment",
        locale: "s3cret-locale"
      })
    )
    const ran = await buddy(["serve", "--config", wrong])
    expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
      code: 2,
      stdout: [],
      stderr: [
        "buddy serve: the --config file's \"hermesHome\" must be a directory path, as a string.",
        "buddy serve: the --config file's \"launchpadOrigin\" must be an origin such as https://launchpad.example: " +
        "scheme, host and optional port, nothing after.",
        "buddy serve: the --config file's \"environment\" must be one of hosted-personal, hosted-organization-personal, " +
        "hosted-organization-team, local.",
        "buddy serve: the --config file's \"locale\" must be one of cs, en."
      ]
    })
    expect(ran.rawStderr).not.toContain("s3cret")
    const missing = path.join(dir, "missing.json")
    await fs.writeFile(missing, JSON.stringify({ launchpadOrigin: launchpad, locale: "cs" }))
    const without = await buddy(["serve", "--config", missing])
    expect({ code: without.code, stderr: without.stderr }).toStrictEqual({
      code: 2,
      stderr: [
        "buddy serve: the --config file has no \"environment\"; it must be one of hosted-personal, " +
        "hosted-organization-personal, hosted-organization-team, local."
      ]
    })
  })
})
