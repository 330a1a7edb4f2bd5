// What `buddy serve`'s server keeps per connection, itself rather than from Node's internals
// (D33): the request being answered on it, so that a refusal of ours is never written into an
// answer already begun, and the lingering close of a connection whose last answer went out before
// its request's body had all arrived.
import { Duration } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"

export interface Lingering {
  /** How long in all, how long without a byte, and how many more bytes of the unread body a closing connection reads and discards. */
  readonly lingerTime: Duration.Duration
  readonly lingerIdle: Duration.Duration
  readonly lingerBytes: number
}

export interface Connections {
  /** Called for each accepted connection, before anything else happens on it. */
  readonly accepted: (socket: Socket) => void
  /** Called for each request as it arrives, before it is answered. */
  readonly track: (request: IncomingMessage, response: ServerResponse) => void
  /** Whether an answer to this connection's request has begun: bytes of ours would then corrupt it. */
  readonly answering: (socket: Duplex) => boolean
}

interface InFlight {
  readonly request: IncomingMessage
  readonly response: ServerResponse
}

export const makeConnections = (lingering: Lingering): Connections => {
  const inFlight = new WeakMap<Duplex, InFlight>()

  /**
   * An answer that ends before its request's body has all arrived (a 413, or a refusal before the
   * body was read): Node would drop the rest unseen and without bound; it is read and discarded
   * here instead, and counted, and the connection is cut past `lingerBytes`. Set up before Node's
   * own end of the answer runs, which then sees a request already being read.
   */
  const discardRest = (request: IncomingMessage) => {
    let discarded = 0
    request.on("data", (chunk: Buffer) => {
      discarded += chunk.length
      if (discarded > lingering.lingerBytes) request.socket.destroy()
    })
    request.resume()
  }

  /**
   * How Node closes a connection after its last answer (its server's one call of `destroySoon`),
   * made a lingering close: our side is ended (FIN) after the answer as before, but while the
   * request's body is still arriving the socket is destroyed only once it has all arrived, or when
   * no byte of it came for `lingerIdle`, or at `lingerTime` in all, or past `lingerBytes` (above),
   * as nginx's lingering close does. Closing with bytes unread makes the kernel send a reset, and a
   * reset makes the client's kernel drop the answer it has not read yet: the 413 was lost to a
   * client that sent its whole body at once. A client still sending is let go on its bytes, not on
   * a short clock: on a busy machine 100 MiB took longer than 2 s to arrive, and ten clients lost
   * their 413 to a total of 2 s (issue 24).
   */
  const lingeringClose = (socket: Socket) => () => {
    const destroyWhenSent = () => {
      if (socket.writableFinished) socket.destroy()
      else socket.once("finish", () => socket.destroy())
    }
    if (socket.writable) socket.end()
    const request = inFlight.get(socket)?.request
    if (request === undefined || request.complete) return destroyWhenSent()
    const cut = () => socket.destroy()
    const deadline = setTimeout(cut, Duration.toMillis(lingering.lingerTime))
    const idle = setTimeout(cut, Duration.toMillis(lingering.lingerIdle))
    request.on("data", () => idle.refresh())
    // Stryker disable next-line StringLiteral,BlockStatement: destroying a closed socket does nothing; this only lets the timers go at once
    socket.once("close", () => {
      clearTimeout(deadline)
      clearTimeout(idle)
    })
    request.once("end", destroyWhenSent)
  }

  return {
    accepted: (socket) => {
      socket.destroySoon = lingeringClose(socket)
    },
    track: (request, response) => {
      inFlight.set(request.socket, { request, response })
      response.prependOnceListener("finish", () => {
        if (!request.complete) discardRest(request)
      })
      response.once("close", () => {
        // Stryker disable next-line OptionalChaining: a response closes once, after its own request set an entry for the socket, and only a close deletes one
        if (inFlight.get(request.socket)?.response === response) inFlight.delete(request.socket)
      })
    },
    answering: (socket) => inFlight.get(socket)?.response.headersSent === true
  }
}
