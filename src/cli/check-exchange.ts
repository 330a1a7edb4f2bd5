// The one request `buddy check` sends (issue 39, D58): `GET /api/buddy` over `buddy serve`'s Unix
// socket, with `Host: localhost` as curl --unix-socket sends it (a loopback name the app admits),
// and what came back, bounded in time and size. What the answer means is ./check.ts's.
import { Data, Duration, Effect } from "effect"
import { type IncomingMessage, request } from "node:http"
import { apiRoot } from "../schema/routes.js"
import { failureCode } from "../services/journal-loss.js"

/** Why nothing usable came back: the connect's code (ENOENT, ECONNREFUSED, EACCES), no answer in time, too much. */
export class NoAnswer extends Data.TaggedError("NoAnswer")<{
  readonly reason: "connect" | "timeout" | "too-large"
  /** The system's code, for `connect`. */
  readonly code?: string
}> {}

/** How long serve has to answer: its status read waits at most 5 s on Hermes (C5), then answers. */
export const checkDeadline = Duration.seconds(10)

/** A status answer is some 100 bytes; anything near this is not buddy's. */
const bodyLimit = 64 * 1024

export interface Exchange {
  readonly status: number
  readonly body: string
}

/** `GET /api/buddy` on the socket at `socketPath`: its status and body. */
export const askStatus = (socketPath: string): Effect.Effect<Exchange, NoAnswer> =>
  Effect.async<Exchange, NoAnswer>((resume) => {
    const req = request({ socketPath, method: "GET", path: apiRoot, agent: false, headers: { host: "localhost" } })
    req.on("error", (error) => resume(Effect.fail(new NoAnswer({ reason: "connect", code: failureCode(error) }))))
    req.on("response", (res: IncomingMessage) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        body += chunk
        if (body.length > bodyLimit) {
          res.destroy()
          resume(Effect.fail(new NoAnswer({ reason: "too-large" })))
        }
      })
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
    })
    req.end()
    // Interrupted (the deadline): the connection goes, and nothing more is heard.
    return Effect.sync(() => req.destroy())
  }).pipe(
    Effect.timeoutFail({ duration: checkDeadline, onTimeout: () => new NoAnswer({ reason: "timeout" }) })
  )
