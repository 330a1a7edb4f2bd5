// Latency of a status read, as ratios measured in one run (this machine is shared and noisy, so
// absolute times mean little): the raw provider-card call (identify, mint, GET) through HermesApi,
// and the same read through the HTTP app (`GET /api/buddy` on a real server), both against the
// fake gateway. `npx tsx bench/status-latency.ts [runs]` (default 200 per kind, interleaved).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { Effect, Layer } from "effect"
import { request } from "node:http"
import { createServer } from "node:http"
import { makeFakeGateway } from "../fixtures/fake-gateway.js"
import { BuddyHttpApp, BuddyLive } from "../src/http/app.js"
import { BuddyConfig } from "../src/services/BuddyConfig.js"
import { HermesApi } from "../src/services/HermesApi.js"
import { JournalSilent } from "../src/services/Journal.js"
import { BuddyServicesLive } from "../src/services/layers.js"

const runs = Number(process.argv[2] ?? 200)

const get = (port: number) =>
  Effect.async<void>((resume) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/buddy", agent: false }, (res) => {
      res.resume()
      res.on("end", () => resume(Effect.void))
    })
    req.end()
  })

const timed = <E, R>(effect: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const start = process.hrtime.bigint()
    yield* effect
    return Number(process.hrtime.bigint() - start) / 1e6
  })

const median = (values: Array<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

const program = Effect.gen(function*() {
  const fake = yield* makeFakeGateway()
  const config = BuddyConfig.make({
    hermesHome: fake.home,
    launchpadOrigin: "https://launchpad.example",
    buddyOrigin: "https://buddy.example",
    environment: "hosted-personal",
    locale: "en"
  })
  const api = yield* Effect.provide(
    HermesApi,
    BuddyServicesLive.pipe(Layer.provide(JournalSilent), Layer.provide(BuddyConfig.layer(config)))
  )
  const context = yield* Layer.build(
    HttpServer.serve(BuddyHttpApp).pipe(
      Layer.provide(BuddyLive(config)),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 }))
    )
  )
  const address = (yield* Effect.provide(HttpServer.HttpServer, context)).address
  const port = address._tag === "TcpAddress" ? address.port : 0
  const raw: Array<number> = []
  const app: Array<number> = []
  for (let i = 0; i < 20; i++) yield* Effect.zip(api.providerCard, get(port)) // warm-up
  for (let i = 0; i < runs; i++) {
    raw.push(yield* timed(api.providerCard))
    app.push(yield* timed(get(port)))
  }
  const base = median(raw)
  console.log(`median of ${runs} runs each, and ratio to the raw provider-card call in this run`)
  console.log(`HermesApi.providerCard (identify, mint, GET)  ${base.toFixed(2)} ms  x1.00`)
  console.log(
    `GET /api/buddy through the HTTP app         ${median(app).toFixed(2)} ms  x${(median(app) / base).toFixed(2)}`
  )
}).pipe(Effect.scoped)

Effect.runPromise(program)
