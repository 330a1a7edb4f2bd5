// `buddy serve`'s server (src/serve/node-server.ts and connections.ts; C6, D15, D22, D33, D40) in
// this process, on a socket in a temporary directory, with limits short enough that a deadline
// passes in a fraction of a second, spoken to in raw bytes: Node's refusals answered in the house
// style to the byte, the name a request gives pinned before an app of the test's own runs, the
// expectation decided by the declared length, the lingering close after an answer given before its
// body arrived, and a stop that ends the requests in flight. The same over the real executable with
// its default limits: test/cli/serve-limits.test.ts.
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Duration, Effect, ExecutionStrategy, Exit, Layer, Scope, Stream } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as NodeServer from "../../src/serve/node-server.js"
import { answered, converse, exchange, letGo, parse, refusal } from "./support/raw.js"

const limits: NodeServer.ServerLimits = {
  headersTimeout: Duration.millis(300),
  requestTimeout: Duration.millis(600),
  // Advertised in whole seconds (`Keep-Alive: timeout=2`), which is how a test sees it without waiting.
  keepAliveTimeout: Duration.seconds(2),
  connectionsCheckingInterval: Duration.millis(50),
  maxHeaderSize: 2048,
  lingerTime: Duration.millis(500),
  // Past the linger time: the tests of the other bounds are not cut by a busy machine's pauses.
  lingerIdle: Duration.seconds(1),
  lingerBytes: 4096
}
const bodyLimit = 1024

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

/**
 * The test's own app: `METHOD url length-of-body`; a body declared over `bodyLimit` answered 413
 * without reading it (as buddy's app does); `/slow` begins its answer and never ends it; `/hold`
 * never answers.
 */
const app: HttpApp.Default = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (Number(request.headers["content-length"] ?? 0) > bodyLimit) {
    return HttpServerResponse.text("too large", { status: 413 })
  }
  if (request.url === "/slow") {
    return HttpServerResponse.stream(Stream.concat(Stream.make(new TextEncoder().encode("first")), Stream.never))
  }
  if (request.url === "/hold") return yield* Effect.never
  const body = yield* Effect.orDie(request.text)
  return HttpServerResponse.text(`${request.method} ${request.url} ${body.length}`)
})

/** What the test's app answers, parsed: `METHOD url length` with its headers on a kept-alive connection. */
const served = (text: string) => ({
  statusLine: "HTTP/1.1 200 OK",
  headers: [
    "content-type: text/plain",
    `content-length: ${text.length}`,
    "Connection: keep-alive",
    "Keep-Alive: timeout=2"
  ],
  body: text
})

interface Serving {
  readonly at: string
  /** The lines said on stderr (the refusal report). */
  readonly said: Array<string>
  readonly server: HttpServer.HttpServer
  readonly scope: Scope.CloseableScope
}

/** The server on a fresh socket, the app served in its scope, stopped after the test. */
const serving = async (
  options: {
    readonly launchpadOrigin?: string
    readonly serve?: boolean
    readonly limits?: Partial<NodeServer.ServerLimits>
  } = {}
): Promise<Serving> => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-node-server-"))
  const at = path.join(dir, "serve.sock")
  const said: Array<string> = []
  const scope = Effect.runSync(Scope.make())
  cleanups.push(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await fs.rm(dir, { recursive: true, force: true })
  })
  const listener = {
    listen: { _tag: "Socket", path: at } as const,
    launchpadOrigin: options.launchpadOrigin ?? "https://launchpad.example:8443",
    say: (line: string) => said.push(line)
  }
  const context = await Effect.runPromise(
    Layer.buildWithScope(NodeServer.layer(listener, { ...limits, ...options.limits }, bodyLimit), scope)
  )
  const server = Context.get(context, HttpServer.HttpServer)
  if (options.serve !== false) await Effect.runPromise(Scope.extend(server.serve(app), scope))
  return { at, said, server, scope }
}

const get = (target: string, host = "localhost") =>
  `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`

