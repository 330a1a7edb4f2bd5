// Hermes's poll_interval is 5 s, and the CLI honours it. To keep each held sign-in under a few
// seconds, the test starts a real session on the fake itself (through the real client), then has
// the fake answer the CLI's own start with that session and `poll_interval: 1`. The CLI then holds
// a real session on the fake: approve, expire, cancel and the received log all work as usual.
import { Effect, Layer } from "effect"
import type { FakeGatewayControls, FakeGatewayHandle } from "../../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../../src/services/BuddyConfig.js"
import { HermesApi } from "../../../src/services/HermesApi.js"
import { GatewayLive } from "../../../src/services/layers.js"

export const CODE = "ABCD-EFGHK"
export const PAGE = "https://auth.openai.com/codex/device"

/** Arms the fake's next start answer; returns the session id the CLI will hold. */
export const fastStart = async (fake: FakeGatewayHandle): Promise<string> => {
  const started = await Effect.runPromise(
    Effect.flatMap(HermesApi, (api) => api.start).pipe(
      Effect.provide(GatewayLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home })), Layer.orDie))
    )
  )
  if (started.value._tag !== "Started") throw new Error("the fake did not start a session")
  const sessionId = started.value.sessionId
  fake.fault("start", {
    kind: "reply",
    body: {
      session_id: sessionId,
      flow: "device_code",
      user_code: CODE,
      verification_url: PAGE,
      expires_in: 900,
      poll_interval: 1
    }
  }, 1)
  fake.clearReceived()
  return sessionId
}

type Received = FakeGatewayControls["received"][number]

/** The HTTP requests the fake received, as `METHOD path`, session ids shown as `<id>` or as given. */
export const httpLines = (fake: Pick<FakeGatewayControls, "received">, sessionId?: string): ReadonlyArray<string> =>
  fake.received
    .filter((entry): entry is Extract<Received, { channel: "http" }> => entry.channel === "http")
    .map((entry) => {
      const path = sessionId === undefined ? entry.path : entry.path.replace(sessionId, "<id>")
      return `${entry.method} ${path}`
    })

export const START = "POST /api/providers/oauth/openai-codex/start"
export const POLL = "GET /api/providers/oauth/openai-codex/poll/<id>"
export const CANCEL = "DELETE /api/providers/oauth/sessions/<id>"
export const SIGN_OUT = "DELETE /api/providers/oauth/openai-codex"
export const PROVIDERS = "GET /api/providers/oauth"
