// A closed tab loses nothing (C4, issue 16 item 5), over the wire: through the real `buddy serve`
// with the fake gateway in another process, a client that disconnects while its start waits on
// Hermes (a late start) and one that disconnects mid-poll. Afterwards the sign-in is still held:
// the gateway's record shows the next start polling and cancelling exactly that session on Hermes
// before it starts another.
import * as net from "node:net"
import { describe, expect, it } from "vitest"
import { tempDir } from "../cli/support/cleanup.js"
import { gatewayProcess, type RemoteGateway } from "../support/gateway-process.js"
import { LAUNCHPAD, postSameOrigin, serveSocket } from "./support/serve-child.js"

const sameOrigin = `Origin: ${LAUNCHPAD}\r\nSec-Fetch-Site: same-origin\r\nContent-Type: application/json\r\n`

/** Sends a request and hangs up once the gateway has received `seen`: a tab closed mid-request. */
const closedMidway = async (at: string, raw: string, seen: () => Promise<boolean>) => {
  const socket = net.connect(at)
  await new Promise((resolve) => socket.once("connect", resolve))
  socket.write(raw)
  await until(seen)
  socket.destroy()
}

const until = async (ready: () => Promise<boolean>) => {
  for (let waited = 0; waited < 5_000; waited += 20) {
    if (await ready()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error("not within 5 s")
}

const lines = async (gateway: RemoteGateway) =>
  (await gateway.received()).flatMap((entry) => (entry.channel === "http" ? [`${entry.method} ${entry.path}`] : []))

/** The next start finds the held sign-in: it polls and cancels exactly `id` on Hermes, then starts. */
const nextStartEnds = async (at: string, gateway: RemoteGateway, id: string) => {
  await gateway.clearReceived()
  const next = await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")
  expect(next.status).toBe(200)
  expect(await lines(gateway)).toStrictEqual([
    `GET /api/providers/oauth/openai-codex/poll/${id}`,
    `DELETE /api/providers/oauth/sessions/${id}`,
    "POST /api/providers/oauth/openai-codex/start"
  ])
  const sessions = await gateway.sessions()
  expect(sessions.map((session) => [session.id === id, session.cancelled])).toStrictEqual([[true, true], [
    false,
    false
  ]])
}

describe("a closed tab loses nothing", { timeout: 30_000 }, () => {
  it("a client gone while its start waits on Hermes: the start's session is held, and the next start ends it first", async () => {
    const gateway = await gatewayProcess()
    const { at, serve } = await serveSocket(gateway.home, {
      env: { XDG_RUNTIME_DIR: await tempDir("buddy-closed-tab-", 0o700) }
    })
    await gateway.fault("start", { kind: "late", ms: 600 }, 1)
    await closedMidway(
      at,
      `POST /api/buddy/sign-in/start HTTP/1.1\r\nHost: localhost\r\n${sameOrigin}Content-Length: 2\r\n\r\n{}`,
      async () => (await lines(gateway)).includes("POST /api/providers/oauth/openai-codex/start")
    )
    // The start runs to its end without its asker, journaled as every start is.
    expect(await serve.stdoutLines(1)).toStrictEqual([
      "{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}"
    ])
    const [first] = await gateway.sessions()
    await nextStartEnds(at, gateway, first!.id)
  })

  it("a client gone mid-poll: the sign-in stays held and polls pending, and the next start ends it first", async () => {
    const gateway = await gatewayProcess()
    const { at } = await serveSocket(gateway.home, {
      env: { XDG_RUNTIME_DIR: await tempDir("buddy-closed-tab-", 0o700) }
    })
    const started = await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")
    const { handle } = JSON.parse(started.body) as { readonly handle: string }
    const [first] = await gateway.sessions()
    await gateway.fault("poll", { kind: "late", ms: 600 }, 1)
    const body = JSON.stringify({ handle })
    await closedMidway(
      at,
      `POST /api/buddy/sign-in/poll HTTP/1.1\r\nHost: localhost\r\n${sameOrigin}Content-Length: ${body.length}\r\n\r\n${body}`,
      async () => (await lines(gateway)).some((line) => line.includes("/poll/"))
    )
    expect(JSON.parse((await postSameOrigin(at, "/api/buddy/sign-in/poll", body)).body)).toMatchObject({
      state: "pending"
    })
    await nextStartEnds(at, gateway, first!.id)
  })
})
