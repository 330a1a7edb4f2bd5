// `buddy serve`'s host as the CLI runs it (src/serve/serving.ts; C6, C8, D22, D40), in this
// process: buddy's app on a socket in a temporary directory, the fake gateway as Hermes, the lines
// said on stderr caught from Effect's Console. Each way it stops before serving (a `ServeStop`: its
// line and exit code), Buddy's absence named at start, the socket given its modes and announced, a
// socket handed over as a service manager hands it (./support/handed.ts). The whole, over the real
// executable: test/cli/serve.test.ts and test/boundary/socket-activation.test.ts.
import type { Console } from "effect"
import { Duration, Effect, Either, Exit, Fiber } from "effect"
import { execFileSync } from "node:child_process"
import { closeSync, rmSync, writeFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import { type FakeGatewayHandle, startFakeGateway } from "../../fixtures/fake-gateway.js"
import { configFrom } from "../../src/http/app.js"
import { openApiJson } from "../../src/http/openapi.js"
import type { ConfigFile } from "../../src/schema/config.js"
import * as NodeServer from "../../src/serve/node-server.js"
import { type Place, serveFile, serveOn, type ServeOptions } from "../../src/serve/serving.js"
import type { ServeStop } from "../../src/serve/stop.js"
import { requires } from "../support/required.js"
import { handedSockets } from "./support/handed.js"
import { converse, exchange, parse } from "./support/raw.js"

/** Giving files to other accounts and groups takes root: skipped with a word elsewhere, never in CI (D32). */
const asRoot = requires(process.getuid?.() === 0, "root", "run the suite as root, as CI does") ? it : it.skip
const ownGid = process.getgid?.() ?? 0

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

/** A fresh temporary directory a group may pass (0711), as the way to a shared socket must let it. */
const tempDir = async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-serving-"))
  await fs.chmod(dir, 0o711)
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

let fake: FakeGatewayHandle | undefined
const gateway = async () => {
  fake ??= await startFakeGateway()
  return fake
}
afterAll(() => fake?.close())

const launchpad = "https://launchpad.example"

/** A config file's fields for the fake gateway: Buddy present unless `fields` says otherwise. */
const fileFor = async (fields: Partial<ConfigFile> = {}): Promise<ConfigFile> => ({
  hermesHome: (await gateway()).home,
  launchpadOrigin: launchpad,
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal",
  locale: "en",
  ...fields
})

interface Run {
  /** The lines said on stderr so far. */
  readonly said: Array<string>
  /** Resolves once a line containing `what` has been said; rejects after 5 s. */
  readonly saying: (what: string) => Promise<void>
  /** How serving ended: a stop (its line and code), or still running. */
  readonly ended: () => Promise<Either.Either<"serving", ServeStop>>
}

/**
 * Runs `serving` with stderr caught (Effect's Console: `Console.error`), interrupted after the test.
 * `onLine` sees each line as it is said, before serving goes on.
 */
const run = (serving: Effect.Effect<unknown, ServeStop>, onLine: (line: string) => void = () => {}): Run => {
  const said: Array<string> = []
  const waiting = new Set<() => void>()
  const base = Effect.runSync(Effect.console)
  const heard = (...args: ReadonlyArray<unknown>) => {
    const line = args.join(" ")
    onLine(line)
    said.push(line)
    waiting.forEach((check) => check())
  }
  // Effect's logger on stderr says through `unsafe.error` (Logger.withConsoleError): caught too.
  const caught: Console.Console = {
    ...base,
    error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => heard(...args)),
    unsafe: { ...base.unsafe, error: heard }
  }
  const fiber = Effect.runFork(Effect.withConsole(serving, caught))
  cleanups.push(() => Effect.runPromise(Fiber.interrupt(fiber)))
  return {
    said,
    saying: (what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`never said ${what}: ${JSON.stringify(said)}`)), 5_000)
        const check = () => {
          if (said.some((line) => line.includes(what))) {
            clearTimeout(timer)
            waiting.delete(check)
            resolve()
          }
        }
        waiting.add(check)
        check()
        void Effect.runPromise(Fiber.await(fiber)).then(() => {
          check()
          if (waiting.delete(check)) {
            clearTimeout(timer)
            reject(new Error(`ended without saying ${what}: ${JSON.stringify(said)}`))
          }
        })
      }),
    ended: async () => {
      const exit = await Effect.runPromise(Effect.timeout(Fiber.await(fiber), "5 seconds"))
      return Exit.match(exit, {
        onSuccess: () => Either.right("serving" as const),
        onFailure: (cause) => {
          const failure = cause._tag === "Fail" ? cause.error : undefined
          if (failure === undefined) throw new Error(`serving ended otherwise: ${String(cause)}`)
          return Either.left(failure)
        }
      })
    }
  }
}