describe("buddy serve's server", () => {
  it("has generous limits for a loopback client and short ones for one that holds a connection", () => {
    expect(NodeServer.serverLimits).toStrictEqual({
      headersTimeout: Duration.seconds(10),
      requestTimeout: Duration.seconds(30),
      keepAliveTimeout: Duration.seconds(5),
      connectionsCheckingInterval: Duration.seconds(1),
      maxHeaderSize: 16_384,
      lingerTime: Duration.seconds(30),
      lingerIdle: Duration.seconds(5),
      lingerBytes: 16_777_216
    })
  })

  it("listens on the socket it is given, at that address, and serves a request that names it", async () => {
    const { at, server } = await serving()
    expect(server.address).toStrictEqual({ _tag: "UnixAddress", path: at })
    // Its queue of connections not yet accepted, as the kernel reports it (ss's Send-Q of a listening
    // socket): 4096, or the kernel's cap, not Node's 511 (the soak's 2 000 at once met EAGAIN there).
    const somaxconn = Number(await fs.readFile("/proc/sys/net/core/somaxconn", "utf8"))
    const listening = execFileSync("ss", ["-xlnH", "src", at], { encoding: "utf8" }).trim().split(/\s+/)
    expect(listening.slice(0, 4)).toStrictEqual(["u_str", "LISTEN", "0", String(Math.min(4096, somaxconn))])
    const conversation = await converse(at)
    conversation.socket.write("GET /api/buddy?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
    await conversation.until("GET /api/buddy?x=1 0")
    expect(parse(conversation.text())).toStrictEqual(served("GET /api/buddy?x=1 0"))
    // The same connection, kept alive, serves the next request.
    conversation.socket.write("POST /echo HTTP/1.1\r\nHost: LOCALHOST\r\nContent-Length: 3\r\n\r\nabc")
    await conversation.until("POST /echo 3")
    expect(parse(conversation.text().slice(conversation.text().indexOf("HTTP/1.1 200", 1)))).toStrictEqual(
      served("POST /echo 3")
    )
    conversation.socket.destroy()
  })

  it("serves an absolute-form target by its own authority, in origin form, and the Launchpad's host with its port", async () => {
    const { at, said } = await serving()
    expect(parse(await exchange(at, get("http://localhost/api/buddy?x", "evil.example"))).body).toBe(
      "GET /api/buddy?x 0"
    )
    expect(parse(await exchange(at, get("http://127.0.0.1?q", "evil.example"))).body).toBe("GET /?q 0")
    expect(parse(await exchange(at, get("/api/buddy", "launchpad.example:8443"))).body).toBe("GET /api/buddy 0")
    expect(parse(await exchange(at, "GET /old HTTP/1.0\r\nHost: [::1]\r\n\r\n")).body).toBe("GET /old 0")
    expect(said).toStrictEqual([])
  })

  it("answers a name that is not its own 403 host-mismatch, and says each such name once on stderr", async () => {
    const { at, said } = await serving({ launchpadOrigin: "https://launchpad.example" })
    const hostMismatch = answered("403 Forbidden", "{\"error\":\"denied\",\"reason\":\"host-mismatch\"}")
    expect(parse(await exchange(at, get("/api/buddy", "evil.example")))).toStrictEqual(hostMismatch)
    expect(parse(await exchange(at, get("/api/buddy", "evil.example")))).toStrictEqual(hostMismatch)
    expect(parse(await exchange(at, get("https://localhost/api/buddy")))).toStrictEqual(hostMismatch)
    expect(parse(await exchange(at, "GET /api/buddy HTTP/1.0\r\n\r\n"))).toStrictEqual(hostMismatch)
    const accepted =
      "it serves only localhost, 127.0.0.1, [::1], launchpad.example; a proxy must send one of them as Host."
    expect(said).toStrictEqual([
      `buddy serve: refused a request for "evil.example" (403 host-mismatch): ${accepted}`,
      `buddy serve: refused a request for "https://localhost" (403 host-mismatch): ${accepted}`,
      `buddy serve: refused a request for "" (403 host-mismatch): ${accepted}`
    ])
  })

  it("answers two Host fields, or none in HTTP/1.1, 400 invalid-request, and says nothing", async () => {
    const { at, said } = await serving()
    const invalid = answered("400 Bad Request", "{\"error\":\"invalid-request\"}")
    for (
      const request of [
        "GET /api/buddy HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n",
        "GET /api/buddy HTTP/1.1\r\nHost: evil.example\r\nHost: localhost\r\n\r\n",
        "GET /api/buddy HTTP/1.1\r\n\r\n"
      ]
    ) {
      expect(parse(await exchange(at, request))).toStrictEqual(invalid)
    }
    expect(said).toStrictEqual([])
  })
})

describe("Node's own refusals, in the house style", () => {
  it("answers a malformed request 400 invalid-request, byte for byte, and closes", async () => {
    const { at } = await serving()
    expect(await exchange(at, "GET /api/buddy HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n")).toBe(
      refusal("400 Bad Request", "{\"error\":\"invalid-request\"}")
    )
  })

  it("answers headers over the limit 431 headers-too-large, and serves headers under it", async () => {
    const { at } = await serving()
    expect(await exchange(at, `GET / HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${"a".repeat(2100)}\r\n\r\n`)).toBe(
      refusal("431 Request Header Fields Too Large", "{\"error\":\"headers-too-large\"}")
    )
    const fits = await exchange(
      at,
      `GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Pad: ${"a".repeat(1900)}\r\n\r\n`
    )
    expect(parse(fits).body).toBe("GET / 0")
  })

  it("answers a connection that sends nothing 408 request-timeout at the headers deadline", async () => {
    const { at } = await serving()
    const conversation = await converse(at)
    const { afterMs, text } = await conversation.closed()
    expect(text).toBe(refusal("408 Request Timeout", "{\"error\":\"request-timeout\"}"))
    expect(afterMs).toBeGreaterThan(250)
  })

  it("answers a body that does not arrive by the request deadline 408 request-timeout", async () => {
    const { at } = await serving()
    const conversation = await converse(at)
    conversation.socket.write("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{")
    const { afterMs, text } = await conversation.closed()
    expect(text).toBe(refusal("408 Request Timeout", "{\"error\":\"request-timeout\"}"))
    expect(afterMs).toBeGreaterThan(550)
  })

  it("answers chunk extensions over Node's bound 413 body-too-large", async () => {
    const { at } = await serving()
    const chunked = "POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
    expect(await exchange(at, `${chunked}1;${"a".repeat(20_000)}\r\nx\r\n0\r\n\r\n`)).toBe(
      refusal("413 Payload Too Large", "{\"error\":\"body-too-large\"}")
    )
  })

  it("answers a CONNECT 400 invalid-request, byte for byte, and never runs the app", async () => {
    const { at } = await serving()
    expect(await exchange(at, "CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n")).toBe(
      refusal("400 Bad Request", "{\"error\":\"invalid-request\"}")
    )
  })

  it("answers an expectation other than 100-continue 417 expectation-failed, and closes", async () => {
    const { at } = await serving()
    expect(parse(await exchange(at, "GET / HTTP/1.1\r\nHost: localhost\r\nExpect: something-else\r\n\r\n")))
      .toStrictEqual(answered("417 Expectation Failed", "{\"error\":\"expectation-failed\"}"))
  })

  it("answers a malformed request after an answer on a kept-alive connection, the answer being over", async () => {
    const { at } = await serving()
    const conversation = await converse(at)
    conversation.socket.write("GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n")
    await conversation.until("GET /first 0")
    const first = conversation.text()
    conversation.socket.write("GET /second HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n")
    const { text } = await conversation.closed()
    expect(text.slice(first.length)).toBe(refusal("400 Bad Request", "{\"error\":\"invalid-request\"}"))
  })

  it("never writes a refusal into an answer already begun: the connection is closed", async () => {
    const { at } = await serving()
    const conversation = await converse(at)
    conversation.socket.write("GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
    await conversation.until("first")
    const begun = conversation.text()
    conversation.socket.write("NONSENSE\r\n\r\n")
    expect((await conversation.closed()).text).toBe(begun)
  })
})

describe("Expect: 100-continue", () => {
  const expecting = (length: number) =>
    `POST /echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`

  it("invites a body of up to the limit with 100 Continue, then serves it", async () => {
    const { at } = await serving()
    for (const length of [2, bodyLimit]) {
      const conversation = await converse(at)
      conversation.socket.write(expecting(length))
      expect(await conversation.until("\r\n\r\n")).toBe("HTTP/1.1 100 Continue\r\n\r\n")
      conversation.socket.write("a".repeat(length))
      const { text } = await conversation.closed()
      expect(parse(text.slice("HTTP/1.1 100 Continue\r\n\r\n".length)).body).toBe(`POST /echo ${length}`)
    }
  })

  it("sends no 100 for a body declared over the limit: the app answers without it", async () => {
    const { at } = await serving()
    const text = await exchange(at, expecting(bodyLimit + 1))
    expect(text.startsWith("HTTP/1.1 413 Payload Too Large\r\n")).toBe(true)
    expect(parse(text).body).toBe("too large")
  })

  it("sends no 100 to a request that does not ask for it", async () => {
    const { at } = await serving()
    const text = await exchange(
      at,
      "POST /echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 2\r\n\r\nab"
    )
    expect(text.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true)
  })

  it("still pins the name: a request for another name is refused before any 100", async () => {
    const { at, said } = await serving()
    const text = await exchange(at, expecting(2).replace("Host: localhost", "Host: evil.example"))
    expect(parse(text)).toStrictEqual(answered("403 Forbidden", "{\"error\":\"denied\",\"reason\":\"host-mismatch\"}"))
    expect(said).toHaveLength(1)
  })
})

describe("the lingering close after an answer given before its body arrived", () => {
  const declaring = (length: number) =>
    `POST /echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: ${length}\r\n\r\n`

  /** A half-open client that has sent `declaring(length)` and read the 413, and the server's end of its side. */
  const answeredEarly = async (at: string, length: number) => {
    const conversation = await converse(at, true)
    conversation.socket.write(declaring(length))
    await conversation.until("too large")
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(conversation.ended()).toBe(true)
    return conversation
  }

  it("reads what else comes for at most the linger time, then lets go", async () => {
    // The request deadline far past the linger time: the linger alone ends it. A byte every 50 ms
    // keeps the 200 ms without one from coming.
    const { at } = await serving({ limits: { requestTimeout: Duration.seconds(10) } })
    const conversation = await answeredEarly(at, 1024 * 1024)
    const answeredAt = performance.now()
    expect(await letGo(conversation)).toBe(false)
    const trickle = setInterval(() => conversation.socket.write("a"), 50)
    cleanups.push(async () => clearInterval(trickle))
    await conversation.closed()
    expect(performance.now() - answeredAt).toBeGreaterThan(450)
    expect(parse(conversation.text()).statusLine).toBe("HTTP/1.1 413 Payload Too Large")
  })

  it("lets go when nothing more comes for the idle time, and not while bytes keep coming", async () => {
    const { at } = await serving({
      limits: {
        requestTimeout: Duration.seconds(30),
        lingerTime: Duration.seconds(20),
        lingerIdle: Duration.seconds(1)
      }
    })
    const conversation = await answeredEarly(at, 1024 * 1024)
    // A byte every 300 ms for 1.5 s: each starts the second again, so the connection is still read.
    for (let byte = 0; byte < 5; byte++) {
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(await letGo(conversation)).toBe(false)
    }
    // Then nothing for 1.5 s: let go at the idle time, long before the linger time (20 s here).
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(await letGo(conversation)).toBe(true)
    expect(parse(conversation.text()).statusLine).toBe("HTTP/1.1 413 Payload Too Large")
  })

  it("lets go as soon as the whole body has arrived", async () => {
    const { at } = await serving()
    const conversation = await answeredEarly(at, 3000)
    conversation.socket.write("a".repeat(2999))
    expect(await letGo(conversation)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await letGo(conversation)).toBe(true)
  })

  it("lets go past the linger bytes, and not at them", async () => {
    const { at } = await serving()
    const conversation = await answeredEarly(at, 1024 * 1024)
    conversation.socket.write("a".repeat(4095))
    // The 4 096th byte: still read.
    expect(await letGo(conversation)).toBe(false)
    // The 4 097th: read, and the connection cut; the next finds nobody.
    expect(await letGo(conversation)).toBe(false)
    expect(await letGo(conversation)).toBe(true)
  })

  it("lingers for the request being answered, not for one answered before it on the connection", async () => {
    const { at } = await serving()
    const conversation = await converse(at, true)
    conversation.socket.write(
      `GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n${declaring(1024 * 1024).replace("/echo", "/second")}`
    )
    await conversation.until("too large")
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await letGo(conversation)).toBe(false)
  })

  it("lets go of a connection whose request had all arrived once the answer is sent", async () => {
    const { at } = await serving()
    const conversation = await converse(at, true)
    conversation.socket.write(get("/done"))
    await conversation.until("GET /done 0")
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await letGo(conversation)).toBe(true)
  })
})

