// The bench (`npm run bench`, docs/performance.md): buddy against the floor, everything out of
// process. A minimal gateway stand-in runs in its own process (bench/standin.mjs); the floors are
// minimal raw clients (bench/floor.mjs), one that identifies once (the protocol buddy and Hermes
// Desktop speak, C2, D47), the same making C1's three file-system calls before each mint (what the
// walk alone costs, D47.11) and one that identifies at every read. Every figure is a ratio of two
// things measured in this same run, interleaved, because this machine is shared and its absolute
// times mean little:
//   - HermesApi.providerCard on the real layers vs the identify-once raw client, p50, p90 and CPU
//     per read (this process's, user + system, around each read); for reference against the others;
//   - GET /api/buddy through the real `buddy serve` on its default socket (RUNTIME_DIRECTORY, as a
//     service manager starts it) vs a bare node:http server on a socket that makes the identify-once
//     raw reading per request (bench/bare-server.mjs), p50 and p90, over one kept-alive connection (as
//     a page's requests go) and over a new connection per request (nginx's default towards an
//     upstream); each server's CPU per request (its process's, from /proc); and, for reference, the
//     bare server against the raw client;
//   - throughput of GET /api/buddy at 16 and 64 connections vs that bare server (bench/load.mjs,
//     a load generator in its own process);
//   - CLI cold start, `buddy --version` and `buddy status --json`, vs `node -e 0` (hyperfine).
// `npm run bench` writes the results into docs/performance.md; `npm run bench:check` (`--check`)
// writes nothing and exits 1 when a ratio is more than 25 % worse than the figures stored there.
// RUNS (latency samples per kind, default 400), LOAD_SECONDS (per round, default 3), LOAD_ROUNDS
// (default 3), CLI_ROUNDS (default 5) and CLI_RUNS (per round, default 10) shorten or lengthen it.
// Both also measure the browser client's bundle (bench/client-size.ts), and fail when it is more
// than 25 % over the stored size; `--client-size` measures, writes or checks only that, in seconds.
import { Layer, ManagedRuntime } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import * as os from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { BuddyConfig } from "../src/services/BuddyConfig.js"
import { HermesApi } from "../src/services/HermesApi.js"
import { GatewayLive } from "../src/services/layers.js"
import { grown, measureBoth, storedSizes, withClientBlock } from "./client-size.js"
import { identifyOnceReader, rawRead } from "./floor.mjs"
import { type Child, serveConfig, startChild, startStandin } from "./standin.js"
import { startRatios } from "./start-ratios.mjs"

const root = fileURLToPath(new URL("../", import.meta.url))
const doc = join(root, "docs/performance.md")
const check = process.argv.includes("--check")
const runs = Number(process.env.RUNS ?? 400)
const warmup = 50
const loadSeconds = Number(process.env.LOAD_SECONDS ?? 3)
const loadRounds = Number(process.env.LOAD_ROUNDS ?? 3)
const cliRuns = Number(process.env.CLI_RUNS ?? 10)
const cliRounds = Number(process.env.CLI_ROUNDS ?? 5)
/** ONLY=latency,throughput,cli runs just those parts, for trying a change; nothing is written or checked. */
const only = process.env.ONLY?.split(",")
const part = (name: "latency" | "throughput" | "cli") => only === undefined || only.includes(name)
/** How much worse than the stored figure a ratio may get before `--check` fails. */
const tolerance = 1.25

// The browser client's and the card's sizes first: they need no stand-in, no build and no quiet machine.
const sizes = await measureBoth(root)
process.stderr.write(
  `bench: the browser client: ${sizes.client.minified} bytes minified, ${sizes.client.gzipped} gzipped; ` +
    `the card with it: ${sizes.card.minified} minified, ${sizes.card.gzipped} gzipped\n`
)

