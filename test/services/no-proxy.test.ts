// C3: the call goes straight to the loopback origin whatever the proxy settings say. Proven in
// a child process (so the environment is the one a real process starts with) whose HTTP_PROXY,
// HTTPS_PROXY, ALL_PROXY (both cases) and NODE_USE_ENV_PROXY point at a trap that must see no
// connection from our client, while the fake gateway sees the request. The same child then sends
// one control request the way a proxy-honouring client does, and the trap must see exactly that:
// so its silence about our client is a measurement, not a trap that could not have seen anything.
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as Net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "support", "status-child.ts")

/** A TCP server that records the request line of every connection made to it and answers nothing. */
const trapProxy = Effect.acquireRelease(
  Effect.async<{ readonly port: number; readonly requestLines: Array<string>; readonly server: Net.Server }>(
    (resume) => {
      const requestLines: Array<string> = []
      const server = Net.createServer((socket) => {
        let head = ""
        socket.on("error", () => {})
        socket.on("data", (chunk: Buffer) => {
          head += chunk.toString("latin1")
          const end = head.indexOf("\r\n")
          if (end < 0) return
          requestLines.push(head.slice(0, end))
          socket.destroy()
        })
        // A connection that sends nothing still counts.
        socket.once("close", () => {
          if (!head.includes("\r\n")) requestLines.push(`(connection, no request line: ${JSON.stringify(head)})`)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(
          Effect.succeed({
            port: typeof address === "object" && address !== null ? address.port : 0,
            requestLines,
            server
          })
        )
      })
    }
  ),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

const runChild = (home: string, controlTarget: string, env: NodeJS.ProcessEnv) =>
  Effect.async<string>((resume) => {
    execFile(
      process.execPath,
      ["--import", "tsx", child, home, controlTarget],
      { env, timeout: 20_000 },
      (_error, stdout) => resume(Effect.succeed(stdout))
    )
  })

it.scopedLive("with every proxy variable pointed at a trap, the call still goes straight to the gateway, while a proxy-honouring request from the same process reaches the trap", () =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway({ signedIn: true })
    const trap = yield* trapProxy
    const proxy = `http://127.0.0.1:${trap.port}`
    const controlTarget = `${fake.origin}/buddy-no-proxy-control`
    const stdout = yield* runChild(fake.home, controlTarget, {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HTTP_PROXY: proxy,
      HTTPS_PROXY: proxy,
      ALL_PROXY: proxy,
      http_proxy: proxy,
      https_proxy: proxy,
      all_proxy: proxy,
      NO_PROXY: "",
      no_proxy: "",
      NODE_USE_ENV_PROXY: "1"
    })
    // The trap destroys every connection unanswered, so the control gets no answer.
    expect(JSON.parse(stdout)).toStrictEqual({ ok: true, value: { loggedIn: true }, control: "no answer" })
    // Exactly one connection reached the trap, and it was the control's: none was our client's.
    expect(trap.requestLines).toStrictEqual([`GET ${controlTarget} HTTP/1.1`])
    const http = fake.received.filter((entry) => entry.channel === "http")
    expect(http.map((entry) => `${entry.method} ${entry.path}`)).toStrictEqual(["GET /api/providers/oauth"])
  }))
