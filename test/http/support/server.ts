// The HTTP app on a real NodeHttpServer at 127.0.0.1 (a free port), and raw clients that show
// every byte: node:http without an agent and with exactly the headers given, and plain TCP
// sockets for the requests node:http would reshape (chunked bodies, a body that never ends).
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Ref } from "effect"
import type { Scope } from "effect"
import { promises as fsp } from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { BuddyHttpApp } from "../../../src/http/app.js"
import { BuddyConfig, type BuddyConfigShape } from "../../../src/services/BuddyConfig.js"
import { JournalCapture, JournalLines } from "../../../src/services/Journal.js"
import { BuddyServicesLive } from "../../../src/services/layers.js"
import { SignIn } from "../../../src/services/SignIn.js"
import { Status } from "../../../src/services/Status.js"
import { testDeadlines } from "../../support/buddy.js"

export const LAUNCHPAD = "https://launchpad.example"
export const BUDDY = "https://buddy.example"
export const CODE = "ABCD-EFGHK"
export const PAGE = "https://auth.openai.com/codex/device"

/** A hosted personal environment with Buddy, the fake's home and the short test deadlines. */
export const hostedConfig = (
  hermesHome: string | undefined,
  overrides: Partial<Omit<BuddyConfigShape, "deadlines" | "limits">> = {}
): BuddyConfigShape =>
  BuddyConfig.forGateway({
    hermesHome,
    launchpadOrigin: LAUNCHPAD,
    buddyOrigin: BUDDY,
    environment: "hosted-personal",
    locale: "cs",
    deadlines: testDeadlines,
    ...overrides
  })

/** What the app needs, from the real services with a capturing journal. */
export const liveServices = (config: BuddyConfigShape) =>
  BuddyServicesLive.pipe(Layer.provideMerge(JournalCapture), Layer.provideMerge(BuddyConfig.gatewayLayer(config)))

export interface Served {
  readonly port: number
  /** The journal lines written so far (empty when the services capture none). */
  readonly journal: Effect.Effect<ReadonlyArray<string>>
}

/** `BuddyHttpApp` served on 127.0.0.1 with these services, for the test's scope. */
export const serveWith = <E>(
  services: Layer.Layer<SignIn | Status | BuddyConfig, E>,
  makeServer: () => http.Server = http.createServer
): Effect.Effect<Served, E, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(services)
    const built = yield* Layer.build(
      HttpServer.serve(BuddyHttpApp).pipe(
        Layer.provide(Layer.succeedContext(context)),
        Layer.provideMerge(NodeHttpServer.layer(makeServer, { host: "127.0.0.1", port: 0 }))
      )
    ).pipe(Effect.orDie)
    const address = Context.get(built, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("the server has no TCP address")
    const lines = Context.getOption(context, JournalLines)
    const journal = lines._tag === "Some" ? Ref.get(lines.value) : Effect.succeed<ReadonlyArray<string>>([])
    return { port: address.port, journal }
  })

/** `BuddyHttpApp` on the real services for this config. */
export const serve = (config: BuddyConfigShape) => serveWith(liveServices(config))

/** A private, empty home where no gateway runs (no socket, no pointer). */
export const emptyHome = Effect.acquireRelease(
  Effect.promise(async () => {
    const home = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), "buddy-http-nohermes-")))
    await fsp.chmod(home, 0o700)
    return home
  }),
  (home) => Effect.promise(() => fsp.rm(home, { recursive: true, force: true }))
)

export interface Reply {
  readonly status: number
  /** Header names lower-cased; repeated headers joined by Node's rules. */
  readonly headers: http.IncomingHttpHeaders
  /** Every header line as received, name as sent. */
  readonly rawHeaders: ReadonlyArray<readonly [string, string]>
  readonly body: string
}

export type HeaderList = ReadonlyArray<readonly [string, string]>

export interface Sent {
  readonly method: string
  readonly path: string
  /** Exactly these header lines, in this order; nothing is added (not even Host). */
  readonly headers: HeaderList
  readonly body?: string | Uint8Array
}

const pairs = (raw: ReadonlyArray<string>): HeaderList => {
  const out: Array<readonly [string, string]> = []
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!])
  return out
}

/** One request over node:http with no agent and exactly the header lines given. */
export const send = (port: number, sent: Sent): Effect.Effect<Reply> =>
  Effect.async<Reply>((resume) => {
    const request = http.request({
      host: "127.0.0.1",
      port,
      method: sent.method,
      path: sent.path,
      agent: false,
      setHost: false,
      headers: sent.headers.flatMap(([name, value]) => [name, value])
    })
    request.on("response", (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resume(Effect.succeed({
          status: response.statusCode ?? 0,
          headers: response.headers,
          rawHeaders: pairs(response.rawHeaders),
          body: Buffer.concat(chunks).toString("utf8")
        })))
      response.on("error", (error) => resume(Effect.die(error)))
    })
    request.on("error", (error) => resume(Effect.die(error)))
    request.end(sent.body)
    return Effect.sync(() => request.destroy())
  }).pipe(
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("no answer within 5 s") }),
    Effect.orDie
  )