describe("a stop", () => {
  it("ends the requests in flight at once, and stops listening", async () => {
    const { at, scope } = await serving()
    const conversation = await converse(at)
    conversation.socket.write("GET /hold HTTP/1.1\r\nHost: localhost\r\n\r\n")
    await new Promise((resolve) => setTimeout(resolve, 50))
    const stopping = performance.now()
    await Effect.runPromise(Effect.timeout(Scope.close(scope, Exit.void), "1 second"))
    expect(performance.now() - stopping).toBeLessThan(1_000)
    expect((await conversation.closed(1_000)).text).toBe("")
    await expect(converse(at)).rejects.toMatchObject({ code: "ENOENT" })
  })

  it("of an app's serving takes its handler away, and the next app served answers alone", async () => {
    const { at, server, scope } = await serving({ serve: false })
    const first = await Effect.runPromise(Scope.fork(scope, ExecutionStrategy.sequential))
    await Effect.runPromise(Scope.extend(server.serve(Effect.succeed(HttpServerResponse.text("first"))), first))
    expect(parse(await exchange(at, get("/"))).body).toBe("first")
    await Effect.runPromise(Scope.close(first, Exit.void))
    // Between two apps a request is held (./request-gate.ts), and the first app never sees it.
    const between = await converse(at)
    between.socket.write(get("/"))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(between.text()).toBe("")
    const ran: Array<string> = []
    const middleware = HttpMiddleware.make((app) => Effect.zipRight(Effect.sync(() => ran.push("middleware")), app))
    await Effect.runPromise(
      Scope.extend(server.serve(Effect.succeed(HttpServerResponse.text("second")), middleware), scope)
    )
    expect(parse((await between.closed()).text).body).toBe("second")
    expect(parse(await exchange(at, get("/"))).body).toBe("second")
    const expecting = await exchange(
      at,
      "POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n"
    )
    expect(parse(expecting.slice("HTTP/1.1 100 Continue\r\n\r\n".length)).body).toBe("second")
    expect(ran).toStrictEqual(["middleware", "middleware", "middleware"])
  })
})