/** `serveOn` for `file` at `place`. */
const serving = async (file: ConfigFile, place: Place, options?: ServeOptions, onLine?: (line: string) => void) =>
  run(Effect.flatMap(Effect.orDie(configFrom(file)), (config) => serveOn(config, place, options)), onLine)

const stopped = (code: 1 | 2, line: string) => Either.left(expect.objectContaining({ _tag: "ServeStop", code, line }))

const modeOf = async (file: string) => {
  const stats = await fs.lstat(file)
  return { mode: stats.mode & 0o7777, gid: stats.gid }
}

const get = (target: string, host = "launchpad.example") =>
  `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`

describe("buddy serve on its own socket", () => {
  it("makes the place, listens, says where, and serves buddy's app under the names it serves", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    const served = await serving(await fileFor(), { _tag: "Socket", path: at })
    await served.saying("listening on")
    expect(served.said).toStrictEqual([`buddy serve: listening on unix:${at}`])
    expect([await modeOf(path.dirname(at)), await modeOf(at)]).toStrictEqual([
      { mode: 0o700, gid: ownGid },
      { mode: 0o600, gid: ownGid }
    ])
    const answer = parse(await exchange(at, get("/api/buddy")))
    expect(answer.statusLine).toBe("HTTP/1.1 200 OK")
    expect(JSON.parse(answer.body)).toMatchObject({ kind: "buddy", locale: "en" })
    expect(parse(await exchange(at, get("/api/buddy", "evil.example"))).statusLine).toBe("HTTP/1.1 403 Forbidden")
    await served.saying("evil.example")
    expect(served.said.slice(1)).toStrictEqual([
      "buddy serve: refused a request for \"evil.example\" (403 host-mismatch): it serves only localhost, 127.0.0.1, " +
      "[::1], launchpad.example; a proxy must send one of them as Host."
    ])
  })

  it("says each cause of a same-origin refusal once on stderr (D50), answers 403 origin-mismatch, asks Hermes nothing", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    const served = await serving(await fileFor(), { _tag: "Socket", path: at })
    await served.saying("listening on")
    const asked = (await gateway()).received.length
    const start = (headers: string) =>
      `POST /api/buddy/sign-in/start HTTP/1.1\r\nHost: localhost\r\n${headers}Content-Type: application/json\r\n` +
      "Content-Length: 2\r\nConnection: close\r\n\r\n{}"
    const posts = [
      `Origin: ${launchpad}\r\n`,
      "Sec-Fetch-Site: cross-site\r\n",
      "Sec-Fetch-Site: same-origin\r\n",
      "Sec-Fetch-Site: same-origin\r\nOrigin: https://buddy.example\r\n",
      "Sec-Fetch-Site: same-origin\r\nOrigin: https://launchpad.example:8443\r\n"
    ]
    for (const headers of [...posts, ...posts]) {
      const answer = parse(await exchange(at, start(headers)))
      expect([answer.statusLine, answer.body]).toStrictEqual([
        "HTTP/1.1 403 Forbidden",
        "{\"error\":\"denied\",\"reason\":\"origin-mismatch\"}"
      ])
    }
    await served.saying("https://launchpad.example:8443")
    // logfmt on stderr: the message quoted, its own quotes escaped.
    const refusals = served.said.filter((line) => line.includes("refused a POST (403 origin-mismatch)"))
    expect(
      refusals.map((line) =>
        /it came without Sec-Fetch-Site|Sec-Fetch-Site is cross-site|without Origin|Buddy's own origin|launchpad.example:8443.{0,3} but launchpadOrigin is/
          .exec(line)?.[0]
      )
    )
      .toStrictEqual([
        "it came without Sec-Fetch-Site",
        "Sec-Fetch-Site is cross-site",
        "without Origin",
        "Buddy's own origin",
        "launchpad.example:8443\\\", but launchpadOrigin is"
      ])
    expect((await gateway()).received.length).toBe(asked)
  })

  it("says a Hermes home that does not exist at start and at the first read, apart from a stopped gateway (D50)", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    const served = await serving(await fileFor({ hermesHome: path.join(dir, "nope") }), { _tag: "Socket", path: at })
    await served.saying("listening on")
    expect(served.said.filter((line) => line.includes("does not exist"))).toHaveLength(1)
    for (let read = 0; read < 3; read++) {
      const answer = parse(await exchange(at, get("/api/buddy")))
      expect(JSON.parse(answer.body)).toMatchObject({ kind: "buddy", state: "unknown", reason: "not-running" })
    }
    await served.saying("a read found that")
    expect(served.said.filter((line) => line.includes("does not exist"))).toHaveLength(2)
    expect(served.said.join("\n")).not.toContain(path.join(dir, "nope"))
  })

  it("serves its own OpenAPI document: the app's answers and its own server's (408, 417, 431, host-mismatch; D54)", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    const served = await serving(await fileFor(), { _tag: "Socket", path: at })
    await served.saying("listening on")
    const answer = parse(await exchange(at, get("/api/buddy/openapi.json", "localhost")))
    expect(answer.statusLine).toBe("HTTP/1.1 200 OK")
    expect(answer.body).toBe(openApiJson("/api/buddy", "buddy-serve"))
    const document = JSON.parse(answer.body) as {
      readonly paths: Record<string, Record<string, { readonly responses: Record<string, unknown> }>>
    }
    expect(Object.keys(document.paths["/api/buddy"]?.["get"]?.responses ?? {})).toStrictEqual(
      ["200", "400", "403", "404", "408", "413", "417", "431", "500"]
    )
    // The same app mounted in a Launchpad's host lists none of them.
    expect(answer.body).not.toBe(openApiJson("/api/buddy", "mounted"))
  })

  it("answers HEAD wherever GET is, GET's status line and headers without a body; a POST path's is 405 (D52)", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    await (await serving(await fileFor(), { _tag: "Socket", path: at })).saying("listening on")
    const head = (target: string, host = "launchpad.example") =>
      `HEAD ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`
    for (const target of ["/api/buddy", "/api/buddy/openapi.json"]) {
      const got = parse(await exchange(at, get(target)))
      const headed = parse(await exchange(at, head(target)))
      expect([target, headed.statusLine, headed.headers, headed.body]).toStrictEqual([
        target,
        "HTTP/1.1 200 OK",
        got.headers,
        ""
      ])
      expect(headed.headers).toContain(`content-length: ${Buffer.byteLength(got.body)}`)
    }
    const start = parse(await exchange(at, head("/api/buddy/sign-in/start")))
    expect([start.statusLine, start.body]).toStrictEqual(["HTTP/1.1 405 Method Not Allowed", ""])
    expect(start.headers).toContain("allow: POST")
    expect(start.headers).toStrictEqual(parse(await exchange(at, get("/api/buddy/sign-in/start"))).headers)
    // buddy serve's own refusal of a foreign Host, without its body too.
    const foreign = parse(await exchange(at, head("/api/buddy", "evil.example")))
    expect([foreign.statusLine, foreign.body]).toStrictEqual(["HTTP/1.1 403 Forbidden", ""])
  })

  it("uses buddy's own limits unless given others, and the config's body limit for 100-continue", async () => {
    const dir = await tempDir()
    const keptAlive = async (at: string) => {
      const conversation = await converse(at)
      conversation.socket.write("GET /api/buddy HTTP/1.1\r\nHost: localhost\r\n\r\n")
      await conversation.until("\"locale\"")
      conversation.socket.destroy()
      return parse(conversation.text()).headers
    }
    const own = path.join(dir, "own", "serve.sock")
    await (await serving(await fileFor(), { _tag: "Socket", path: own })).saying("listening on")
    expect(await keptAlive(own)).toContain("Keep-Alive: timeout=5")
    const given = path.join(dir, "given", "serve.sock")
    const limits = { ...NodeServer.serverLimits, keepAliveTimeout: Duration.seconds(3) }
    await (await serving(await fileFor(), { _tag: "Socket", path: given }, { limits })).saying("listening on")
    expect(await keptAlive(given)).toContain("Keep-Alive: timeout=3")
    const start = (length: number) =>
      `POST /api/buddy/sign-in/start HTTP/1.1\r\nHost: localhost\r\nOrigin: ${launchpad}\r\nSec-Fetch-Site: same-origin\r\n` +
      `Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`
    const fits = await converse(own)
    fits.socket.write(start(16 * 1024))
    expect(await fits.until("\r\n\r\n")).toBe("HTTP/1.1 100 Continue\r\n\r\n")
    fits.socket.destroy()
    expect(parse(await exchange(own, start(16 * 1024 + 1))).statusLine).toBe("HTTP/1.1 413 Payload Too Large")
  })

  asRoot("shares the socket with the config's group, by name or by gid", async () => {
    const dir = await tempDir()
    const byName = path.join(dir, "name", "serve.sock")
    await (await serving(await fileFor(), { _tag: "Socket", path: byName }, { socketGroup: "www-data" })).saying(
      "listening on"
    )
    expect([await modeOf(path.dirname(byName)), await modeOf(byName)]).toStrictEqual([
      { mode: 0o710, gid: 33 },
      { mode: 0o660, gid: 33 }
    ])
    const byGid = path.join(dir, "gid", "serve.sock")
    await (await serving(await fileFor(), { _tag: "Socket", path: byGid }, { socketGroup: 4242 })).saying(
      "listening on"
    )
    expect([await modeOf(path.dirname(byGid)), await modeOf(byGid)]).toStrictEqual([
      { mode: 0o710, gid: 4242 },
      { mode: 0o660, gid: 4242 }
    ])
  })

  asRoot("says at start which accounts the group admits when it admits more than one, naming them", async () => {
    const dir = await tempDir()
    // A name of this process's own: two suites at once must not share the group they change.
    const crowd = `buddy-crowd-${process.pid}`
    execFileSync("groupadd", ["-f", crowd])
    execFileSync("gpasswd", ["-M", "nobody,www-data", crowd])
    cleanups.push(async () => execFileSync("groupdel", [crowd]))
    const crowded = path.join(dir, "crowd", "serve.sock")
    const served = await serving(await fileFor(), { _tag: "Socket", path: crowded }, { socketGroup: crowd })
    await served.saying("listening on")
    expect(served.said).toStrictEqual([
      `buddy serve: the socketGroup ${crowd} admits 2 accounts to the socket (nobody, www-data); each may do all ` +
      "the proxy may, signing Buddy out included. Give the proxy a group of its own holding its account alone " +
      "(docs/operator-guide.md, \"A proxy group of its own\").",
      `buddy serve: listening on unix:${crowded}`
    ])
    // One member is the proxy's own group: nothing to say.
    execFileSync("gpasswd", ["-M", "www-data", crowd])
    const alone = path.join(dir, "alone", "serve.sock")
    const quiet = await serving(await fileFor(), { _tag: "Socket", path: alone }, { socketGroup: crowd })
    await quiet.saying("listening on")
    expect(quiet.said).toStrictEqual([`buddy serve: listening on unix:${alone}`])
  })

  asRoot("refuses a socket its group could not reach, naming the directory in the way", async () => {
    const dir = await tempDir()
    const closed = path.join(dir, "closed")
    await fs.mkdir(closed, { mode: 0o700 })
    const at = path.join(closed, "buddy", "serve.sock")
    const served = await serving(await fileFor(), { _tag: "Socket", path: at }, { socketGroup: "www-data" })
    const ended = await served.ended()
    expect(ended).toStrictEqual(stopped(
      1,
      expect.stringContaining(
        `buddy serve: ${closed}, on the way to the socket, has mode 0700: the group www-data (socketGroup) cannot pass it`
      )
    ))
    expect(served.said).toStrictEqual([])
    await expect(fs.lstat(path.dirname(at))).rejects.toMatchObject({ code: "ENOENT" })
  })

  asRoot(
    "names in a refusal a group by its gid where the group file has none, and buddy's own place as its own",
    async () => {
      const dir = await tempDir()
      const closed = path.join(dir, "closed")
      await fs.mkdir(closed, { mode: 0o700 })
      const byGid = await serving(
        await fileFor(),
        { _tag: "Socket", path: path.join(closed, "buddy", "serve.sock") },
        { socketGroup: 4242 }
      )
      expect(await byGid.ended()).toStrictEqual(stopped(
        1,
        expect.stringContaining(
          `buddy serve: ${closed}, on the way to the socket, has mode 0700: the group 4242 (socketGroup) cannot pass it`
        )
      ))
      // A directory found open to others: buddy's own default place may be removed; another is not buddy's to remove.
      const open = path.join(dir, "open")
      await fs.mkdir(open, { mode: 0o755 })
      await fs.chmod(open, 0o755)
      const at = path.join(open, "serve.sock")
      const own = await serving(await fileFor(), { _tag: "Socket", path: at, own: true })
      const named = await serving(await fileFor(), { _tag: "Socket", path: at })
      expect([await own.ended(), await named.ended()]).toStrictEqual([
        stopped(
          1,
          `buddy serve: the socket's directory ${open} has mode 0755: the group and others may enter it. It is ` +
            `buddy's own place: while no buddy runs, remove it (rm -r ${open}); buddy makes it again closed.`
        ),
        stopped(
          1,
          `buddy serve: the socket's directory ${open} has mode 0755: the group and others may enter it. Choose a ` +
            "--socket in a directory closed to others (make buddy a directory of its own, as root: install -d -o root " +
            "-m 0700 DIR)."
        )
      ])
    }
  )

  asRoot("takes the group from the config file, and none when it names none", async () => {
    const dir = await tempDir()
    const shared = path.join(dir, "shared", "serve.sock")
    const file = await fileFor({ socketGroup: 4242 })
    await run(serveFile(file, { _tag: "Socket", path: shared })).saying("listening on")
    expect(await modeOf(shared)).toStrictEqual({ mode: 0o660, gid: 4242 })
    const own = path.join(dir, "own", "serve.sock")
    await run(serveFile(await fileFor(), { _tag: "Socket", path: own })).saying("listening on")
    expect(await modeOf(own)).toStrictEqual({ mode: 0o600, gid: ownGid })
  })
})

