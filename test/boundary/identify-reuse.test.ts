// C2's one saving where status reads are made (D47): through the real `buddy serve`, with the gateway
// in another process, the second read within 10 s is one mint and one GET. Every rule of the reuse,
// through the real layers: test/services/identify-reuse-remote.test.ts.
import { describe, expect, it } from "vitest"
import { gatewayProcess } from "../support/gateway-process.js"
import { getStatus, serveSocket } from "./support/serve-child.js"

const PROVIDERS = "GET /api/providers/oauth"

describe("a status read reuses a recent identify, through buddy serve (C2)", { timeout: 60_000 }, () => {
  it("through buddy serve, where status reads are made: the second read within 10 s is one mint and one GET", async () => {
    const gateway = await gatewayProcess({ signedIn: true })
    const { at } = await serveSocket(gateway.home)
    await gateway.clearReceived()
    const bodies = [await getStatus(at), await getStatus(at)]
    expect(bodies.map((body) => (JSON.parse(body) as { readonly state: string }).state)).toStrictEqual([
      "works",
      "works"
    ])
    const seen = (await gateway.received()).map((entry) =>
      entry.channel === "control"
        ? (JSON.parse(entry.line) as { readonly verb: string }).verb
        : `${entry.method} ${entry.path}`
    )
    expect(seen).toStrictEqual([
      "identify",
      "session-ticket",
      PROVIDERS,
      "session-ticket",
      PROVIDERS
    ])
  })
})