/** Writes both sizes into docs/performance.md, or (`--check`) fails when one grew more than 25 %. */
const settleClient = () => {
  const text = readFileSync(doc, "utf8")
  if (!check) return writeFileSync(doc, withClientBlock(text, sizes, root))
  const stored = storedSizes(text)
  const { card, client } = stored ?? {}
  if (client === undefined || card === undefined) {
    throw new Error("docs/performance.md holds no client and card sizes: run `npm run bench -- --client-size` first")
  }
  let worse = 0
  for (const [bundle, kept] of [["client", client], ["card", card]] as const) {
    for (const name of grown(kept, sizes[bundle], tolerance)) {
      console.error(`regressed: the ${bundle} ${name}, ${sizes[bundle][name]} bytes against ${kept[name]} stored`)
      worse += 1
    }
  }
  if (worse > 0) process.exitCode = 1
  else console.log("bench:check: the client's and the card's sizes no more than 25 % over docs/performance.md")
}
if (process.argv.includes("--client-size")) {
  settleClient()
  process.exit()
}

/** What each ratio is, its target, and which way is better. */
const targets = {
  "service p50": { what: "HermesApi.providerCard / identify-once raw client, p50", target: 1.3, better: "lower" },
  "service p90": { what: "HermesApi.providerCard / identify-once raw client, p90", target: undefined, better: "lower" },
  "service cpu": {
    what: "HermesApi.providerCard / identify-once raw client, CPU per read",
    target: 1.5,
    better: "lower"
  },
  "service each p50": {
    what: "HermesApi.providerCard / raw client identifying at every read, p50 (reference)",
    better: "lower"
  },
  "service walk p50": {
    what: "HermesApi.providerCard / identify-once raw client making C1's three calls, p50 (reference)",
    better: "lower"
  },
  "service walk cpu": {
    what: "HermesApi.providerCard / identify-once raw client making C1's three calls, CPU per read (reference)",
    better: "lower"
  },
  "floor walk p50": {
    what: "identify-once raw client making C1's three calls / identify-once raw client, p50 (reference)",
    better: "lower"
  },
  "floor once p50": {
    what: "identify-once raw client / raw client identifying at every read, p50 (reference)",
    better: "lower"
  },
  "route p50": {
    what: "GET /api/buddy via buddy serve / bare server, kept-alive connection, p50",
    target: 1.2,
    better: "lower"
  },
  "route p90": {
    what: "GET /api/buddy via buddy serve / bare server, kept-alive connection, p90",
    target: undefined,
    better: "lower"
  },
  "route new p50": {
    what: "GET /api/buddy via buddy serve / bare server, a new connection each, p50",
    target: 1.2,
    better: "lower"
  },
  "route cpu": {
    what: "buddy serve / bare server, CPU per request (its own process)",
    target: 2,
    better: "lower"
  },
  "bare route p50": {
    what: "GET via bare server / identify-once raw client, kept-alive connection, p50 (reference)",
    better: "lower"
  },
  "throughput 16": {
    what: "GET /api/buddy req/s, buddy serve / bare server, 16 connections",
    target: 1,
    better: "higher"
  },
  "throughput 64": {
    what: "GET /api/buddy req/s, buddy serve / bare server, 64 connections",
    target: 1,
    better: "higher"
  },
  "cli --version": { what: "buddy --version / node -e 0, median", target: 2.5, better: "lower" },
  "cli status": { what: "buddy status --json / node -e 0, median", target: 3, better: "lower" }
} as const satisfies Record<string, { what: string; target?: number | undefined; better: "lower" | "higher" }>
type Name = keyof typeof targets

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

/** Wall time and this process's CPU (user + system) of one run, in ms. */
const timed = async (run: () => Promise<unknown>) => {
  const start = performance.now()
  const cpu = process.cpuUsage()
  await run()
  const used = process.cpuUsage(cpu)
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 }
}

/** A child process's CPU so far (user + system), in ms, from /proc; NaN where there is no /proc. */
const cpuOf = (pid: number | undefined) => {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return Number.NaN
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // utime and stime are fields 14 and 15: the 12th and 13th after the command's closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks
}
const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim())

/**
 * One GET, on the given agent's kept-alive connection, or on a new connection (`false`: as a
 * browser's first request, and as the raw client's GET).
 */
const get = (socketPath: string, path: string, agent: Agent | false) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ socketPath, path, agent }, (res) => {
      const parts: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => parts.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString("utf8") }))
    })
    req.on("error", reject)
    req.end()
  })

/**
 * The real executable, `buddy serve`, on its default socket in the runtime directory a service
 * manager gives it (RUNTIME_DIRECTORY); resolves once it listens there.
 */
