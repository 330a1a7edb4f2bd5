// `npm run bench:deadlines`: how a deadline is armed, candidates measured in one run (D25,
// docs/performance.md). One control exchange (identify) and one API exchange (GET of the provider
// list) against the gateway stand-in in its own process, with the real exchange code, under each
// candidate:
//   - none:        no deadline at all (the floor: what the exchanges cost by themselves);
//   - timeoutFail: `Effect.timeoutFail` around each exchange, as before issue 17 (the work and a
//                  sleep forked and raced, then `Effect.interruptible` so the race can cut it);
//   - clock sleep: the deadline armed once (`withDeadline`) on a clock other than the live one, so
//                  it is that clock's own sleep in a fiber of its own, as the TestClock's is;
//   - timer:       the deadline armed once on the live clock, a plain timer (what is kept).
// Rounds are interleaved, each in a rotated order; each figure is the median over rounds of the
// round's CPU time (user + system, this process) per pair of exchanges, and of its latency p50.
// ROUNDS (default 12) and PAIRS (per round and candidate, default 300) lengthen or shorten it.
import { Clock, Duration, Effect, Option, Redacted } from "effect"
import { join } from "node:path"
import { parseApiOrigin } from "../src/services/api-origin.js"
import { type Deadline, noDeadline, withDeadline } from "../src/services/deadline.js"
import { gatewayError } from "../src/services/GatewayError.js"
import { exchangeOn } from "../src/services/GatewaySocket.js"
import { httpExchange } from "../src/services/loopback-http.js"
import { startStandin } from "./standin.js"

const rounds = Number(process.env.ROUNDS ?? 12)
const pairs = Number(process.env.PAIRS ?? 300)
const deadline = Duration.seconds(5)

const standin = await startStandin()
process.on("exit", () => standin.close())
const socket = join(standin.home, "gateway.sock")
const origin = Option.getOrThrow(parseApiOrigin(standin.origin))
const ticket = Redacted.make("bench")

const control = (armed: Deadline) => exchangeOn(socket, { protocol: 1, id: 1, verb: "identify" }, 65_536, armed)
const api = (armed: Deadline) =>
  httpExchange({ origin, method: "GET", path: "/api/providers/oauth", ticket, limit: 1_048_576, deadline: armed })

const candidates = {
  none: Effect.zip(control(noDeadline), api(noDeadline)),
  timeoutFail: Effect.zip(
    control(noDeadline).pipe(
      Effect.timeoutFail({ duration: deadline, onTimeout: () => gatewayError("timeout") }),
      Effect.interruptible
    ),
    api(noDeadline).pipe(
      Effect.timeoutFail({ duration: deadline, onTimeout: () => ({ reason: "timeout", mayHaveRun: true }) }),
      Effect.interruptible
    )
  ),
  "clock sleep": Effect.withClock(
    Effect.zip(withDeadline(deadline, control), withDeadline(deadline, api)),
    Clock.make()
  ),
  timer: Effect.zip(withDeadline(deadline, control), withDeadline(deadline, api))
}
type Candidate = keyof typeof candidates
const names = Object.keys(candidates) as Array<Candidate>

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** One round of one candidate: CPU µs per pair, and the latency p50 in µs. */
const round = async (name: Candidate) => {
  const latencies: Array<number> = []
  const cpu = process.cpuUsage()
  for (let i = 0; i < pairs; i++) {
    const start = performance.now()
    await Effect.runPromise(candidates[name])
    latencies.push((performance.now() - start) * 1000)
  }
  const used = process.cpuUsage(cpu)
  return { cpu: (used.user + used.system) / pairs, p50: median(latencies) }
}

for (const name of names) await round(name) // warm-up, not counted
const results = Object.fromEntries(names.map((name) => [name, { cpu: [] as Array<number>, p50: [] as Array<number> }]))
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(r + k) % names.length]!
    const { cpu, p50 } = await round(name)
    results[name]!.cpu.push(cpu)
    results[name]!.p50.push(p50)
  }
}

const floor = { cpu: median(results.none!.cpu), p50: median(results.none!.p50) }
process.stdout.write(
  `| Deadline | CPU µs per pair | over none | p50 µs per pair | / none |\n|---|---|---|---|---|\n`
)
for (const name of names) {
  const cpu = median(results[name]!.cpu)
  const p50 = median(results[name]!.p50)
  process.stdout.write(
    `| ${name} | ${cpu.toFixed(0)} | ${(cpu - floor.cpu).toFixed(0)} | ${p50.toFixed(0)} | ${
      (p50 / floor.p50).toFixed(2)
    }× |\n`
  )
}
process.stdout.write(`\n${rounds} rounds × ${pairs} pairs per candidate, interleaved; node ${process.version}\n`)
process.exit(0)
