// The real `buddy serve` executable with the contract's default deadlines (5 s per control exchange
// and per API call), against a fake gateway in another process: a step Hermes never answers is
// answered with the closed timeout after 5 s, not when the gateway hangs up (issue 8); and while a
// start is on its way to Hermes, `GET /api/buddy` never says that no sign-in is running (D14).
import { describe, expect, it } from "vitest"
import type { FaultRoute } from "../../fixtures/fake-gateway.js"
import { spawnGateway } from "../support/gateway-process.js"
import { startHost } from "./support/hosts.js"

const DEFAULT_MS = 5000

describe.concurrent("buddy serve with its default deadlines", () => {
  const cases: ReadonlyArray<readonly [string, FaultRoute, "GET" | "POST", string, unknown]> = [
    ["a status read whose providers call", "providers", "GET", "/api/buddy", {
      kind: "buddy",
      state: "unknown",
      reason: "timeout",
      signIn: { state: "none" },
      locale: "en"
    }],
    ["a sign-out whose identify", "identify", "POST", "/api/buddy/sign-out", {
      error: "buddy-unavailable",
      reason: "timeout"
    }],
    ["a start whose ticket", "session-ticket", "POST", "/api/buddy/sign-in/start", {
      error: "buddy-unavailable",
      reason: "timeout"
    }]
  ]
  for (const [what, step, method, path, body] of cases) {
    it(`answers ${what} Hermes never answers with the closed timeout after 5 s`, async ({ onTestFinished }) => {
      const gateway = await spawnGateway()
      onTestFinished(() => gateway.close())
      const host = await startHost("buddy serve", gateway.home)
      onTestFinished(() => host.close())
      await gateway.fault(step, { kind: "timeout" }, 1)
      const reply = await host.request(method, path, method === "POST" ? "{}" : undefined)
      expect(JSON.parse(reply.body)).toStrictEqual(body)
      expect(reply.ms).toBeGreaterThanOrEqual(DEFAULT_MS - 20)
      expect(reply.ms).toBeLessThan(DEFAULT_MS + 1500)
    }, 20_000)
  }

  it(
    "reads signIn pending while a start is on its way to Hermes, then the holder's sign-in",
    async ({ onTestFinished }) => {
      const gateway = await spawnGateway()
      onTestFinished(() => gateway.close())
      const host = await startHost("buddy serve", gateway.home)
      onTestFinished(() => host.close())
      await gateway.fault("start", { kind: "late", ms: 1500 }, 1)
      const starting = host.request("POST", "/api/buddy/sign-in/start", "{}")
      for (let waited = 0; !(await gateway.received()).some((entry) => entry.channel === "http"); waited += 20) {
        if (waited > 5000) throw new Error("the start never reached the gateway")
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const during = await host.request("GET", "/api/buddy")
      expect(JSON.parse(during.body)).toMatchObject({ state: "waits", signIn: { state: "pending" } })
      expect(JSON.parse((await starting).body)).toMatchObject({ kind: "sign-in", state: "pending" })
      expect(JSON.parse((await host.request("GET", "/api/buddy")).body)).toMatchObject({ signIn: { state: "pending" } })
      expect(host.journal()).toStrictEqual([
        JSON.stringify({ scope: "buddy-sign-in", operation: "start", outcome: "pending" })
      ])
    },
    20_000
  )
})
