// C3: the call goes straight to the loopback origin whatever the proxy settings say. Proven in
// a child process (so the environment is the one a real process starts with) whose HTTP_PROXY,
// HTTPS_PROXY, ALL_PROXY (both cases) and NODE_USE_ENV_PROXY point at a trap that must see
// zero connections, while the fake gateway sees the request.
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as Net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "support", "status-child.ts")

/** A TCP server that counts every connection made to it and answers nothing. */
const trapProxy = Effect.acquireRelease(
  Effect.async<{ readonly port: number; readonly connections: () => number; readonly server: Net.Server }>(
    (resume) => {
      let count = 0
      const server = Net.createServer((socket) => {
        count++
        socket.destroy()
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(
          Effect.succeed({
            port: typeof address === "object" && address !== null ? address.port : 0,
            connections: () => count,
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

const runChild = (home: string, env: NodeJS.ProcessEnv) =>
  Effect.async<string>((resume) => {
    execFile(process.execPath, ["--import", "tsx", child, home], { env, timeout: 20_000 }, (_error, stdout) =>
      resume(Effect.succeed(stdout)))
  })

it.scopedLive("with every proxy variable pointed at a trap, the call still goes straight to the gateway", () =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway({ signedIn: true })
    const trap = yield* trapProxy
    const proxy = `http://127.0.0.1:${trap.port}`
    const stdout = yield* runChild(fake.home, {
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
    expect(JSON.parse(stdout)).toStrictEqual({ ok: true, value: { loggedIn: true } })
    expect(trap.connections()).toBe(0)
    const http = fake.received.filter((entry) => entry.channel === "http")
    expect(http).toHaveLength(1)
  }))
