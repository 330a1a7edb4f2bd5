// Status (C5): a pure function of one fresh provider-card reading, never cached; `unknown` with
// the closed C7 reason otherwise, `not-running` when no gateway runs.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { BuddyServicesLive } from "../../src/services/layers.js"
import { Status } from "../../src/services/Status.js"
import { buddyLayer, journalLines, pastDeadlines, testDeadlines } from "../support/buddy.js"

type Fault = Parameters<FakeGateway["fault"]>[1]

const readWith = (prepare: (fake: FakeGateway) => void, options: Parameters<typeof makeFakeGateway>[0] = {}) =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway(options)
    prepare(fake)
    // On the TestClock (it.effect): a request left unanswered passes its deadline at once.
    return yield* Effect.flatMap(Status, (status) => status.read).pipe(
      pastDeadlines(fake),
      Effect.provide(buddyLayer(fake).pipe(Layer.orDie))
    )
  }).pipe(Effect.scoped)

const providersWith = (card: unknown) => ({
  providers: [
    { id: "nous", status: { logged_in: true } },
    ...(card === undefined ? [] : [card])
  ]
})

describe("Buddy's state", () => {
  it.effect("works when the openai-codex card says logged_in true", () =>
    Effect.gen(function*() {
      expect(yield* readWith(() => {}, { signedIn: true })).toStrictEqual({ state: "works" })
    }))

  it.effect("waits when it says false", () =>
    Effect.gen(function*() {
      expect(yield* readWith(() => {})).toStrictEqual({ state: "waits" })
    }))

  it.effect("is read on a gateway without the cancellation contract too", () =>
    Effect.gen(function*() {
      expect(yield* readWith(() => {}, { contract: false, signedIn: true })).toStrictEqual({ state: "works" })
    }))

  it.live("is read fresh every time, never cached", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const status = yield* Effect.provide(Status, buddyLayer(fake).pipe(Layer.orDie))
      expect(yield* status.read).toStrictEqual({ state: "waits" })
      fake.setSignedIn(true)
      expect(yield* status.read).toStrictEqual({ state: "works" })
      expect(fake.received.filter((entry) => entry.channel === "http")).toHaveLength(2)
    }).pipe(Effect.scoped))

  it.live("is unknown with not-running when no gateway runs for the home", () =>
    Effect.gen(function*() {
      const home = yield* Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "buddy-empty-")))
      yield* Effect.addFinalizer(() => Effect.promise(() => fs.rm(home, { recursive: true, force: true })))
      const layer = BuddyServicesLive.pipe(
        Layer.provideMerge(JournalCapture),
        Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home, deadlines: testDeadlines }))
      )
      const read = yield* Effect.flatMap(Status, (status) => status.read).pipe(Effect.provide(layer))
      expect(read).toStrictEqual({ state: "unknown", reason: "not-running" })
    }).pipe(Effect.scoped))

  it.effect("is unknown with not-ready while the gateway starts or drains", () =>
    Effect.gen(function*() {
      expect(yield* readWith(() => {}, { state: "starting" })).toStrictEqual({ state: "unknown", reason: "not-ready" })
      expect(yield* readWith(() => {}, { state: "draining" })).toStrictEqual({ state: "unknown", reason: "not-ready" })
    }))

  const table: Array<[string, Fault, string]> = [
    ["a 500", { kind: "status", status: 500 }, "http-error"],
    ["a timeout", { kind: "timeout" }, "timeout"],
    ["a reset", { kind: "reset" }, "lost"],
    ["an oversized answer", { kind: "oversize" }, "too-large"],
    ["a refused ticket", { kind: "refuse-ticket" }, "refused"],
    ["no JSON", { kind: "raw", status: 200, body: "nope" }, "malformed"],
    ["no openai-codex card", { kind: "reply", body: providersWith(undefined) }, "malformed"],
    ["logged_in not a boolean", {
      kind: "reply",
      body: providersWith({ id: "openai-codex", status: { logged_in: "true" } })
    }, "malformed"],
    ["two openai-codex cards", {
      kind: "reply",
      body: {
        providers: [
          { id: "openai-codex", status: { logged_in: true } },
          { id: "openai-codex", status: { logged_in: false } }
        ]
      }
    }, "malformed"],
    [
      "a 503 not-ready answer",
      { kind: "status", status: 503, body: { error: "gateway_not_ready", state: "ready" } },
      "not-ready"
    ]
  ]
  for (const [name, fault, reason] of table) {
    it.effect(`is unknown with ${reason} on ${name}`, () =>
      Effect.gen(function*() {
        expect(yield* readWith((fake) => fake.fault("providers", fault))).toStrictEqual({ state: "unknown", reason })
      }))
  }

  it.effect("is unknown with incompatible for a gateway that does not know identify", () =>
    Effect.gen(function*() {
      const read = yield* readWith((fake) =>
        fake.fault("identify", {
          kind: "reply",
          line: "{\"ok\": false, \"error\": \"unknown verb: 'identify'\", \"protocol\": 1, \"id\": 1}\n"
        })
      )
      expect(read).toStrictEqual({ state: "unknown", reason: "incompatible" })
    }))

  it.effect("is unknown with refused when the gateway refuses to mint", () =>
    Effect.gen(function*() {
      expect(yield* readWith((fake) => fake.fault("session-ticket", { kind: "refuse-ticket" }))).toStrictEqual({
        state: "unknown",
        reason: "refused"
      })
    }))

  it.live("a status read is never journaled", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const lines = yield* Effect.flatMap(Status, (status) => status.read).pipe(
        Effect.zipRight(journalLines),
        Effect.provide(buddyLayer(fake).pipe(Layer.orDie))
      )
      expect(lines).toStrictEqual([])
    }).pipe(Effect.scoped))
})
