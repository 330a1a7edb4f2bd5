// The node:http server under `buddy serve` (C6; docs/decisions.md D15). Node's defaults suit a
// public server, not a loopback API: a client trickling its headers was answered after 76 s, a
// trickled body after 316 s, and Node's own refusals (400, 408, 431, 417) carried neither JSON nor
// C6's security headers. Here the deadlines and limits are ours, Node's refusals are answered in
// the house style, `Expect: 100-continue` is decided by the declared length, and a stop does not
// wait for the requests in flight. Under which name it may be reached is decided before the app
// runs (./who-may-reach.ts, D22): the server is ours rather than NodeHttpServer.make's, so that the
// app's handler is called only for a request that names this server.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { ServeError } from "@effect/platform/HttpServerError"
import { Duration, Effect, Layer, Schema } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { ListenOptions, Socket } from "node:net"
import type { Duplex } from "node:stream"
import { securityHeaders } from "../http/answer.js"
import { ServedBy } from "../http/served-by.js"
import { DeniedAnswer, ErrorAnswer, type PlainError, refusals } from "../schema/routes.js"
import { errnoOf } from "../services/errno.js"
import { type Connections, type Lingering, makeConnections } from "./connections.js"
import { type Handler, makeRequestGate, type RequestGate } from "./request-gate.js"
import { authoritiesOf, makeRefusalReport, nameOf } from "./who-may-reach.js"

export interface ServerLimits extends Lingering {
  /** From a connection's (or a request's) first byte to the end of its headers. */
  readonly headersTimeout: Duration.Duration
  /** From a request's first byte to the end of its body; the answer's own time is not counted. */
  readonly requestTimeout: Duration.Duration
  /** How long an idle keep-alive connection stays open between requests. */
  readonly keepAliveTimeout: Duration.Duration
  /** How often Node looks for connections past the two deadlines above: their precision. */
  readonly connectionsCheckingInterval: Duration.Duration
  /** The request line and headers together, in bytes. */
  readonly maxHeaderSize: number
}

/**
 * A client on loopback sends a request of at most 16 KiB at once: 10 s for headers and 30 s for
 * a whole request are generous for it and short for a client that holds a connection open. The
 * request deadline ends when the body has arrived, so a start answered after Hermes's 15 s is
 * never cut by it. Checked every second, so a deadline fires at most 1 s late. After a 413, up to
 * 16 MiB of the rest of the body are read and discarded, so that the client reads the 413
 * (./connections.ts): a body 1 000 times the limit, and about 10 ms of a core on loopback; for at
 * most 30 s in all and 5 s without a byte, nginx's `lingering_time` and `lingering_timeout`.
 */
export const serverLimits: ServerLimits = {
  headersTimeout: Duration.seconds(10),
  requestTimeout: Duration.seconds(30),
  keepAliveTimeout: Duration.seconds(5),
  connectionsCheckingInterval: Duration.seconds(1),
  maxHeaderSize: 16 * 1024,
  lingerTime: Duration.seconds(30),
  lingerIdle: Duration.seconds(5),
  lingerBytes: 16 * 1024 * 1024
}

/** The refusals this server answers itself, in the app's style: names and statuses from the one table. */
type ServerError = Extract<
  PlainError,
  "invalid-request" | "headers-too-large" | "request-timeout" | "body-too-large" | "expectation-failed"
>

const errorBody = (error: ServerError) => JSON.stringify(Schema.encodeSync(ErrorAnswer)({ error }))

/** The host pinning's refusal (D22): the same shape as `origin-mismatch`, so a page treats both alike. */
const hostRefusal = JSON.stringify(Schema.encodeSync(DeniedAnswer)({ error: "denied", reason: "host-mismatch" }))

const headersOf = (body: string) => ({
  "content-type": "application/json",
  "content-length": String(Buffer.byteLength(body)),
  ...securityHeaders,
  connection: "close"
})

/** A whole HTTP/1.1 answer as bytes, for a socket that has no ServerResponse (Node's `clientError`, CONNECT). */
const rawAnswer = (error: ServerError) => {
  const { status } = refusals[error]
  const body = errorBody(error)
  const head = Object.entries(headersOf(body)).map(([name, value]) => `${name}: ${value}\r\n`).join("")
  // Stryker disable next-line StringLiteral: every status of the table has Node's name; the fallback is for the type
  const reason = STATUS_CODES[status] ?? ""
  return `HTTP/1.1 ${status} ${reason}\r\n${head}\r\n${body}`
}

