// `npm run bench:versus -- <rev>`: a candidate against what it replaces, in one run. The services
// of git revision <rev> (extracted beside a link to our node_modules, so both load the same Effect)
// and those of the working tree, `HermesApi.providerCard` on each one's real layers, interleaved
// with the raw clients (bench/floor.mjs; the floor is the one that identifies once, the protocol
// buddy speaks, D47) against the gateway stand-in in its own process. Rounds in a rotated order; p50
// and p90 of each over the floor's, and CPU (this process, user + system) per read, each the median
// over rounds. ROUNDS (default 10) and READS (per round and kind,
// default 150) lengthen or shorten it.
import { Layer, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { BuddyConfig } from "../src/services/BuddyConfig.js"
import type { HermesApi } from "../src/services/HermesApi.js"
import type { GatewayLive } from "../src/services/layers.js"
import { identifyOnceReader, rawRead } from "./floor.mjs"
import { type Figures, interleave } from "./interleave.js"
import { startStandin } from "./standin.js"

/** What the bench needs of a revision's services; an older revision's have the same shape. */
interface Services {
  readonly BuddyConfig: typeof BuddyConfig
  readonly HermesApi: typeof HermesApi
  readonly GatewayLive: typeof GatewayLive
}

const rev = process.argv[2]
if (rev === undefined) throw new Error("usage: npm run bench:versus -- <git revision>")
const rounds = Number(process.env.ROUNDS ?? 10)
const reads = Number(process.env.READS ?? 150)
const root = fileURLToPath(new URL("../", import.meta.url))
const before = mkdtempSync(join(tmpdir(), "buddy-versus-"))
process.on("exit", () => rmSync(before, { recursive: true, force: true }))
// Its package.json and tsconfig.json too: without `"type": "module"` beside it, tsx loads the
// revision's src/ as CommonJS, and with it Effect's CommonJS build, which made the same code measure
// 7–25 % slower than the working tree's (D47.11).
execFileSync("sh", [
  "-c",
  `git -C "${root}" archive "${rev}" src fixtures package.json tsconfig.json | tar -x -C "${before}"`
])
symlinkSync(join(root, "node_modules"), join(before, "node_modules"))

const load = async (dir: string): Promise<Services> => ({
  BuddyConfig: (await import(join(dir, "src/services/BuddyConfig.ts"))).BuddyConfig,
  HermesApi: (await import(join(dir, "src/services/HermesApi.ts"))).HermesApi,
  GatewayLive: (await import(join(dir, "src/services/layers.ts"))).GatewayLive
})

const standin = await startStandin()
process.on("exit", () => standin.close())

const reader = async (services: Services) => {
  const runtime = ManagedRuntime.make(
    services.GatewayLive.pipe(Layer.provide(services.BuddyConfig.gatewayLayer({ hermesHome: standin.home })))
  )
  const api = await runtime.runPromise(services.HermesApi)
  return async () => {
    const card = await runtime.runPromise(api.providerCard)
    if (!card.value.loggedIn) throw new Error("the stand-in reads signed in")
  }
}
const kinds: Record<string, () => Promise<unknown>> = {
  floor: identifyOnceReader(standin.socket, standin.home),
  "floor making C1's three calls": identifyOnceReader(standin.socket, standin.home, true),
  "raw client identifying at every read": () => rawRead(standin.socket, standin.home),
  [rev]: await reader(await load(before)),
  "working tree": await reader(await load(root))
}
const figures = await interleave(kinds, rounds, reads)
const figure = (name: string, what: keyof Figures) => figures[name]![what]
process.stdout.write("| providerCard | p50 / floor | p90 / floor | CPU µs per read |\n|---|---|---|---|\n")
for (const name of Object.keys(kinds)) {
  process.stdout.write(
    `| ${name} | ${(figure(name, "p50") / figure("floor", "p50")).toFixed(2)}× | ${
      (figure(name, "p90") / figure("floor", "p90")).toFixed(2)
    }× | ${figure(name, "cpu").toFixed(0)} |\n`
  )
}
process.stdout.write(`\n${rounds} rounds × ${reads} reads per kind, interleaved; node ${process.version}\n`)
process.exit(0)
