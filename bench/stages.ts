// `npm run bench:stages`: where one status read's time goes, stage by stage, each stage run as the
// read runs it and interleaved in one run against the gateway stand-in in its own process (ROUNDS,
// default 8; READS per round and kind, default 200). Beside each stage of buddy's, the same step
// done bare (no Effect, no checks), so each line reads as "what buddy adds here". p50 in µs and
// CPU in µs per run (this process, user + system, libuv's pool included). Two reads made of the
// same I/O with as little Effect as can run it (one Effect.async or promise per wait, no deadline,
// no bound, no Schema, no checks) give the floor of buddy's protocol itself: what the walk costs
// with nothing around it, and what Effect alone costs. Not a target: the profile behind the figures
// in docs/performance.md.
import { Effect, Either, Layer, ManagedRuntime, Option, Redacted, Schema } from "effect"
import * as fsp from "node:fs/promises"
import * as Net from "node:net"
import { join } from "node:path"
import { ProviderList } from "../src/schema/hermes.js"
import { decodeUtf8 } from "../src/schema/utf8.js"
import { BuddyConfig } from "../src/services/BuddyConfig.js"
import { type Deadline, withDeadline } from "../src/services/deadline.js"
import { underLimit } from "../src/services/ExchangeLimit.js"
import { locate } from "../src/services/gateway-path.js"
import { GatewaySocket, GatewaySocketLive } from "../src/services/GatewaySocket.js"
import { HermesApi } from "../src/services/HermesApi.js"
import { GatewayLive } from "../src/services/layers.js"
import { httpExchange } from "../src/services/loopback-http.js"
import { Ticket } from "../src/services/Ticket.js"
import { identifyOnceReader, mintOnce } from "./floor.mjs"
import { interleave } from "./interleave.js"
import { startStandin } from "./standin.js"

const rounds = Number(process.env.ROUNDS ?? 8)
const reads = Number(process.env.READS ?? 200)

const standin = await startStandin()
process.on("exit", () => standin.close())

const runtime = ManagedRuntime.make(
  GatewayLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: standin.home })))
)
const { api, tickets } = await runtime.runPromise(
  Effect.all({ api: HermesApi, tickets: Ticket })
)
const endpoint = await runtime.runPromise(tickets.identify)
// The walk as a reused read makes it (Ticket.recent walks only while its identify is under 10 s
// old, which a run of this length outlives: it is timed here through GatewaySocket itself).
const gateway = await Effect.runPromise(
  Effect.provide(
    GatewaySocket,
    GatewaySocketLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: standin.home })))
  )
)

const floorRead = identifyOnceReader(standin.socket, standin.home)
const walkingFloorRead = identifyOnceReader(standin.socket, standin.home, true)
const floorParams = { profile_id: endpoint.profileId, instance_id: endpoint.instanceId, purpose: "native-http" }
const noDeadline: Deadline = { onExpire: () => undefined }
const decodeUtf8Option = (bytes: Uint8Array) => Either.getRight(decodeUtf8(bytes))

// The minimal reads: the same three waits as a reused read, each one Effect.async or promise.
const mintLine = `${JSON.stringify({ protocol: 1, id: 1, verb: "session-ticket", params: floorParams })}\n`
const bareMint = Effect.async<string, Error>((resume) => {
  const socket = Net.createConnection({ path: standin.socket })
  let text = ""
  socket.setEncoding("utf8")
  socket.on("error", (error) => resume(Effect.fail(error)))
  socket.on("data", (chunk: string) => {
    text += chunk
    const end = text.indexOf("\n")
    if (end === -1) return
    socket.destroy()
    resume(Effect.succeed(JSON.parse(text.slice(0, end)).result.ticket))
  })
  socket.write(mintLine)
})
/** The walk's three calls, bare: in one wait, as C1's walk asks for them. */
const bareWalkCalls = () =>
  Promise.all([fsp.realpath(standin.home), fsp.lstat(standin.home), fsp.lstat(join(standin.home, "gateway.sock"))])
const bareWalk = Effect.promise(bareWalkCalls)
/** buddy's own GET of the provider list (the minimal read's too: no deadline unless given one). */
const getWith = (deadline: Deadline) => (ticket: Redacted.Redacted<string>) =>
  httpExchange({
    origin: endpoint.origin,
    method: "GET",
    path: "/api/providers/oauth",
    ticket,
    limit: 256 * 1024,
    deadline
  })
const bareGet = (ticket: string) =>
  getWith(noDeadline)(Redacted.make(ticket)).pipe(
    Effect.map((answer) => JSON.parse(Buffer.from(answer.body).toString("utf8")).providers.length)
  )
const minimalRead = Effect.flatMap(bareMint, bareGet)

// buddy's read built up a piece at a time, each with the one before it: what each piece costs
// where it runs, between the read's waits, rather than alone in a loop.
const mintGet = Effect.flatMap(tickets.mint(endpoint), getWith(noDeadline))
const withGetDeadline = Effect.flatMap(
  tickets.mint(endpoint),
  (ticket) => withDeadline(5_000, (d) => getWith(d)(ticket))
)
const bounded = underLimit(withGetDeadline)
const decodeList = Schema.decodeUnknownOption(Schema.parseJson(ProviderList))
const listDecoded = Effect.map(
  bounded,
  (answer) => Option.isSome(Option.flatMap(decodeUtf8Option(answer.body), decodeList))
)
const walk = locate(standin.home, noDeadline)

const kinds: Record<string, () => Promise<unknown>> = {
  "floor: identify-once read (mint + GET)": floorRead,
  "floor: the same after C1's three calls (walk + mint + GET)": walkingFloorRead,
  "buddy: providerCard (walk + mint + GET)": () => runtime.runPromise(api.providerCard),
  "minimal Effect: walk + mint + GET, no checks": () => runtime.runPromise(Effect.zipRight(bareWalk, minimalRead)),
  "minimal Effect: mint + GET, no checks": () => runtime.runPromise(minimalRead),
  "buddy: C1 walk (locate, one deadline)": () =>
    runtime.runPromise(withDeadline(5_000, (d) => locate(standin.home, d))),
  "buddy: C1 walk, no deadline": () => runtime.runPromise(walk),
  "bare: realpath + 2 lstat in one wait": bareWalkCalls,
  "buddy: mint (exchangeAt + Schema)": () => runtime.runPromise(tickets.mint(endpoint)),
  "floor: mint": () => mintOnce(standin.socket, floorParams),
  "buddy, built up: mint + GET": () => runtime.runPromise(mintGet),
  "… + the GET's deadline": () => runtime.runPromise(withGetDeadline),
  "… + the bound on exchanges": () => runtime.runPromise(bounded),
  "… + the list's decoding": () => runtime.runPromise(listDecoded),
  "… + the walk first (GatewaySocket.locate)": () => runtime.runPromise(Effect.zipRight(gateway.locate, listDecoded)),
  "effect: runPromise(Effect.void)": () => runtime.runPromise(Effect.void)
}
const figures = await interleave(kinds, rounds, reads)
process.stdout.write("| stage | p50 µs | CPU µs |\n|---|---|---|\n")
for (const [name, { cpu, p50 }] of Object.entries(figures)) {
  process.stdout.write(`| ${name} | ${(p50 * 1000).toFixed(0)} | ${cpu.toFixed(0)} |\n`)
}
process.stdout.write(`\n${rounds} rounds × ${reads} runs per kind, interleaved; node ${process.version}\n`)
process.exit(0)