const startServe = (configFile: string, runtimeDirectory: string) =>
  new Promise<Child<{ socket: string }>>((resolve, reject) => {
    const socket = join(runtimeDirectory, "serve.sock")
    mkdirSync(runtimeDirectory, { mode: 0o700 })
    const child = spawn(
      process.execPath,
      [join(root, "bin/buddy.js"), "serve", "--config", configFile],
      { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, RUNTIME_DIRECTORY: runtimeDirectory } }
    )
    child.stdout.resume() // the journal; status reads write none
    child.once("exit", (code) => reject(new Error(`buddy serve exited with ${code}`)))
    createInterface({ input: child.stderr }).on("line", (line) => {
      if (line === `buddy serve: listening on unix:${socket}`) {
        resolve({
          ready: { socket },
          process: child,
          close: () => child.kill("SIGTERM")
        })
      }
    })
  })

let failedAnswers = 0
const load = (socket: string, connections: number) =>
  startChild<{ requests: number; non200: number; errors: number; seconds: number }>("load.mjs", [
    socket,
    String(connections),
    String(loadSeconds)
  ]).then((child) => {
    child.close()
    const { requests, non200, errors, seconds } = child.ready
    // Only reads that worked count; any other answer is reported with the results.
    failedAnswers += non200 + errors
    return requests / seconds
  })

/**
 * CLI start: hyperfine, a new process per run, in CLI_ROUNDS rounds of CLI_RUNS runs of every
 * command; each round's medians give its ratios, and the figure is the median over the rounds, so a
 * change of load during the run weighs on every command alike.
 */
const hyperfine = (home: string) => {
  const buddy = `${process.execPath} ${join(root, "bin/buddy.js")}`
  const commands = [`${process.execPath} -e 0`, `${buddy} --version`, `${buddy} status --json --home ${home}`]
  const [, version = Number.NaN, status = Number.NaN] = startRatios(commands, cliRounds, cliRuns)
  return { "cli --version": version, "cli status": status }
}

const began = performance.now()
const loadBefore = os.loadavg()
execFileSync(process.execPath, [join(root, "scripts/build.js")], { stdio: "inherit" })
const standin = await startStandin()
const work = mkdtempSync(join(os.tmpdir(), "buddy-bench-serve-"))
const cleanups: Array<() => void> = [() => standin.close(), () => rmSync(work, { recursive: true, force: true })]
const cleanUp = () => cleanups.splice(0).forEach((cleanup) => cleanup())
process.on("exit", cleanUp)

const configFile = serveConfig(work, standin.home)
const say = (line: string) => process.stderr.write(`bench: ${line}\n`)
say(`stand-in ${standin.origin}; starting buddy serve`)
const serve = await startServe(configFile, join(work, "runtime"))
cleanups.unshift(serve.close)
const bare = await startChild<{ socket: string }>("bare-server.mjs", [
  standin.socket,
  standin.home,
  join(work, "bare.sock")
])
cleanups.unshift(bare.close)
const runtime = ManagedRuntime.make(
  GatewayLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: standin.home })))
)
const api = await runtime.runPromise(HermesApi)

// Every kind answers what the stand-in serves (signed in) before anything is timed.
const expectWorks = (what: string, ok: boolean) => {
  if (!ok) throw new Error(`${what} did not read "signed in" from the stand-in`)
}
// One kept-alive connection to each server, as a page's requests reach it.
const serveAgent = new Agent({ keepAlive: true, maxSockets: 1 })
const bareAgent = new Agent({ keepAlive: true, maxSockets: 1 })
cleanups.unshift(() => serveAgent.destroy(), () => bareAgent.destroy())
const route = async (agent: Agent | false) => {
  const answer = await get(serve.ready.socket, "/api/buddy", agent)
  expectWorks(`buddy serve (${answer.status} ${answer.body})`, answer.status === 200 && answer.body.includes("works"))
}
const bareRoute = async (agent: Agent | false) =>
  expectWorks("bare server", (await get(bare.ready.socket, "/api/buddy", agent)).status === 200)
