// An HTTP/1.1 client in raw bytes over a Unix socket, for the answers `buddy serve`'s server gives
// itself (test/serve): what arrives is kept as text (latin1, byte for byte), and every wait has a
// deadline, so a test whose server never answers fails in seconds rather than at StrykerJS's timeout.
import * as net from "node:net"

export interface Conversation {
  readonly socket: net.Socket
  /** Everything received so far. */
  readonly text: () => string
  /** Resolves with everything received once it contains `what`; rejects after `withinMs` or at the close without it. */
  readonly until: (what: string, withinMs?: number) => Promise<string>
  /** Resolves with everything received and the time since connecting once the server has closed; rejects after `withinMs`. */
  readonly closed: (withinMs?: number) => Promise<{ readonly text: string; readonly afterMs: number }>
  /** Whether the server has ended its side (FIN). */
  readonly ended: () => boolean
}

const deadline = <A>(promise: Promise<A>, ms: number, what: () => string): Promise<A> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not within ${ms} ms: ${what()}`)), ms)
    void promise.then((value) => {
      clearTimeout(timer)
      resolve(value)
    }, reject)
  })

/**
 * A client on `at`. One that keeps its own side open when the server ends its side (`halfOpen`)
 * can go on sending after the server's FIN, as curl does while it uploads.
 */
export const converse = (at: string, halfOpen = false): Promise<Conversation> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    let text = ""
    let ended = false
    const waiting = new Set<() => void>()
    const socket = net.connect({ path: at, allowHalfOpen: halfOpen })
    socket.setEncoding("latin1")
    socket.on("data", (chunk: string) => {
      text += chunk
      waiting.forEach((check) => check())
    })
    socket.on("end", () => {
      ended = true
    })
    // A peer that resets after its answer is still a peer that answered: what came is what counts.
    socket.on("error", () => undefined)
    const closed = new Promise<{ text: string; afterMs: number }>((done) =>
      socket.on("close", () => {
        done({ text, afterMs: performance.now() - started })
        waiting.forEach((check) => check())
      })
    )
    socket.once("connect", () =>
      resolve({
        socket,
        text: () => text,
        ended: () => ended,
        closed: (withinMs = 3_000) =>
          deadline(closed, withinMs, () => `closed, having received ${JSON.stringify(text)}`),
        until: (what, withinMs = 3_000) =>
          deadline(
            new Promise<string>((found, missing) => {
              const check = () => {
                if (text.includes(what)) {
                  waiting.delete(check)
                  found(text)
                } else if (socket.destroyed) {
                  waiting.delete(check)
                  missing(new Error(`closed without ${JSON.stringify(what)}: ${JSON.stringify(text)}`))
                }
              }
              waiting.add(check)
              check()
            }),
            withinMs,
            () => `${JSON.stringify(what)} in ${JSON.stringify(text)}`
          )
      }))
    socket.once("error", reject)
  })

/**
 * Whether the server has let go of the connection: a byte written to a Unix socket whose peer has
 * closed fails at once (EPIPE), and the client closes; to a peer that has only ended its side
 * (lingering) it is read. The byte counts as sent.
 */
export const letGo = async (conversation: Conversation, withinMs = 100): Promise<boolean> => {
  conversation.socket.write("a")
  return conversation.closed(withinMs).then(() => true, () => false)
}

/** Sends `request` on a new connection and resolves with everything received once the server has closed. */
export const exchange = async (at: string, request: string | Buffer, withinMs?: number) => {
  const conversation = await converse(at)
  conversation.socket.write(request)
  return (await conversation.closed(withinMs)).text
}

/** One HTTP/1.1 answer: its status line, its headers in order without Date (a clock's), its body. */
export const parse = (text: string) => {
  const end = text.indexOf("\r\n\r\n")
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n")
  return {
    statusLine,
    headers: lines.filter((line) => !line.toLowerCase().startsWith("date: ")),
    body: text.slice(end + 4)
  }
}

/** The three security headers of C6, as every answer of ours carries them. */
export const securityHeaders = [
  "cache-control: no-store",
  "x-content-type-options: nosniff",
  "referrer-policy: no-referrer"
]

/** A refusal of ours, whole: written raw (Node's `clientError`, CONNECT) it is byte for byte this. */
export const refusal = (status: string, body: string) =>
  `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n` +
  `${securityHeaders.map((header) => `${header}\r\n`).join("")}connection: close\r\n\r\n${body}`

/** A refusal of ours given through Node's ServerResponse (the request was parsed): the same, with Node's Date. */
export const answered = (status: string, body: string) => ({
  statusLine: `HTTP/1.1 ${status}`,
  headers: [
    "content-type: application/json",
    `content-length: ${body.length}`,
    ...securityHeaders,
    "connection: close"
  ],
  body
})
