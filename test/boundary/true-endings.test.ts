// Endings that are true for the person (C4.7, C5; D23), through the real `buddy serve` with the fake
// gateway in another process: after the person approves, a cancel answers signed-in and Hermes gets
// a poll and no cancel (its cancel would answer {ok:true} all the same, fixtures fact 14), and a page
// that lost its handle reads works and none from one status read, which polled the held sign-in.
import { describe, expect, it } from "vitest"
import { tempDir } from "../cli/support/cleanup.js"
import { gatewayProcess, type RemoteGateway } from "../support/gateway-process.js"
import { getStatus, postSameOrigin, serveSocket } from "./support/serve-child.js"

const httpLines = async (gateway: RemoteGateway, id: string) =>
  (await gateway.received()).flatMap((entry) =>
    entry.channel === "http" ? [`${entry.method} ${entry.path.replace(id, "<id>")}`] : []
  )

/** buddy serve holding a sign-in the person has just approved on Hermes. */
const approvedWhileHeld = async () => {
  const gateway = await gatewayProcess()
  const { at, serve } = await serveSocket(gateway.home, {
    env: { XDG_RUNTIME_DIR: await tempDir("buddy-endings-", 0o700) }
  })
  const started = await postSameOrigin(at, "/api/buddy/sign-in/start", "{}")
  const { handle } = JSON.parse(started.body) as { readonly handle: string }
  const [session] = await gateway.sessions()
  expect(await gateway.approve(session!.id)).toBe(true)
  await gateway.clearReceived()
  return { gateway, at, serve, handle, id: session!.id }
}

describe("endings that are true for the person, through buddy serve", { timeout: 30_000 }, () => {
  it("a cancel after the person approved answers signed-in: Hermes got a poll and no cancel, and Buddy works", async () => {
    const { at, gateway, handle, id, serve } = await approvedWhileHeld()
    expect(await postSameOrigin(at, "/api/buddy/sign-in/cancel", JSON.stringify({ handle }))).toStrictEqual({
      status: 200,
      body: "{\"kind\":\"sign-in\",\"state\":\"signed-in\"}"
    })
    expect(await httpLines(gateway, id)).toStrictEqual(["GET /api/providers/oauth/openai-codex/poll/<id>"])
    expect((await gateway.sessions())[0]).toMatchObject({ status: "approved", cancelled: false })
    expect(await gateway.signedIn()).toBe(true)
    expect(await getStatus(at)).toBe(
      "{\"kind\":\"buddy\",\"state\":\"works\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
    )
    expect(serve.stdoutNow().at(-1)).toBe(
      "{\"scope\":\"buddy-sign-in\",\"operation\":\"cancel\",\"outcome\":\"signed-in\"}"
    )
  })

  it("a page that lost its handle reads works and none from one status read, which polled the held sign-in", async () => {
    const { at, gateway, handle, id } = await approvedWhileHeld()
    expect(await getStatus(at)).toBe(
      "{\"kind\":\"buddy\",\"state\":\"works\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"
    )
    expect(await httpLines(gateway, id)).toStrictEqual([
      "GET /api/providers/oauth/openai-codex/poll/<id>",
      "GET /api/providers/oauth"
    ])
    // The holder, if it comes back, reads its ending without Hermes being asked again.
    await gateway.clearReceived()
    expect(JSON.parse((await postSameOrigin(at, "/api/buddy/sign-in/poll", JSON.stringify({ handle }))).body))
      .toStrictEqual({ kind: "sign-in", state: "signed-in" })
    expect(await httpLines(gateway, id)).toStrictEqual([])
  })
})