const invalidRequest = rawAnswer("invalid-request")
const headersTooLarge = rawAnswer("headers-too-large")
const requestTimeout = rawAnswer("request-timeout")
const chunkExtensionsTooLarge = rawAnswer("body-too-large")

/** An answer of ours on a request Node has parsed. */
const answerWith = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, headersOf(body)).end(body)
}

/** Node's parser and deadline errors, by the codes Node's own default answer switches on. */
const answerFor = (error: Error) => {
  switch (errnoOf(error)) {
    case "HPE_HEADER_OVERFLOW":
      return headersTooLarge
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return requestTimeout
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return chunkExtensionsTooLarge
    default:
      return invalidRequest
  }
}

/**
 * Node's refusal of a connection (malformed request, headers too large, a deadline passed), in
 * the house style, then the socket is destroyed: the client was too slow or spoke nonsense, and
 * what it sends next is not read. A reset peer, or one we can no longer write to, is just dropped:
 * Node reports a reset (ECONNRESET) only once the socket is destroyed, so it is not writable.
 */
const onClientError = (connections: Connections) => (error: Error, socket: Duplex) => {
  if (socket.writable && !connections.answering(socket)) {
    socket.write(answerFor(error))
  }
  socket.destroy()
}

const answerExpectationFailed = (_request: IncomingMessage, response: ServerResponse) =>
  answerWith(response, refusals["expectation-failed"].status, errorBody("expectation-failed"))

/**
 * A CONNECT asks the server to become a tunnel, which it never is: answered `invalid-request` and
 * closed (Node, unheard, would close it without a word).
 */
const onConnect = (_request: IncomingMessage, socket: Duplex) => {
  if (socket.writable) socket.write(invalidRequest)
  socket.destroy()
}

/** The server with our deadlines and limits and our answers to what Node would refuse itself. */
const makeServer = (limits: ServerLimits, connections: Connections, gate: RequestGate): Server => {
  const server = createServer({
    headersTimeout: Duration.toMillis(limits.headersTimeout),
    requestTimeout: Duration.toMillis(limits.requestTimeout),
    keepAliveTimeout: Duration.toMillis(limits.keepAliveTimeout),
    connectionsCheckingInterval: Duration.toMillis(limits.connectionsCheckingInterval),
    maxHeaderSize: limits.maxHeaderSize,
    // Node's own refusal of an HTTP/1.1 request without Host is an empty 400; ours is in `gated`.
    requireHostHeader: false
  })
  server.on("connection", (socket: Socket) => connections.accepted(socket))
  server.on("clientError", onClientError(connections))
  server.on("connect", onConnect)
  // Any expectation but 100-continue: Node would answer an empty 417.
  server.on("checkExpectation", answerExpectationFailed)
  // Before it listens: a request parsed before the app is served waits for it (./request-gate.ts).
  server.on("request", gate.request).on("checkContinue", gate.checkContinue)
  return server
}

/**
 * The app's handler behind the name check: the request's authority is pinned (an absolute-form
 * target is served in origin form), then the app runs. A name that is not this server's is
 * answered 403 and told to `refused` (stderr); no Host in HTTP/1.1, or two, is 400.
 *
 * `Expect: 100-continue` (Node's `checkContinue`, `expects` here): a body declared over the limit
 * gets no 100, so the client never sends it; the app then answers 413 (or an earlier check's
 * refusal) without reading, and Node closes the connection after a final answer given without 100.
 * Anything else is invited to send, then served like every other request.
 */
const gated = (
  connections: Connections,
  authorities: ReadonlySet<string>,
  refused: (name: string) => void,
  bodyLimit: number,
  handler: Handler,
  expects: boolean
): Handler =>
(request, response) => {
  connections.track(request, response)
  const naming = nameOf(authorities, {
    // Stryker disable next-line StringLiteral: a request a server has parsed always has its url; the fallback is for the type
    target: request.url ?? "",
    hosts: request.headersDistinct["host"] ?? [],
    httpVersion: request.httpVersion
  })
  switch (naming._tag) {
    case "Malformed":
      return answerWith(response, refusals["invalid-request"].status, errorBody("invalid-request"))
    case "Refused":
      refused(naming.name)
      return answerWith(response, refusals["host-mismatch"].status, hostRefusal)
    case "Served":
      request.url = naming.target
      if (expects && !(Number(request.headers["content-length"]) > bodyLimit)) response.writeContinue()
      return handler(request, response)
  }
}