describe("buddy serve without Buddy", () => {
  it("says at start that no buddyOrigin means every route answers 404 buddy-absent", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    const { buddyOrigin: _, ...file } = await fileFor()
    const served = await serving(file, { _tag: "Socket", path: at })
    await served.saying("listening on")
    expect(served.said).toStrictEqual([
      "buddy serve: the config has no buddyOrigin (or no --config was given), so Buddy is absent here and every " +
      "route answers 404 buddy-absent.",
      `buddy serve: listening on unix:${at}`
    ])
  })

  it("says at start that another environment means every route answers 404 buddy-absent", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    const served = await serving(await fileFor({ environment: "local" }), { _tag: "Socket", path: at })
    await served.saying("listening on")
    expect(served.said).toStrictEqual([
      "buddy serve: the config's environment is local, not hosted-personal, so Buddy is absent here and every " +
      "route answers 404 buddy-absent.",
      `buddy serve: listening on unix:${at}`
    ])
  })
})

describe("buddy serve stops before serving", () => {
  it("with exit 2 for a socketGroup no group of this machine has", async () => {
    const dir = await tempDir()
    const served = await serving(await fileFor(), { _tag: "Socket", path: path.join(dir, "s.sock") }, {
      socketGroup: "no-such-group"
    })
    expect(await served.ended()).toStrictEqual(stopped(
      2,
      "buddy serve: the --config file's \"socketGroup\" names a group this machine does not have (/etc/group); " +
        "give an existing group or its gid."
    ))
    expect(served.said).toStrictEqual([])
  })

  it("with exit 2 for root's group, by name or gid, before anything is made", async () => {
    const dir = await tempDir()
    for (const socketGroup of ["root", 0] as const) {
      const at = path.join(dir, String(socketGroup), "serve.sock")
      const served = await serving(await fileFor(), { _tag: "Socket", path: at }, { socketGroup })
      expect(await served.ended()).toStrictEqual(stopped(
        2,
        "buddy serve: the --config file's \"socketGroup\" names root's group (gid 0); root needs no group to reach " +
          "the socket, and sharing it there admits every account in that group. Name the proxy's own group."
      ))
      await expect(fs.lstat(path.dirname(at))).rejects.toMatchObject({ code: "ENOENT" })
    }
  })

  asRoot(
    "with exit 1 and the place's words for a place it refuses, naming the owner from the accounts file",
    async () => {
      const dir = await tempDir()
      const place = path.join(dir, "buddy")
      await fs.mkdir(place, { mode: 0o700 })
      await fs.chown(place, 65534, 65534)
      const served = await serving(await fileFor(), { _tag: "Socket", path: path.join(place, "serve.sock") })
      expect(await served.ended()).toStrictEqual(stopped(
        1,
        `buddy serve: the socket's directory ${place} belongs to nobody (uid 65534); buddy runs as root. ` +
          "Choose a --socket in a directory of root's own."
      ))
      expect(served.said).toStrictEqual([])
    }
  )

  it("with exit 1 when the socket's path appears while it starts, or its directory goes", async () => {
    const dir = await tempDir()
    const { buddyOrigin: _, ...absent } = await fileFor()
    const appears = path.join(dir, "appears", "serve.sock")
    // The absence is said after the place is ready and before the server listens.
    const squatted = await serving(absent, { _tag: "Socket", path: appears }, {}, (line) => {
      if (line.includes("absent")) writeFileSync(appears, "")
    })
    expect(await squatted.ended()).toStrictEqual(stopped(
      1,
      `buddy serve: ${appears} appeared while buddy was starting; stop whatever made it and start again.`
    ))
    const goes = path.join(dir, "goes", "serve.sock")
    const removed = await serving(absent, { _tag: "Socket", path: goes }, {}, (line) => {
      if (line.includes("absent")) rmSync(path.dirname(goes), { recursive: true })
    })
    // Node says EACCES for a socket in a directory that is not there.
    expect(await removed.ended()).toStrictEqual(stopped(
      1,
      `buddy serve: it could not listen on the socket ${goes} (EACCES).`
    ))
  })
})

