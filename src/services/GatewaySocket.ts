// GatewaySocket: C1 (finding the socket) and one C2 exchange: connect, write one JSON line, read
// one bounded line, close. The connection is always closed (acquireRelease) and the whole
// exchange, path checks included, has one deadline that holds whoever calls it.
import { Context, Effect, Either, Layer, Schema } from "effect"
import * as Net from "node:net"
import { type ControlReply, ControlReplyFromLine, type ControlRequest } from "../schema/control.js"
import { decodeUtf8 } from "../schema/utf8.js"
import { BuddyConfig } from "./BuddyConfig.js"
import { locate } from "./gateway-path.js"
import type { GatewayError } from "./GatewayError.js"
import { gatewayError } from "./GatewayError.js"
import { makeLineReader } from "./line-reader.js"

export interface Exchanged {
  /** The real home the socket was found for: whose profile the gateway must serve. */
  readonly home: string
  readonly reply: ControlReply
}

export class GatewaySocket extends Context.Tag("buddy/GatewaySocket")<GatewaySocket, {
  /** One request, one reply line of at most `maxLine` bytes. */
  readonly exchange: (request: ControlRequest, maxLine: number) => Effect.Effect<Exchanged, GatewayError>
}>() {}

/** ENOENT or ECONNREFUSED on connect: nobody is listening (C1.4). */
const connect = (path: string) =>
  Effect.async<Net.Socket, GatewayError>((resume) => {
    const socket = Net.createConnection({ path })
    const onError = (error: NodeJS.ErrnoException) =>
      resume(
        Effect.fail(gatewayError(error.code === "ENOENT" || error.code === "ECONNREFUSED" ? "not-running" : "lost"))
      )
    socket.once("error", onError)
    socket.once("connect", () => {
      socket.off("error", onError)
      // A socket must never be left without an error listener: the exchange installs its own.
      socket.on("error", () => {})
      resume(Effect.succeed(socket))
    })
    return Effect.sync(() => socket.destroy())
  })

/** Writes the line and reads one reply line; the first event settles it and detaches the rest. */
const writeAndRead = (socket: Net.Socket, line: string, maxLine: number) =>
  Effect.async<Uint8Array, GatewayError>((resume) => {
    const read = makeLineReader(maxLine)
    const detach = () => {
      socket.off("data", onData)
      socket.off("end", onLost)
      socket.off("close", onLost)
    }
    const settle = (outcome: Effect.Effect<Uint8Array, GatewayError>) => {
      detach()
      resume(outcome)
    }
    const onData = (chunk: Buffer) => {
      const step = read(chunk)
      if (step._tag === "TooLong") settle(Effect.fail(gatewayError("too-large")))
      else if (step._tag === "Line") settle(Effect.succeed(step.bytes))
    }
    const onLost = () => settle(Effect.fail(gatewayError("lost")))
    socket.on("data", onData)
    socket.once("end", onLost)
    socket.once("close", onLost)
    socket.write(line, (error) => {
      if (error) onLost()
    })
    return Effect.sync(detach)
  })

const decodeReply = (bytes: Uint8Array) =>
  Either.mapLeft(decodeUtf8(bytes), () => gatewayError("malformed")).pipe(
    Effect.flatMap((text) =>
      Schema.decodeUnknown(ControlReplyFromLine)(text).pipe(Effect.mapError(() => gatewayError("malformed")))
    )
  )

/** One exchange on an already located socket path. */
export const exchangeAt = (
  path: string,
  request: ControlRequest,
  maxLine: number
): Effect.Effect<ControlReply, GatewayError> =>
  Effect.acquireRelease(connect(path), (socket) => Effect.sync(() => socket.destroy())).pipe(
    Effect.flatMap((socket) => writeAndRead(socket, `${JSON.stringify(request)}\n`, maxLine)),
    Effect.scoped,
    Effect.flatMap(decodeReply)
  )

export const GatewaySocketLive = Layer.effect(
  GatewaySocket,
  Effect.map(BuddyConfig, (config) =>
    GatewaySocket.of({
      exchange: (request, maxLine) =>
        locate(config.hermesHome).pipe(
          Effect.flatMap(({ home, socket }) =>
            Effect.map(exchangeAt(socket, request, maxLine), (reply) => ({ home, reply }))
          ),
          Effect.timeoutFail({ duration: config.deadlines.control, onTimeout: () => gatewayError("timeout") }),
          // The deadline must hold in whatever region the caller runs: an HttpApp runs uninterruptibly
          // (effect-guide P15), and a timeout can only end the exchange by interrupting it (D12).
          Effect.interruptible
        )
    }))
)