/**
 * Stops listening and ends every connection, requests in flight included: Node's `close` alone
 * waits for them, which holds a stop for as long as a request waits on Hermes (up to 15 s).
 * Nothing is cancelled on Hermes: the requests' own work is left to end with the process (C4.9).
 */
const stop = (server: Server) =>
  Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
    server.closeAllConnections()
  })

/** Where to listen: a socket path of ours, or a listening socket a service manager handed over. */
export type Listen =
  | { readonly _tag: "Socket"; readonly path: string }
  | { readonly _tag: "Handed"; readonly fd: number; readonly path: string }

/** A path to bind, or a descriptor already listening (Node's `listen(handle)`). */
/**
 * The queue of connections the kernel holds for `buddy serve` before it accepts them. Node's default
 * is 511; a burst beyond it (2 000 reads at once in the soak, a proxy's connections under load) makes a
 * Unix socket's non-blocking connect fail at once with EAGAIN, which nginx answers 502. The kernel caps
 * it at `net.core.somaxconn` (4096 on Linux since 5.4). A handed socket (`fd`) keeps the backlog its
 * service manager gave it (systemd's `Backlog=`, SOMAXCONN by default).
 */
export const listenBacklog = 4096

const listenOptions = (listen: Listen): ListenOptions | { readonly fd: number } =>
  listen._tag === "Socket" ? { path: listen.path, backlog: listenBacklog } : { fd: listen.fd }

const listenOn = (server: Server, listen: Listen) =>
  Effect.async<void, ServeError>((resume) => {
    const onError = (cause: Error) => resume(Effect.fail(new ServeError({ cause })))
    server.once("error", onError)
    server.listen(listenOptions(listen), () => {
      // Stryker disable next-line StringLiteral: what a listening server may emit (an accept's EMFILE) no test can cause
      server.off("error", onError)
      resume(Effect.void)
    })
  })

export interface Listener {
  readonly listen: Listen
  /** The Launchpad's origin: its host is served too (a proxy that passes `Host` on). */
  readonly launchpadOrigin: string
  /** Says a line on stderr: each refused name, once (./who-may-reach.ts). */
  readonly say: (line: string) => void
}

/**
 * An `HttpServer` on our server: NodeHttpServer's handler for the app, registered behind the
 * listener's checks. The stop is this layer's own release: it stops listening and ends every
 * connection at once. It tells the app it is behind this server (`ServedBy`), so the app's
 * document lists this server's own answers too (D54).
 */
export const layer = (listener: Listener, limits: ServerLimits, bodyLimit: number) =>
  Layer.mergeAll(
    Layer.scoped(
      HttpServer.HttpServer,
      Effect.gen(function*() {
        const connections = makeConnections(limits)
        const gate = makeRequestGate()
        const server = yield* Effect.acquireRelease(Effect.sync(() => makeServer(limits, connections, gate)), stop)
        yield* listenOn(server, listener.listen)
        const authorities = authoritiesOf(listener.launchpadOrigin)
        const refused = makeRefusalReport(authorities, listener.say)
        return HttpServer.make({
          address: { _tag: "UnixAddress", path: listener.listen.path },
          serve: (app, middleware) =>
            Effect.gen(function*() {
              const handler = yield* (middleware === undefined
                ? NodeHttpServer.makeHandler(app)
                : NodeHttpServer.makeHandler(app, middleware))
              yield* Effect.acquireRelease(
                Effect.sync(() =>
                  gate.open({
                    request: gated(connections, authorities, refused, bodyLimit, handler, false),
                    checkContinue: gated(connections, authorities, refused, bodyLimit, handler, true)
                  })
                ),
                () => Effect.sync(gate.close)
              )
            })
        })
      })
    ),
    NodeHttpServer.layerContext,
    Layer.succeed(ServedBy, "buddy-serve")
  )
