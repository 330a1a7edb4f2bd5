// A guest that is kind to Hermes (C5, D24), through the real `buddy serve` with the fake gateway in
// another process: a burst of status reads while each provider reading takes Hermes half a second
// costs Hermes a handful of readings and never more than the bound of exchanges in flight, every
// read answers, and a read that arrives after Hermes changed its state never gets the reading that
// was already on its way.
import { describe, expect, it } from "vitest"
import type { FakeGateway } from "../../fixtures/fake-gateway.js"
import { exchangesInFlight } from "../../src/services/ExchangeLimit.js"
import { tempDir } from "../cli/support/cleanup.js"
import { gatewayProcess, type RemoteGateway } from "../support/gateway-process.js"
import { getStatus, serveSocket } from "./support/serve-child.js"

type Received = FakeGateway["received"][number]
const providerReadings = async (gateway: RemoteGateway) =>
  (await gateway.received()).filter((entry: Received) =>
    entry.channel === "http" && entry.method === "GET" && entry.path === "/api/providers/oauth"
  ).length
const stateOf = (body: string) => (JSON.parse(body) as { readonly state: string }).state

/** buddy serve on a gateway (signed in) whose every provider reading takes it half a second. */
const slowReadings = async () => {
  const gateway = await gatewayProcess({ signedIn: true })
  await gateway.fault("providers", { kind: "late", ms: 500 })
  const { at } = await serveSocket(gateway.home, { env: { XDG_RUNTIME_DIR: await tempDir("buddy-kind-", 0o700) } })
  await gateway.clearReceived()
  await gateway.resetMaxInFlight()
  return { at, gateway }
}

describe("kind to Hermes, through buddy serve", { timeout: 60_000 }, () => {
  it("400 concurrent reads while each reading takes Hermes 0.5 s: every one answers works, from a few readings, never more than the bound in flight", async () => {
    const { at, gateway } = await slowReadings()
    const answers = await Promise.all(Array.from({ length: 400 }, () => getStatus(at)))
    expect(answers.map(stateOf).filter((state) => state !== "works")).toStrictEqual([])
    // Before D24: 326 readings and 74 answers unknown (lost) for the same burst.
    expect(await providerReadings(gateway)).toBeLessThanOrEqual(6)
    expect(await gateway.maxInFlight()).toBeLessThanOrEqual(exchangesInFlight)
    expect((await gateway.ticketsMinted()).length).toBe(await providerReadings(gateway))
  })

  it("reads that arrive after Hermes changed its state wait for the next reading, never the one on its way", async () => {
    const { at, gateway } = await slowReadings()
    const early = Array.from({ length: 20 }, () => getStatus(at))
    // The first reading is on its way (held for 0.5 s) when Buddy is signed out on Hermes.
    for (let waited = 0; (await providerReadings(gateway)) === 0; waited += 5) {
      if (waited > 5_000) throw new Error("no reading reached the gateway")
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    await gateway.setSignedIn(false)
    const late = await Promise.all(Array.from({ length: 20 }, () => getStatus(at)))
    expect(late.map(stateOf)).toStrictEqual(Array.from({ length: 20 }, () => "waits"))
    expect((await Promise.all(early)).length).toBe(20)
    expect(await providerReadings(gateway)).toBeLessThanOrEqual(3)
  })
})
