// One HTTP exchange with the gateway's loopback API (C3), over node:http with no agent at all:
// the socket is made by `net.createConnection` to the origin's literal address, so no proxy
// setting (HTTP_PROXY, NODE_USE_ENV_PROXY…) and no pooled connection can ever be involved.
// Redirects are never followed; the answer is bounded and the socket closed past the bound.
import { Effect, Redacted } from "effect"
import * as Http from "node:http"
import * as Net from "node:net"
import type { GatewayReason } from "../schema/reasons.js"
import type { ApiOrigin } from "./api-origin.js"
import type { Deadline } from "./deadline.js"

export type Method = "GET" | "POST" | "DELETE"

export interface HttpAnswer {
  readonly status: number
  readonly body: Uint8Array
}

/** Why no answer came back, and whether the request may have reached Hermes's handler. */
export interface HttpFailure {
  readonly reason: GatewayReason
  readonly mayHaveRun: boolean
}

/** The exact request headers of C3, in this order, and nothing else. */
export const requestHeaders = (origin: ApiOrigin, method: Method, ticket: Redacted.Redacted<string>) => [
  "Host",
  origin.host,
  "Accept",
  "application/json",
  "X-Hermes-Gateway-Ticket",
  Redacted.value(ticket),
  ...(method === "GET" ? [] : ["Content-Length", "0"]),
  "Connection",
  "close"
]

export const httpExchange = (options: {
  readonly origin: ApiOrigin
  readonly method: Method
  readonly path: string
  readonly ticket: Redacted.Redacted<string>
  readonly limit: number
  /** Passing it ends the exchange as `timeout`, which may have run: the request may have left. */
  readonly deadline: Deadline
}): Effect.Effect<HttpAnswer, HttpFailure> =>
  Effect.async<HttpAnswer, HttpFailure>((resume) => {
    let connected = false
    // Effect takes the first resume only; the flag keeps a later event from building an outcome.
    let settled = false
    const settle = (outcome: Effect.Effect<HttpAnswer, HttpFailure>) => {
      if (settled) return
      settled = true
      resume(outcome)
    }
    const fail = (reason: GatewayReason) => settle(Effect.fail({ reason, mayHaveRun: connected }))
    const request = Http.request({
      method: options.method,
      path: options.path,
      // The headers below are an ordered array with Host first: Node adds no second Host to one
      // either way, so the setting cannot be seen on the wire; it says that Host is ours.
      // Stryker disable next-line BooleanLiteral: not observable, for that reason
      setHost: false,
      headers: requestHeaders(options.origin, options.method, options.ticket),
      createConnection: () => {
        const socket = Net.createConnection({ host: options.origin.address, port: options.origin.port })
        socket.once("connect", () => {
          connected = true
        })
        return socket
      }
    })
    request.on("error", () => fail(connected ? "lost" : "not-ready"))
    request.on("response", (response) => {
      const parts: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > options.limit) {
          fail("too-large")
          request.destroy()
        } else {
          parts.push(chunk)
        }
      })
      // An answer cut short ends in `close` without being complete. (Node emits a response's
      // `error` only to listeners of it, and `close` follows it anyway, so none is needed.)
      response.on("close", () => {
        if (!response.complete) fail("lost")
      })
      response.on("end", () => {
        settle(Effect.succeed({ status: response.statusCode ?? 0, body: Buffer.concat(parts) }))
        request.destroy()
      })
    })
    options.deadline.onExpire(() => {
      settle(Effect.fail({ reason: "timeout", mayHaveRun: true }))
      request.destroy()
    })
    request.end()
    return Effect.sync(() => {
      // Stryker disable next-line BooleanLiteral: an interrupted exchange is resumed by nobody
      settled = true
      request.destroy()
    })
  })
