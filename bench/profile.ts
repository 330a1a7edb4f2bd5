// The profile behind docs/performance.md: `runs` status reads (HermesApi.providerCard on the real
// layers) one after another against the stand-in in its own process, profiled (V8's CPU profiler,
// as `node --cpu-prof`) from the first read to the last only, so start-up is not in it.
//   npm run bench:profile [runs=3000] [out]   (bench/profile.mjs bundles and runs this, then summarises)
import { Effect, Layer, ManagedRuntime } from "effect"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BuddyConfig } from "../src/services/BuddyConfig.js"
import { HermesApi } from "../src/services/HermesApi.js"
import { GatewayLive } from "../src/services/layers.js"
import { Ticket } from "../src/services/Ticket.js"
import { identifyOnceReader, mintOnce } from "./floor.mjs"
import { startStandin } from "./standin.js"

const runs = Number(process.argv[2] ?? 3000)
const out = process.argv[3] ?? join(tmpdir(), "buddy-bench.cpuprofile")

const gateway = await startStandin()
const runtime = ManagedRuntime.make(
  GatewayLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: gateway.home })))
)
const { api, tickets } = await runtime.runPromise(Effect.all({ api: HermesApi, tickets: Ticket }))
const endpoint = await runtime.runPromise(tickets.identify)
// PROFILED says what else to profile, for a summary of the same form: the identify-once raw client
// (floor), buddy's mint alone (mint), the raw client's mint alone (floor-mint).
const params = { profile_id: endpoint.profileId, instance_id: endpoint.instanceId, purpose: "native-http" }
const reads: Record<string, () => Promise<unknown>> = {
  card: () => runtime.runPromise(api.providerCard),
  floor: identifyOnceReader(gateway.socket, gateway.home),
  mint: () => runtime.runPromise(tickets.mint(endpoint)),
  "floor-mint": () => mintOnce(gateway.socket, params)
}
const read = reads[process.env.PROFILED ?? "card"]!
for (let i = 0; i < 50; i++) await read() // warm-up, not profiled
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.start")
const start = performance.now()
for (let i = 0; i < runs; i++) await read()
const elapsed = performance.now() - start
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
console.log(`${runs} reads in ${elapsed.toFixed(0)} ms (${(elapsed / runs).toFixed(3)} ms each); profile in ${out}`)
await runtime.dispose()
gateway.close()