const onceRead = identifyOnceReader(standin.socket, standin.home)
const walkingRead = identifyOnceReader(standin.socket, standin.home, true)
const kinds = {
  floor: async () => expectWorks("raw client", await rawRead(standin.socket, standin.home)),
  floorOnce: async () => expectWorks("identify-once raw client", await onceRead()),
  floorWalk: async () => expectWorks("identify-once raw client making C1's calls", await walkingRead()),
  service: async () => expectWorks("providerCard", (await runtime.runPromise(api.providerCard)).value.loggedIn),
  route: () => route(serveAgent),
  bare: () => bareRoute(bareAgent),
  routeNew: () => route(false),
  bareNew: () => bareRoute(false)
}
const order = Object.keys(kinds) as Array<keyof typeof kinds>
const samples = Object.fromEntries(order.map((kind) => [kind, [] as Array<number>])) as Record<
  keyof typeof kinds,
  Array<number>
>
const cpu = Object.fromEntries(order.map((kind) => [kind, 0])) as Record<keyof typeof kinds, number>
say(`latency: ${warmup} warm-up and ${runs} timed rounds of ${order.join(", ")}`)
// The servers' own CPU over the timed rounds: each serves only its two kinds, one request per round each.
const serversBefore = { serve: Number.NaN, bare: Number.NaN }
// Interleaved, each round in a rotated order, so no kind always follows the same one.
for (let i = 0; i < (part("latency") ? warmup + runs : 0); i++) {
  if (i === warmup) Object.assign(serversBefore, { serve: cpuOf(serve.process.pid), bare: cpuOf(bare.process.pid) })
  for (let k = 0; k < order.length; k++) {
    const kind = order[(i + k) % order.length]!
    const time = await timed(kinds[kind])
    if (i < warmup) continue
    samples[kind].push(time.wall)
    cpu[kind] += time.cpu
  }
}
const serverCpu = {
  serve: (cpuOf(serve.process.pid) - serversBefore.serve) / (2 * runs),
  bare: (cpuOf(bare.process.pid) - serversBefore.bare) / (2 * runs)
}
await runtime.dispose()
const p = (kind: keyof typeof kinds, q: number, over: keyof typeof kinds = "floorOnce") =>
  quantile(samples[kind], q) / quantile(samples[over], q)

// Throughput: rounds alternate which server goes first.
const throughput: Partial<Record<Name, number>> = {}
for (const connections of part("throughput") ? [16, 64] : []) {
  say(`throughput at ${connections} connections: ${loadRounds} rounds of ${loadSeconds} s per server`)
  let buddy = 0
  let floor = 0
  for (let round = 0; round < loadRounds; round++) {
    if (round % 2 === 0) {
      floor += await load(bare.ready.socket, connections)
      buddy += await load(serve.ready.socket, connections)
    } else {
      buddy += await load(serve.ready.socket, connections)
      floor += await load(bare.ready.socket, connections)
    }
  }
  throughput[connections === 16 ? "throughput 16" : "throughput 64"] = buddy / floor
}
serve.close()
bare.close()

const ratios: Record<Name, number> = {
  "cli --version": Number.NaN,
  "cli status": Number.NaN,
  "service p50": p("service", 0.5),
  "service p90": p("service", 0.9),
  "service cpu": cpu.service / cpu.floorOnce,
  "service each p50": p("service", 0.5, "floor"),
  "floor once p50": p("floorOnce", 0.5, "floor"),
  "service walk p50": p("service", 0.5, "floorWalk"),
  "service walk cpu": cpu.service / cpu.floorWalk,
  "floor walk p50": p("floorWalk", 0.5),
  "route p50": p("route", 0.5, "bare"),
  "route p90": p("route", 0.9, "bare"),
  "route new p50": p("routeNew", 0.5, "bareNew"),
  "route cpu": serverCpu.serve / serverCpu.bare,
  "bare route p50": p("bare", 0.5),
  "throughput 16": throughput["throughput 16"] ?? Number.NaN,
  "throughput 64": throughput["throughput 64"] ?? Number.NaN,
  ...(part("cli")
    ? (say(`CLI start: hyperfine, ${cliRounds} rounds of ${cliRuns} runs per command`), hyperfine(standin.home))
    : {})
}
// bin/buddy.js runs the source through tsx when a file under src/ is newer than the bundle: a
// concurrent edit during the run would have measured that instead of the bundle.
const bundleBuilt = statSync(join(root, "dist/buddy.js")).mtimeMs
const editedMeanwhile = readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && statSync(join(entry.parentPath, entry.name)).mtimeMs > bundleBuilt)
  .map((entry) => join(entry.parentPath, entry.name))