/** The header lines of a request the Launchpad's own page would send. */
export const sameOrigin: HeaderList = [["Origin", LAUNCHPAD], ["Sec-Fetch-Site", "same-origin"]]

export const host = (port: number) => ["Host", `127.0.0.1:${port}`] as const

/** A GET as a browser's fetch would send it (no Origin needed). */
export const get = (port: number, path: string, extra: HeaderList = []) =>
  send(port, { method: "GET", path, headers: [host(port), ...extra] })

/** A POST with a JSON body and the same-origin headers, or exactly `headers` after Host when given. */
export const post = (
  port: number,
  path: string,
  body: string | Uint8Array,
  headers: HeaderList = [...sameOrigin, ["Content-Type", "application/json"]]
) =>
  send(port, {
    method: "POST",
    path,
    headers: [host(port), ...headers, ["Content-Length", String(Buffer.byteLength(body))]],
    body
  })

export const START = "/api/buddy/sign-in/start"
export const POLL = "/api/buddy/sign-in/poll"
export const CANCEL = "/api/buddy/sign-in/cancel"
export const SIGN_OUT = "/api/buddy/sign-out"
export const STATUS = "/api/buddy"
export const OPENAPI = "/api/buddy/openapi.json"

export const handleBody = (handle: string) => JSON.stringify({ handle })

export interface RawReply {
  readonly status: number
  readonly headers: HeaderList
  readonly body: string
  /** Everything received, as text. */
  readonly raw: string
}

/** Parses one HTTP/1.1 answer with a Content-Length body out of the bytes received so far. */
const parseReply = (received: Buffer): RawReply | undefined => {
  const end = received.indexOf("\r\n\r\n")
  if (end < 0) return undefined
  const [statusLine = "", ...lines] = received.subarray(0, end).toString("latin1").split("\r\n")
  const headers = lines.map((line): readonly [string, string] => {
    const colon = line.indexOf(":")
    return [line.slice(0, colon), line.slice(colon + 1).trim()]
  })
  const length = headers.find(([name]) => name.toLowerCase() === "content-length")
  if (length === undefined) return undefined
  const bodyStart = end + 4
  const bodyEnd = bodyStart + Number(length[1])
  if (received.length < bodyEnd) return undefined
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body: received.subarray(bodyStart, bodyEnd).toString("utf8"),
    raw: received.toString("utf8")
  }
}

/**
 * Writes `head` on a fresh TCP connection, then calls `stream` with a writer that keeps going
 * until the answer has arrived; resolves with the first whole answer, or dies when the
 * connection ends (reset or closed) before one arrived or no answer came within 5 s.
 */
export const rawExchange = (
  port: number,
  head: string | Buffer,
  stream: (write: (bytes: string | Buffer) => Promise<boolean>, answered: () => boolean) => Promise<void> = () =>
    Promise.resolve()
): Effect.Effect<RawReply> =>
  Effect.async<RawReply>((resume) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    let received = Buffer.alloc(0)
    let done = false
    const finish = (outcome: Effect.Effect<RawReply>) => {
      if (done) return
      done = true
      socket.destroy()
      resume(outcome)
    }
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const reply = parseReply(received)
      if (reply !== undefined) finish(Effect.succeed(reply))
    })
    const ended = (why: string) => () =>
      finish(Effect.dieMessage(`connection ${why} before a whole answer; got: ${JSON.stringify(received.toString())}`))
    socket.on("error", (error) => ended(`failed (${error.message})`)())
    socket.on("end", ended("ended"))
    socket.on("close", ended("closed"))
    const write = (bytes: string | Buffer) =>
      new Promise<boolean>((resolve) => {
        if (done || socket.destroyed) return resolve(false)
        if (socket.write(bytes)) return resolve(true)
        const onDrain = () => resolve(true)
        socket.once("drain", onDrain)
        // A server that stopped reading: give up waiting for drain once the answer is in.
        const check = setInterval(() => {
          if (done || socket.destroyed) {
            clearInterval(check)
            socket.off("drain", onDrain)
            resolve(false)
          }
        }, 10)
        socket.once("drain", () => clearInterval(check))
      })
    socket.once("connect", () => {
      void write(head).then(() => stream(write, () => done))
    })
    return Effect.sync(() => socket.destroy())
  }).pipe(
    // An app that waits for a body that never comes fails the test quickly instead of hanging it.
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("no whole answer within 5 s") }),
    Effect.orDie
  )

/**
 * Stand-in SignIn and Status for tests of where a request lands or how a failure is answered: every
 * SignIn operation dies unless `signIn` gives it, no sign-in is held, and Buddy reads as `state`.
 */
export const standInServices = (
  signIn: Partial<SignIn["Type"]> = {},
  state: "works" | "waits" = "waits"
): Layer.Layer<SignIn | Status> => {
  const never = Effect.die("not used")
  return Layer.merge(
    Layer.succeed(
      SignIn,
      SignIn.of({
        start: never,
        poll: () => never,
        cancel: () => never,
        signOut: never,
        current: Effect.succeed("none"),
        ...signIn
      })
    ),
    Layer.succeed(Status, Status.of({ read: Effect.succeed({ state }) }))
  )
}
