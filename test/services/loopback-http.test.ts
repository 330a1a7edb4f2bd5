// The one HTTP exchange (C3) against hand-made peers, for what the fake gateway cannot say: an
// answer cut off in the middle of its body is lost, and may have run; an answer past the bound
// closes the connection while the peer is still sending.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Redacted } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { parseApiOrigin } from "../../src/services/api-origin.js"
import { noDeadline } from "../../src/services/deadline.js"
import { httpExchange } from "../../src/services/loopback-http.js"

const peer = (handler: Http.RequestListener) =>
  Effect.acquireRelease(
    Effect.async<Http.Server>((resume) => {
      const server = Http.createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const exchangeWith = (server: Http.Server) =>
  httpExchange({
    origin: Option.getOrThrow(parseApiOrigin(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
    method: "GET",
    path: "/api/providers/oauth",
    ticket: Redacted.make("TICKET"),
    limit: 1024,
    deadline: noDeadline
  })

describe("an HTTP exchange", () => {
  it.scopedLive("an answer whose body stops short of its length is lost, and may have run", () =>
    Effect.gen(function*() {
      const server = yield* peer((_request, response) => {
        response.writeHead(200, { "content-length": "100", "content-type": "application/json" })
        response.write("{\"providers\":")
        setTimeout(() => response.socket?.destroy(), 20)
      })
      expect(yield* Effect.flip(exchangeWith(server))).toStrictEqual({ reason: "lost", mayHaveRun: true })
    }))

  it.scopedLive("a whole answer is read with its status", () =>
    Effect.gen(function*() {
      const server = yield* peer((_request, response) => {
        response.writeHead(409, { "content-type": "application/json" })
        response.end("{}")
      })
      const answer = yield* exchangeWith(server)
      expect(answer.status).toBe(409)
      expect(Buffer.from(answer.body).toString()).toBe("{}")
    }))

  it.scopedLive("an answer that passes the bound is too large, and the connection is closed while the peer is still sending", () =>
    Effect.gen(function*() {
      // A peer that sends a body without end, for as long as the connection stays open.
      let written = 0
      let closedAt: number | undefined
      let markClosed: () => void = () => {}
      const closed = new Promise<void>((resolve) => {
        markClosed = resolve
      })
      const server = yield* peer((request, response) => {
        request.socket.once("close", () => {
          closedAt = written
          markClosed()
        })
        response.writeHead(200, { "content-type": "application/json" })
        const chunk = Buffer.alloc(16 * 1024, 0x20)
        const send = () => {
          while (!response.destroyed) {
            written += chunk.length
            if (!response.write(chunk)) return void response.once("drain", send)
          }
        }
        send()
      })
      expect(yield* Effect.flip(exchangeWith(server))).toStrictEqual({ reason: "too-large", mayHaveRun: true })
      // The client hung up: the peer sees its socket close, though it never finished its answer.
      const sawClose = yield* Effect.promise(() => closed).pipe(Effect.timeoutOption("2 seconds"))
      expect(Option.isSome(sawClose), "the peer's socket was closed").toBe(true)
      expect(closedAt).toBeGreaterThan(1024)
    }))

  it.scopedLive("an exchange interrupted while the peer holds its answer closes the connection at once", () =>
    Effect.gen(function*() {
      let arrived = false
      let closed = false
      const server = yield* peer((req) => {
        arrived = true
        req.socket.on("close", () => {
          closed = true
        })
      })
      const fiber = yield* Effect.fork(exchangeWith(server))
      while (!arrived) yield* Effect.sleep("5 millis")
      yield* Fiber.interrupt(fiber)
      for (let waited = 0; waited < 1000 && !closed; waited += 5) yield* Effect.sleep("5 millis")
      expect(closed).toBe(true)
    }))

  it.scopedLive("a peer that refuses the connection ran nothing", () =>
    Effect.gen(function*() {
      const server = yield* peer(() => {})
      const port = (server.address() as AddressInfo).port
      yield* Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
      const error = yield* Effect.flip(
        httpExchange({
          origin: Option.getOrThrow(parseApiOrigin(`http://127.0.0.1:${port}`)),
          method: "GET",
          path: "/",
          ticket: Redacted.make("TICKET"),
          limit: 1024,
          deadline: noDeadline
        })
      )
      expect(error).toStrictEqual({ reason: "not-ready", mayHaveRun: false })
    }))
})