if (editedMeanwhile.length > 0) {
  throw new Error(`src/ changed during the run (${editedMeanwhile.join(", ")}): buddy ran from source; run again`)
}
const wall = (performance.now() - began) / 1000
const machine = {
  cores: os.availableParallelism(),
  node: process.version,
  load: [loadBefore[0], os.loadavg()[0]].map((l) => Number(l?.toFixed(2))),
  samples: runs,
  cpuPerReadMicros: {
    service: Math.round((cpu.service / runs) * 1000),
    identifyOnceClient: Math.round((cpu.floorOnce / runs) * 1000),
    walkingClient: Math.round((cpu.floorWalk / runs) * 1000),
    buddyServe: Math.round(serverCpu.serve * 1000),
    bareServer: Math.round(serverCpu.bare * 1000)
  },
  failedAnswersUnderLoad: failedAnswers,
  wallSeconds: Math.round(wall)
}

/** Met at the precision the figure is shown with (two decimals; the targets have one). */
const met = (name: Name, value: number) => {
  const { better, target } = targets[name] as { better: "lower" | "higher"; target?: number }
  if (target === undefined) return ""
  const shown = Number(value.toFixed(2))
  return (better === "lower" ? shown <= target : shown >= target) ? "met" : "NOT met"
}
const table = [
  "| ratio | measured | target | |",
  "|---|---|---|---|",
  ...(Object.keys(targets) as Array<Name>).map((name) => {
    const { what, better, target } = targets[name] as { what: string; better: "lower" | "higher"; target?: number }
    const goal = target === undefined ? "" : `${better === "lower" ? "≤" : "≥"} ${target}`
    return `| ${what} | ${ratios[name].toFixed(2)}× | ${goal} | ${met(name, ratios[name])} |`
  })
].join("\n")
console.log(table)
console.log(
  `\n${machine.cores} cores, load ${
    machine.load.join(" → ")
  }, ${runs} samples per kind, wall ${machine.wallSeconds} s` +
    `, ${failedAnswers} answers under load that were not a 200 reading "works"`
)

const begin = "<!-- bench:results:begin -->"
const end = "<!-- bench:results:end -->"
const text = readFileSync(doc, "utf8")
const stored = /```json\n([\s\S]*?)\n```/.exec(text.slice(text.indexOf(begin), text.indexOf(end)))?.[1]

if (only !== undefined) {
  // A partial run is for trying a change: it neither checks nor writes.
} else if (check) {
  if (stored === undefined) throw new Error("docs/performance.md holds no stored figures: run `npm run bench` first")
  const baseline = (JSON.parse(stored) as { ratios: Record<Name, number> }).ratios
  // The bare server's and the floors' own ratios are references, not buddy's: shown, never checked.
  const worse = (Object.keys(targets) as Array<Name>).filter((name) => {
    const before = baseline[name]
    if (before === undefined || ["bare route p50", "floor once p50", "floor walk p50"].includes(name)) return false
    return targets[name].better === "lower" ? ratios[name] > before * tolerance : ratios[name] < before / tolerance
  })
  for (const name of worse) {
    console.error(`regressed: ${name} ${ratios[name].toFixed(2)}× against ${baseline[name].toFixed(2)}× stored`)
  }
  if (worse.length > 0) process.exitCode = 1
  else console.log("bench:check: no ratio more than 25 % worse than docs/performance.md")
  settleClient()
} else {
  const block = [
    begin,
    `Last run: ${new Date().toISOString().slice(0, 10)}, ${machine.cores} cores, Node ${machine.node}, load average ` +
    `${machine.load.join(" → ")} (before → after), ${runs} interleaved samples per kind, bench wall time ` +
    `${machine.wallSeconds} s.`,
    "",
    table,
    "",
    "```json",
    JSON.stringify(
      { machine, ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Number(v.toFixed(3))])) },
      null,
      2
    ),
    "```",
    end
  ].join("\n")
  const at = text.indexOf(begin)
  const next = at === -1
    ? `${text.trimEnd()}\n\n${block}\n`
    : text.slice(0, at) + block + text.slice(text.indexOf(end) + end.length)
  writeFileSync(doc, next)
  settleClient()
  console.log("written to docs/performance.md")
}
cleanUp()
