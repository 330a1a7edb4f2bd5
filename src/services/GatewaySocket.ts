// GatewaySocket: C1 (finding the socket) and one C2 exchange: connect, write one JSON line, read
// one bounded line, close. The connection is always closed (on the first event that settles the
// exchange, and by the canceller when it is interrupted) and each exchange, path checks included,
// has one deadline that holds whoever calls it: armed once, heard by each fs call and by the
// socket itself, so the exchange settles its own I/O when time is up (D25).
import { Context, Effect, Either, Layer, Schema } from "effect"
import * as Net from "node:net"
import {
  type ControlReply,
  ControlReplyFromLine,
  type ControlRequest,
  ControlRequestToLine
} from "../schema/control.js"
import { decodeUtf8 } from "../schema/utf8.js"
import { BuddyConfig } from "./BuddyConfig.js"
import { type Deadline, withDeadline } from "./deadline.js"
import { type HomeMet, locate, type Located } from "./gateway-path.js"
import type { GatewayError } from "./GatewayError.js"
import { gatewayError } from "./GatewayError.js"
import { makeLineReader } from "./line-reader.js"
import { homeOnReadWords, SetupReport } from "./SetupReport.js"

export interface Exchanged {
  /** Where C1 found the gateway: the real home (whose profile it must serve) and the socket. */
  readonly located: Located
  readonly reply: ControlReply
}

export class GatewaySocket extends Context.Tag("buddy/GatewaySocket")<GatewaySocket, {
  /** C1, then one request and one reply line of at most `maxLine` bytes. */
  readonly exchange: (request: ControlRequest, maxLine: number) => Effect.Effect<Exchanged, GatewayError>
  /**
   * One request at the socket an earlier exchange of the same operation found: the mint goes to the
   * gateway whose identify it is for, with no second C1 walk (D25).
   */
  readonly exchangeAt: (
    located: Located,
    request: ControlRequest,
    maxLine: number
  ) => Effect.Effect<Exchanged, GatewayError>
  /**
   * C1 alone, under its own deadline: where the gateway is now. A status read that may reuse a recent
   * identify (C2) walks here first, and mints at the socket found only when it is the one identified.
   */
  readonly locate: Effect.Effect<Located, GatewayError>
}>() {}

/**
 * Connects, writes the line, and reads one reply line; the first event settles it
 * and closes the connection. ENOENT or ECONNREFUSED on connect: nobody is listening (C1.4); any
 * other failure, before or after the line is written, is `lost`; the deadline passing first is
 * `timeout`. One `Effect.async` for the whole exchange: its canceller closes the connection when
 * the caller is interrupted.
 */
const lineExchange = (path: string, line: string, maxLine: number, deadline: Deadline) =>
  Effect.async<Uint8Array, GatewayError>((resume) => {
    const socket = Net.createConnection({ path })
    const read = makeLineReader(maxLine)
    // The outcome is made only for the event that settles: the close that follows every exchange
    // must not build an error (and its stack) that nobody reads.
    let settled = false
    const settle = (outcome: () => Effect.Effect<Uint8Array, GatewayError>) => {
      if (settled) return
      settled = true
      socket.destroy()
      resume(outcome())
    }
    const lost = () => settle(() => Effect.fail(gatewayError("lost")))
    // Stays for the socket's life: a socket must never be left without an error listener. Only
    // connecting fails with ENOENT or ECONNREFUSED (nobody listens there, C1.4); every other error,
    // a failed write included, is the exchange lost.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const nobody = error.code === "ENOENT" || error.code === "ECONNREFUSED"
      settle(() => Effect.fail(gatewayError(nobody ? "not-running" : "lost")))
    })
    // Written at once: Node holds it until the connection is made, and sends nothing if it is not
    // (one event-loop turn less than writing on `connect`, D25.7).
    socket.write(line)
    socket.on("data", (chunk: Buffer) => {
      const step = read(chunk)
      if (step._tag === "TooLong") settle(() => Effect.fail(gatewayError("too-large")))
      else if (step._tag === "Line") settle(() => Effect.succeed(step.bytes))
    })
    // A peer that hangs up gives `end` then `close` (and a reset `error` then `close`): each alone
    // settles the exchange as lost, so neither is observable without the other.
    // Stryker disable next-line StringLiteral: see above
    socket.once("end", lost)
    // Stryker disable next-line StringLiteral: see above
    socket.once("close", lost)
    deadline.onExpire(() => settle(() => Effect.fail(gatewayError("timeout"))))
    return Effect.sync(() => {
      // Stryker disable next-line BooleanLiteral: an interrupted exchange is resumed by nobody; the flag only spares building the error of the close
      settled = true
      socket.destroy()
    })
  })

