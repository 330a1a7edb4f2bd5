// `buddy serve` as a child process (the real executable) against the fake gateway: the address on
// stderr, the journal on stdout, a same-origin start served, and a clean stop on SIGINT/SIGTERM
// that cancels nothing on Hermes (C4.9), at once even with a request in flight (D15). A closed
// stdout stops neither a request nor the server (C6). A config it cannot use is said in words,
// exit 2. Its deadlines and limits on the wire: serve-limits.test.ts. Its own errors in words (D18):
// a flag it does not have or no longer has (usage, exit 2), a config file that is no regular file or
// too large, and the config field that is wrong, named from the decode's path without the file's
// values. Where its socket goes by default: under systemd's RUNTIME_DIRECTORY, else XDG_RUNTIME_DIR.
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { FakeGatewayHandle } from "../../fixtures/fake-gateway.js"
import { buddy, spawnBuddy } from "./support/buddy-process.js"
import { serveConfig, tempDir } from "./support/cleanup.js"
import { call, launchpad } from "./support/socket-call.js"

const setUp = () => serveConfig("buddy-serve-", launchpad)

/** `buddy serve` on a socket in a fresh runtime directory, and the socket once it listens. */
const serveAt = async (config: string) => {
  const socket = path.join(await tempDir("buddy-serve-runtime-", 0o700), "buddy", "serve.sock")
  const serve = spawnBuddy(["serve", "--config", config, "--socket", socket])
  await serve.stderrWith("listening on")
  return { serve, socket }
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
      const { serve, socket } = await serveAt(config)
      expect(await call(socket, "GET", "/api/buddy")).toStrictEqual({
        status: 200,
        body: "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
      })
      const started = await call(socket, "POST", "/api/buddy/sign-in/start", "{}")
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
      const { serve, socket } = await serveAt(config)
      expect((await call(socket, "POST", "/api/buddy/sign-in/start", "{}")).status).toBe(200)
      // The status read's providers call is never answered: its own deadline is 5 s.
      fake.fault("providers", { kind: "timeout" })
      const before = httpOf(fake).length
      const inFlight = call(socket, "GET", "/api/buddy").then(() => "answered", () => "cut off")
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
    const { serve, socket } = await serveAt(config)
    const started = await call(socket, "POST", "/api/buddy/sign-in/start", "{}")
    expect(started.status).toBe(200)
    expect(await serve.stdoutLines(1)).toHaveLength(1)
    // The reader goes away after its one line, as `head -1` does: every later line meets EPIPE.
    serve.child.stdout!.destroy()
    const { handle } = JSON.parse(started.body) as { handle: string }
    const polled = await call(socket, "POST", "/api/buddy/sign-in/poll", JSON.stringify({ handle }))
    expect(polled.status).toBe(200)
    expect(JSON.parse(polled.body)).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(await call(socket, "POST", "/api/buddy/sign-in/cancel", JSON.stringify({ handle }))).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"sign-in\",\"state\":\"cancelled\"}"
    })
    // Node reports the broken pipe as an event after the write: give it time to be heard.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await call(socket, "GET", "/api/buddy")).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
    })
    expect(serve.child.exitCode).toBeNull()
    serve.child.kill("SIGTERM")
    expect((await serve.finished).code).toBe(143)
  })

  it("listens under systemd's RUNTIME_DIRECTORY by default, else under XDG_RUNTIME_DIR", async () => {
    const { config } = await setUp()
    const made = await tempDir("buddy-serve-made-", 0o700)
    const runtime = await tempDir("buddy-serve-xdg-", 0o700)
    const serve = spawnBuddy(["serve", "--config", config], {
      env: { RUNTIME_DIRECTORY: `${made}:/elsewhere`, XDG_RUNTIME_DIR: runtime }
    })
    expect(await serve.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${made}/serve.sock`)
    expect((await call(`${made}/serve.sock`, "GET", "/api/buddy/nope")).body).toBe("{\"error\":\"not-found\"}")
    serve.child.kill("SIGTERM")
    await serve.finished
    const relative = spawnBuddy(["serve", "--config", config], {
      env: { RUNTIME_DIRECTORY: "relative/dir", XDG_RUNTIME_DIR: runtime }
    })
    expect(await relative.stderrWith("listening on")).toContain(
      `buddy serve: listening on unix:${runtime}/buddy/serve.sock`
    )
    relative.child.kill("SIGTERM")
    await relative.finished
  })

  it.skipIf(process.getuid?.() !== 0)(
    "never falls back to /tmp: with no runtime directory of its own it refuses, and a place another account made first gets nothing",
    async () => {
      // An account of this run's own (two suites at once must not share it), with no /run/user/UID; the
      // old fallback was /tmp/buddy-UID, which another account can make first.
      const uid = 20_000 + (process.pid % 10_000)
      const squat = path.join(os.tmpdir(), `buddy-${uid}`)
      await fs.rm(squat, { recursive: true, force: true })
      await fs.mkdir(squat, { mode: 0o755 })
      const connections: Array<string> = []
      const squatter = net.createServer((socket) => {
        connections.push("connected")
        socket.destroy()
      })
      await new Promise<void>((resolve) => squatter.listen(path.join(squat, "serve.sock"), resolve))
      await fs.chown(squat, 4243, 4243)
      await fs.chown(path.join(squat, "serve.sock"), 4243, 4243)
      await fs.chmod(path.join(squat, "serve.sock"), 0o666)
      const finished = await spawnBuddy(["serve"], {
        env: { XDG_RUNTIME_DIR: "", RUNTIME_DIRECTORY: "" },
        uid,
        gid: uid
      }).finished
      await new Promise<void>((resolve) => squatter.close(() => resolve()))
      await fs.rm(squat, { recursive: true, force: true })
      expect([finished.code, finished.stdout, finished.stderr]).toStrictEqual([1, [], [
        "buddy serve: there is no place for its socket that only this account could have made: no --socket, no " +
        "RUNTIME_DIRECTORY (a systemd unit's RuntimeDirectory=buddy sets it) and no runtime directory of this " +
        `account's own ($XDG_RUNTIME_DIR, /run/user/${uid}). Run it from a unit with RuntimeDirectory=buddy, or give ` +
        "--socket PATH in a directory of this account's own (docs/operator-guide.md)."
      ]])
      expect(connections).toStrictEqual([])
    }
  )

  it("without --config says Buddy is absent here, and answers buddy-absent on its default socket", async () => {
    const runtime = await tempDir("buddy-serve-runtime-", 0o700)
    // No Hermes home either: the layers say so once as they are built (D50), naming where it came from.
    const serve = spawnBuddy(["serve"], {
      env: { XDG_RUNTIME_DIR: runtime, HERMES_HOME: path.join(runtime, "no-hermes") }
    })
    const socket = path.join(runtime, "buddy", "serve.sock")
    expect(await serve.stderrWith("listening on")).toStrictEqual([
      "buddy serve: the config has no buddyOrigin (or no --config was given), so Buddy is absent here and every " +
      "route answers 404 buddy-absent.",
      expect.stringMatching(
        /level=WARN .*message="buddy: the Hermes home \(HERMES_HOME, else ~\/\.hermes\) does not exist/
      ),
      `buddy serve: listening on unix:${socket}`
    ])
    expect(await call(socket, "GET", "/api/buddy")).toStrictEqual({
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
      "buddy serve: the --config file has a field buddy does not know: \"token\"; it takes hermesHome (optional), launchpadOrigin, buddyOrigin (needed for Buddy to be present), environment, locale and socketGroup (optional)."
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
        "is not valid JSON at line 4, column 1: expected a member's name in double quotes."
      ],
      [
        "{\"a\":",
        "is not valid JSON at line 1, column 6, where it ends: expected a value (an object, array, string, number, true, false or null)."
      ]
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
        "buddy serve: the --config file holds an array, not a JSON object with hermesHome (optional), launchpadOrigin, buddyOrigin (needed for Buddy to be present), environment, locale and socketGroup (optional)."
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
  "Usage: buddy serve [--config FILE] [--socket PATH] [--home DIR] [--print-unit UNIT] [--account NAME]; `buddy serve --help` says more."

describe("buddy serve's own errors", { timeout: 60_000 }, () => {
  it("says that --port is gone and why, as a usage error, exit 2, before anything starts", async () => {
    for (const args of [["--port", "8080"], ["--port=0"], ["--port"]]) {
      const ran = await buddy(["serve", ...args])
      expect({ args, code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
        args,
        code: 2,
        stdout: [],
        stderr: [
          "buddy serve no longer listens on TCP (another account could take the port first): a proxy reaches its " +
          "socket; see socketGroup in docs/operator-guide.md",
          SERVE_USAGE
        ]
      })
    }
    // Elsewhere it is an unknown flag like any other.
    expect((await buddy(["status", "--port", "1"])).stderr[0]).toBe("unknown flag \"--port\" for \"buddy status\"")
  })

  it("says allowedAccounts went with TCP, and names socketGroup instead", async () => {
    const dir = await tempDir("buddy-serve-accounts-")
    const file = path.join(dir, "config.json")
    await fs.writeFile(
      file,
      JSON.stringify({ launchpadOrigin: launchpad, environment: "local", locale: "en", allowedAccounts: ["www-data"] })
    )
    expect(await buddy(["serve", "--config", file])).toMatchObject({
      code: 2,
      stdout: [],
      stderr: [
        "buddy serve: the --config file has \"allowedAccounts\", which went with TCP: buddy serve listens only on its " +
        "socket; name the proxy's group in \"socketGroup\" instead (docs/operator-guide.md)."
      ]
    })
  })

  it("reads a config only if it is a regular file of at most 64 KiB, without blocking on a FIFO", async () => {
    const dir = await tempDir("buddy-serve-bounds-")
    const fifo = path.join(dir, "fifo.json")
    execFileSync("mkfifo", [fifo])
    const large = path.join(dir, "large.json")
    await fs.writeFile(
      large,
      `{"launchpadOrigin":"${launchpad}",${" ".repeat(64 * 1024)}"environment":"local","locale":"en"}`
    )
    for (
      const [file, said] of [
        [fifo, `buddy serve: the --config file ${fifo} is not a regular file; give the path of a JSON file.`],
        [dir, `buddy serve: the --config file ${dir} is not a regular file; give the path of a JSON file.`],
        [large, `buddy serve: the --config file ${large} holds 65619 bytes; a config file holds at most 65536.`]
      ] as const
    ) {
      const ran = await buddy(["serve", "--config", file])
      expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
        code: 2,
        stdout: [],
        stderr: [said]
      })
    }
  })

  // What a careless or hostile file system gives (issue 26): a device that never ends, a FIFO a writer
  // holds open and writes nothing to, 10 MB; each refused at once, in words, exit 2, nothing read.
  it("refuses /dev/zero, a FIFO held open by a silent writer, and 10 MB at once, reading none of them", async () => {
    const dir = await tempDir("buddy-serve-hostile-")
    const fifo = path.join(dir, "held.json")
    execFileSync("mkfifo", [fifo])
    // A writer that opens the FIFO and holds it, silent: before D39 the open blocked on a FIFO with no
    // writer, and reading one with a writer would wait for bytes that never come.
    const writer = spawn("sh", ["-c", `exec 3>"${fifo}"; sleep 30`], { stdio: "ignore" })
    const big = path.join(dir, "big.json")
    await fs.writeFile(big, Buffer.alloc(10 * 1024 * 1024, 0x20))
    try {
      for (
        const [file, said] of [
          [
            "/dev/zero",
            "buddy serve: the --config file /dev/zero is not a regular file; give the path of a JSON file."
          ],
          [fifo, `buddy serve: the --config file ${fifo} is not a regular file; give the path of a JSON file.`],
          [big, `buddy serve: the --config file ${big} holds 10485760 bytes; a config file holds at most 65536.`]
        ] as const
      ) {
        const ran = await buddy(["serve", "--config", file])
        expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
          code: 2,
          stdout: [],
          stderr: [said]
        })
      }
    } finally {
      writer.kill("SIGKILL")
    }
  })

  it("reads past a BOM, says a broken line where it breaks without its text, and names the nearest field", async () => {
    const dir = await tempDir("buddy-serve-text-")
    const bom = path.join(dir, "bom.json")
    await fs.writeFile(
      bom,
      `\uFEFF${JSON.stringify({ launchpadOrigin: launchpad, environment: "local", locale: "en" })}`
    )
    const socket = path.join(await tempDir("buddy-serve-runtime-", 0o700), "buddy", "serve.sock")
    const serving = spawnBuddy(["serve", "--config", bom, "--socket", socket])
    await serving.stderrWith("listening on")
    serving.child.kill("SIGTERM")
    expect((await serving.finished).code).toBe(143)

    const secret = "sk-live-SECRET0123456789"
    const broken = path.join(dir, "broken.json")
    await fs.writeFile(
      broken,
      `{\n  "launchpadOrigin": "${launchpad}",\n  "environment": "local",\n  "note": ${secret},\n  "locale": "en"\n}\n`
    )
    const ran = await buddy(["serve", "--config", broken])
    expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
      code: 2,
      stdout: [],
      stderr: [
        `buddy serve: the --config file ${broken} is not valid JSON at line 4, column 11: expected a value (an object, array, string, number, true, false or null).`
      ]
    })
    expect(ran.rawStderr).not.toContain("sk-")

    const typo = path.join(dir, "typo.json")
    await fs.writeFile(typo, JSON.stringify({ launchpadOrign: launchpad, environment: "local", locale: "en" }))
    expect((await buddy(["serve", "--config", typo])).stderr).toStrictEqual([
      "buddy serve: the --config file has a field buddy does not know: \"launchpadOrign\"; it takes hermesHome (optional), launchpadOrigin, buddyOrigin (needed for Buddy to be present), environment, locale and socketGroup (optional).",
      "buddy serve: did you mean \"launchpadOrigin\"?",
      "buddy serve: the --config file has no \"launchpadOrigin\"; it must be an origin such as https://launchpad.example: scheme, host and optional port, nothing after."
    ])
  })

  it("refuses --json, which it does not have, wherever it is typed", async () => {
    for (const args of [["serve", "--json"], ["--json", "serve"], ["serve", "--socket", "/tmp/s", "--json"]]) {
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
