// What the fake Hermes gateway was asked, in a form a test can compare.
import type { FakeGateway } from "../../../fixtures/fake-gateway.js"

type Received = FakeGateway["received"][number]

/** Each HTTP request the fake got, `METHOD path` with session ids replaced by `<id>`. */
export const hermesHttp = (fake: FakeGateway) =>
  fake.received.filter((entry): entry is Extract<Received, { channel: "http" }> => entry.channel === "http").map((
    entry
  ) => `${entry.method} ${entry.path.replace(/\/(poll|sessions)\/[^/]+$/, "/$1/<id>")}`)

export const HERMES_START = "POST /api/providers/oauth/openai-codex/start"
export const HERMES_POLL = "GET /api/providers/oauth/openai-codex/poll/<id>"
export const HERMES_CANCEL = "DELETE /api/providers/oauth/sessions/<id>"
export const HERMES_SIGN_OUT = "DELETE /api/providers/oauth/openai-codex"
export const HERMES_CARD = "GET /api/providers/oauth"