// Built once: a decoder made per reply would rebuild its parser every time.
const decodeReplyText = Schema.decodeUnknownEither(ControlReplyFromLine)

const decodeReply = (bytes: Uint8Array): Either.Either<ControlReply, GatewayError> =>
  decodeUtf8(bytes).pipe(
    Either.flatMap(decodeReplyText),
    Either.mapLeft(() => gatewayError("malformed"))
  )

// The request is ours, built from typed values: a request its own Schema refuses is a bug, not a
// gateway's fault, so it is a defect. Nothing but what the Schema names reaches the socket (it is
// strict itself). Built once, like the reply's decoder.
const encodeLine = Schema.encode(ControlRequestToLine)

/**
 * Each request value's line, as its Schema encoded it the first time: identify's request is one
 * constant and a mint's is one per identify (Ticket), so a reused read encodes nothing, where the
 * encoding cost it about 50 µs (D47.11). A request is readonly, so its line cannot go stale; only
 * what encoded is kept, and a value's line lives no longer than the value.
 */
const encodedLines = new WeakMap<ControlRequest, string>()

const encodeRequest = (request: ControlRequest) =>
  Effect.suspend(() => {
    const kept = encodedLines.get(request)
    // Stryker disable next-line ConditionalExpression: without the kept line it is encoded again, the same; only slower
    if (kept !== undefined) return Effect.succeed(kept)
    // Stryker disable next-line ArrowFunction: a line not kept is encoded again next time, the same; only slower
    return Effect.orDie(encodeLine(request)).pipe(Effect.tap((line) => encodedLines.set(request, line)))
  })

/** One exchange on an already located socket path, ended as `timeout` when `deadline` passes. */
export const exchangeOn = (
  path: string,
  request: ControlRequest,
  maxLine: number,
  deadline: Deadline
): Effect.Effect<ControlReply, GatewayError> =>
  Effect.flatMap(
    Effect.flatMap(encodeRequest(request), (line) => lineExchange(path, `${line}\n`, maxLine, deadline)),
    decodeReply
  )

export const GatewaySocketLive = Layer.effect(
  GatewaySocket,
  Effect.gen(function*() {
    const config = yield* BuddyConfig
    const report = yield* SetupReport
    // A home that does not exist or is no directory, said once more by the first read that meets it (D50).
    const met: HomeMet = (finding) =>
      // Stryker disable next-line StringLiteral: the kind only has to differ from the build's (the variant is pinned: test/http/setup-report.test.ts)
      report.once({ kind: "home-on-read", variant: finding }, () => homeOnReadWords(config, finding))
    return GatewaySocket.of({
      exchange: (request, maxLine) =>
        withDeadline(config.deadlines.control, (deadline) =>
          locate(config.hermesHome, deadline, met).pipe(
            Effect.flatMap((located) =>
              Effect.map(exchangeOn(located.socket, request, maxLine, deadline), (reply) => ({ located, reply }))
            )
          )),
      exchangeAt: (located, request, maxLine) =>
        withDeadline(
          config.deadlines.control,
          (deadline) =>
            Effect.map(exchangeOn(located.socket, request, maxLine, deadline), (reply) => ({ located, reply }))
        ),
      locate: withDeadline(config.deadlines.control, (deadline) => locate(config.hermesHome, deadline, met))
    })
  })
)
