// The profile behind docs/performance.md: `runs` status reads (HermesApi.providerCard on the real
// layers) one after another against the stand-in in its own process, profiled (V8's CPU profiler,
// as `node --cpu-prof`) from the first read to the last only, so start-up is not in it.
//   npm run bench:profile [runs=3000] [out]   (bench/profile.mjs bundles and runs this, then summarises)
import { Layer, ManagedRuntime } from "effect"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BuddyConfig } from "../src/services/BuddyConfig.js"
import { HermesApi } from "../src/services/HermesApi.js"
import { GatewayLive } from "../src/services/layers.js"
import { startStandin } from "./standin.js"

const runs = Number(process.argv[2] ?? 3000)
const out = process.argv[3] ?? join(tmpdir(), "buddy-bench.cpuprofile")

const gateway = await startStandin()
const runtime = ManagedRuntime.make(
  GatewayLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: gateway.home })))
)
const api = await runtime.runPromise(HermesApi)
for (let i = 0; i < 50; i++) await runtime.runPromise(api.providerCard) // warm-up, not profiled
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.start")
const start = performance.now()
for (let i = 0; i < runs; i++) await runtime.runPromise(api.providerCard)
const elapsed = performance.now() - start
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
console.log(`${runs} reads in ${elapsed.toFixed(0)} ms (${(elapsed / runs).toFixed(3)} ms each); profile in ${out}`)
await runtime.dispose()
gateway.close()