describe("buddy serve on a socket a service manager handed over", () => {
  /** The handed sockets at `at`, each closed after the test unless `kept` (one the server takes and closes). */
  const handed = async (at: string, kept?: "listening" | "accepted") => {
    const fds = await handedSockets(at)
    for (const [name, fd] of Object.entries(fds)) {
      if (name !== kept) cleanups.push(async () => closeSync(fd))
    }
    return fds
  }

  it("serves on it as it is, checked like its own, and says its path", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "handed.sock")
    const { listening } = await handed(at, "listening")
    const before = await modeOf(at)
    const served = await serving(await fileFor(), { _tag: "Handed", fd: listening })
    await served.saying("listening on")
    expect(served.said).toStrictEqual([`buddy serve: listening on unix:${at}`])
    expect(parse(await exchange(at, get("/api/buddy"))).statusLine).toBe("HTTP/1.1 200 OK")
    // Not ours to chmod: it is as the service manager made it.
    expect(await modeOf(at)).toStrictEqual(before)
  })

  it("stops with exit 1 when others may connect to it", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "handed.sock")
    const { listening } = await handed(at)
    await fs.chmod(at, 0o666)
    const served = await serving(await fileFor(), { _tag: "Handed", fd: listening })
    expect(await served.ended()).toStrictEqual(stopped(
      1,
      `buddy serve: the socket ${at} has mode 0666: accounts the config does not name may connect; give it ` +
        "SocketMode=0600 (or 0660 with SocketGroup= the config's socketGroup)."
    ))
  })

  it("stops with exit 1 when it has no path to check", async () => {
    const dir = await tempDir()
    const { connected } = await handed(path.join(dir, "handed.sock"))
    const served = await serving(await fileFor(), { _tag: "Handed", fd: connected })
    expect(await served.ended()).toStrictEqual(stopped(
      1,
      `buddy serve: the socket the service manager handed over (fd ${connected}) has no path buddy can check; ` +
        "give its .socket unit a ListenStream= path."
    ))
  })

  it("stops with exit 1 and the system's code when it cannot listen on it", async () => {
    const dir = await tempDir()
    const { accepted } = await handed(path.join(dir, "handed.sock"), "accepted")
    const served = await serving(await fileFor(), { _tag: "Handed", fd: accepted })
    expect(await served.ended()).toStrictEqual(stopped(
      1,
      `buddy serve: it could not listen on the socket the service manager handed over (fd ${accepted}, EINVAL).`
    ))
  })
})
