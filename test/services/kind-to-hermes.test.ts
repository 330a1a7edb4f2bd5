// A guest that is kind to Hermes (C5, issue 17): concurrent status reads share one provider reading
// that began after each of them arrived, never an older one (the gateway changes its state while a
// reading is on its way, and every answer still tells the state at its own arrival or later); the
// held sign-in's poll is shared the same way; and the exchanges in flight with Hermes are bounded,
// so a burst never spends Hermes's ticket capacity.
import { describe, expect, it } from "@effect/vitest"
import type { Context } from "effect"
import { Effect, Fiber, Layer, Option } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { exchangesInFlight } from "../../src/services/ExchangeLimit.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { SignIn } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import { buddyLayer, httpRequest, untilReceived } from "../support/buddy.js"

type Received = FakeGateway["received"][number]
const count = (fake: FakeGateway, matches: (entry: Received) => boolean) => fake.received.filter(matches).length
const providers = httpRequest("GET", "/api/providers/oauth")
const polls = (entry: Received) => entry.channel === "http" && entry.path.includes("/poll/")

const withServices = <A, E>(
  use: (
    fake: FakeGateway,
    services: {
      readonly status: Context.Tag.Service<typeof Status>
      readonly signIn: Context.Tag.Service<typeof SignIn>
      readonly api: Context.Tag.Service<typeof HermesApi>
    }
  ) => Effect.Effect<A, E>,
  options: Parameters<typeof makeFakeGateway>[0] = {}
) =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway(options)
    const services = yield* Effect.all({ status: Status, signIn: SignIn, api: HermesApi }).pipe(
      Effect.provide(buddyLayer(fake).pipe(Layer.orDie))
    )
    return yield* use(fake, services)
  }).pipe(Effect.scoped)

/** The provider card of a Buddy not signed in, as Hermes's route answers it. */
const notSignedIn = { providers: [{ id: "openai-codex", status: { logged_in: false } }] }

describe("shared fresh readings", () => {
  it.live("a read that arrives while a reading is on its way waits for the next one: it never gets an older state", () =>
    withServices((fake, { status }) =>
      Effect.gen(function*() {
        // The first reading takes Hermes's state as it was when it arrived (not signed in), and answers late.
        fake.fault("providers", { kind: "late", ms: 300, then: { kind: "reply", body: notSignedIn } }, 1)
        const first = yield* Effect.fork(status.read)
        yield* untilReceived(fake, providers, "the first reading")
        // Buddy is signed in while the first reading is on its way: a read arriving now must see it.
        fake.setSignedIn(true)
        const later = yield* Effect.forEach(Array.from({ length: 20 }), () => Effect.fork(status.read))
        expect(yield* Fiber.join(first)).toStrictEqual({ state: "waits" })
        for (const fiber of later) expect(yield* Fiber.join(fiber)).toStrictEqual({ state: "works" })
        // The twenty later reads shared one reading, which began after they all arrived.
        expect(count(fake, providers)).toBe(2)
      })
    ))

  it.live("reads arriving one by one during a reading all wait for one next reading, never one each", () =>
    withServices((fake, { status }) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "late", ms: 300 }, 1)
        const first = yield* Effect.fork(status.read)
        yield* untilReceived(fake, providers, "the first reading")
        fake.resetMaxInFlight()
        const later: Array<Fiber.RuntimeFiber<unknown>> = []
        for (let index = 0; index < 5; index++) {
          later.push(yield* Effect.fork(status.read))
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        }
        yield* Fiber.join(first)
        for (const fiber of later) yield* Fiber.join(fiber)
        expect(count(fake, providers)).toBe(2)
        // One reading at a time: the next began only when the first had ended.
        expect(fake.maxInFlight).toBe(1)
      })
    ))

  it.live("400 concurrent reads cost Hermes at most two readings", () =>
    withServices((fake, { status }) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "late", ms: 200 }, 1)
        const answers = yield* Effect.all(Array.from({ length: 400 }, () => status.read), { concurrency: "unbounded" })
        expect(answers.every((answer) => answer.state === "waits")).toBe(true)
        expect(count(fake, providers)).toBeLessThanOrEqual(2)
      })
    ))

  it.live("a reader gone away stops waiting; the reading goes on for the others", () =>
    withServices((fake, { status }) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "late", ms: 200 }, 1)
        const leaving = yield* Effect.fork(status.read)
        const staying = yield* Effect.fork(status.read)
        yield* untilReceived(fake, providers, "the reading")
        yield* Fiber.interrupt(leaving)
        expect(yield* Fiber.join(staying)).toStrictEqual({ state: "waits" })
        expect(count(fake, providers)).toBe(1)
      })
    ))

  it.live("concurrent status reads share the held sign-in's poll too", () =>
    withServices((fake, { signIn }) =>
      Effect.gen(function*() {
        yield* signIn.start
        fake.clearReceived()
        fake.fault("poll", { kind: "late", ms: 200 }, 1)
        const states = yield* Effect.all(Array.from({ length: 100 }, () => signIn.current), {
          concurrency: "unbounded"
        })
        expect(states.every((state) => state === "pending")).toBe(true)
        expect(count(fake, polls)).toBeLessThanOrEqual(2)
      })
    ))
})

describe("bounded exchanges", () => {
  it.live(`at most ${exchangesInFlight} exchanges are in flight with Hermes, however many callers, and every caller is answered`, () =>
    withServices((fake, { api }) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "late", ms: 100 }, 40)
        fake.resetMaxInFlight()
        const answers = yield* Effect.all(Array.from({ length: 40 }, () => Effect.either(api.providerCard)), {
          concurrency: "unbounded"
        })
        expect(answers.filter((answer) => answer._tag === "Right")).toHaveLength(40)
        expect(fake.maxInFlight).toBeLessThanOrEqual(exchangesInFlight)
        expect(fake.maxInFlight).toBeGreaterThan(1)
        // A ticket is minted only with its request's turn: never more outstanding than exchanges.
        expect(fake.ticketsMinted.length).toBe(40)
      })
    ))

  it.live("a start is not starved by a burst of reads", () =>
    withServices((fake, { signIn, status }) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "late", ms: 1000 }, 1)
        const reads = yield* Effect.fork(
          Effect.all(Array.from({ length: 200 }, () => status.read), { concurrency: "unbounded" })
        )
        yield* untilReceived(fake, providers, "the reading")
        expect((yield* signIn.start).state).toBe("pending")
        // The start did not queue behind the reads: they still wait for their reading.
        expect(Option.isNone(yield* Fiber.poll(reads))).toBe(true)
        yield* Fiber.join(reads)
      })
    ))
})