describe("an app served after the server listens", () => {
  it("holds the requests parsed before an app is served, and hands them to it in order", async () => {
    // A service manager's socket has its first connection queued before buddy starts (D40, D59):
    // Node parses it as soon as it listens, which can be before the app's layer has registered.
    const { at, scope, server } = await serving({ serve: false })
    const plain = await converse(at)
    plain.socket.write(get("/early"))
    const expecting = await converse(at)
    expecting.socket.write(
      "POST /expecting HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nExpect: 100-continue\r\n" +
        "Content-Length: 2\r\n\r\n"
    )
    // Time for Node to parse both: neither is answered, nor invited to send its body, with no app.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect([plain.text(), expecting.text()]).toStrictEqual(["", ""])
    await Effect.runPromise(Scope.extend(server.serve(app), scope))
    expect(parse(await plain.until("GET /early 0")).body).toBe("GET /early 0")
    await expecting.until("HTTP/1.1 100 Continue\r\n\r\n")
    expecting.socket.write("ok")
    expect(parse((await expecting.closed()).text.slice("HTTP/1.1 100 Continue\r\n\r\n".length)).body)
      .toBe("POST /expecting 2")
  })
})

describe("a place it cannot listen on", () => {
  it("fails the layer with the system's error", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-node-server-"))
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }))
    const at = path.join(dir, "missing", "serve.sock")
    const listener = {
      listen: { _tag: "Socket", path: at } as const,
      launchpadOrigin: "https://l.example",
      say: () => {}
    }
    const exit = await Effect.runPromise(
      Effect.exit(Effect.scoped(Layer.build(NodeServer.layer(listener, limits, bodyLimit))))
    )
    // Node says EACCES for a socket in a directory that is not there.
    expect(exit).toMatchObject({
      _tag: "Failure",
      cause: { _tag: "Fail", error: { _tag: "ServeError", cause: { code: "EACCES", syscall: "listen", address: at } } }
    })
  })
})
