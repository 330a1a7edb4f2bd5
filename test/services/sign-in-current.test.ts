// What SignIn says of itself to `GET /api/buddy` while a start is on its way to Hermes (D14): never
// "none" while Hermes may hold a session this process asked for, and "none" again once Hermes has
// answered that nothing was started. And while another layer or process holds the home's sign-in
// (D52): pending, from a look at the holder lock.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Ref, TestServices } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HolderLock, HolderLockLive, HolderLockMemory } from "../../src/services/HolderLock.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { buddyServices } from "../../src/services/layers.js"
import { SignIn } from "../../src/services/SignIn.js"
import { buddyLayer, httpRequest, testDeadlines, untilReceived } from "../support/buddy.js"

const START = "/api/providers/oauth/openai-codex/start"

/** Live waits: the fake answers over real sockets while the test reads SignIn. */
const untilStartReached = (fake: FakeGateway) => untilReceived(fake, httpRequest("POST", START), `POST ${START}`)

it.scopedLive("reads pending while the start is on its way, and none once Hermes answered it started nothing", () =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway()
    const context = yield* Layer.build(buddyLayer(fake).pipe(Layer.orDie))
    const signIn = Effect.provide(SignIn, context)
    const service = yield* signIn
    expect(yield* service.current).toBe("none")
    fake.fault("start", { kind: "late", ms: 400, then: { kind: "status", status: 500 } }, 1)
    const starting = yield* Effect.fork(service.start)
    yield* untilStartReached(fake)
    expect(yield* service.current).toBe("pending")
    const refused = yield* Fiber.join(starting).pipe(Effect.flip)
    expect(refused).toMatchObject({ _tag: "Unavailable", reason: "http-error" })
    expect(yield* service.current).toBe("none")
  }))

it.scopedLive("reads pending for a start queued behind another operation, before it reaches Hermes", () =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway({ signedIn: true })
    const context = yield* Layer.build(buddyLayer(fake).pipe(Layer.orDie))
    const service = yield* Effect.provide(SignIn, context)
    fake.fault("sign-out", { kind: "late", ms: 400 }, 1)
    const signingOut = yield* Effect.fork(service.signOut)
    yield* Effect.sleep("100 millis")
    const starting = yield* Effect.fork(service.start)
    yield* Effect.sleep("50 millis")
    expect(fake.received.some((entry) => entry.channel === "http" && entry.path.endsWith("/start"))).toBe(false)
    expect(yield* service.current).toBe("pending")
    yield* Fiber.join(signingOut)
    const started = yield* Fiber.join(starting)
    expect(started.state).toBe("pending")
    expect(yield* service.current).toBe("pending")
  }))

it.scopedLive("a caller that goes away while its start waits leaves the count right once the start ends", () =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway()
    const context = yield* Layer.build(buddyLayer(fake).pipe(Layer.orDie))
    const service = yield* Effect.provide(SignIn, context)
    fake.fault("start", { kind: "late", ms: 300, then: { kind: "status", status: 500 } }, 1)
    const starting = yield* Effect.fork(service.start)
    yield* untilStartReached(fake)
    yield* Fiber.interrupt(starting)
    expect(yield* service.current).toBe("pending")
    // The start goes on without its caller; once Hermes refused it, nothing is held or on its way.
    for (let waited = 0; waited < 3000 && (yield* service.current) === "pending"; waited += 20) {
      yield* Effect.sleep("20 millis")
    }
    expect(yield* service.current).toBe("none")
  }))

/** SignIn and Status on `fake` with the holder lock `lock` (the machine-wide one unless given). */
const layerOn = (fake: FakeGateway, lock: Layer.Layer<HolderLock, never, BuddyConfig> = HolderLockLive) =>
  buddyServices(lock).pipe(
    Layer.provideMerge(JournalCapture),
    Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home, deadlines: testDeadlines })),
    Layer.orDie
  )

describe("a sign-in another layer or process holds for the home (D52)", () => {
  it.scopedLive("reads pending at a second layer while the first holds one, and none once Hermes ended it", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const first = yield* Effect.provide(SignIn, yield* Layer.build(layerOn(fake)))
      const second = yield* Effect.provide(SignIn, yield* Layer.build(layerOn(fake)))
      expect(yield* second.current).toBe("none")
      const { handle } = yield* first.start
      fake.clearReceived()
      expect(yield* second.current).toBe("pending")
      // Looked at, not asked: the second polled nothing of the first's, and still holds nothing itself.
      expect(fake.received).toStrictEqual([])
      expect(yield* Effect.flip(second.poll(handle))).toMatchObject({ _tag: "Blocked", reason: "sign-in-unknown" })
      expect(fake.approve(fake.sessions()[0]!.id)).toBe(true)
      expect(yield* first.poll(handle)).toStrictEqual({ state: "signed-in" })
      expect(yield* second.current).toBe("none")
      expect(yield* first.current).toBe("none")
    }))

  it.effect("reads pending while the memory lock says another process holds the home, none when it lets go", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const others = yield* Ref.make<ReadonlyMap<string, number>>(new Map([[fake.home, 4711]]))
      const signIn = yield* Effect.provide(SignIn, yield* Layer.build(layerOn(fake, HolderLockMemory(others))))
      expect(yield* signIn.current).toBe("pending")
      yield* Ref.set(others, new Map([["/elsewhere", 4711]]))
      expect(yield* signIn.current).toBe("none")
    }).pipe(Effect.scoped, TestServices.provideLive))

  it.scopedLive("each read with nothing of its own looks at the lock; a sign-in of its own needs no look", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const looks = yield* Ref.make(0)
      const counting = Layer.effect(
        HolderLock,
        Effect.map(Effect.context<BuddyConfig>(), () =>
          HolderLock.of({
            take: Effect.void,
            release: Effect.void,
            holder: Effect.zipRight(
              Ref.update(looks, (n) => n + 1),
              Effect.as(Effect.sleep("20 millis"), Option.none())
            )
          }))
      )
      const signIn = yield* Effect.provide(SignIn, yield* Layer.build(layerOn(fake, counting)))
      for (let n = 0; n < 3; n += 1) expect(yield* signIn.current).toBe("none")
      expect(yield* Ref.get(looks)).toBe(3)
      // Something of its own held: no look at all.
      const { handle } = yield* signIn.start
      yield* Ref.set(looks, 0)
      expect(yield* signIn.current).toBe("pending")
      expect(yield* Ref.get(looks)).toBe(0)
      expect(handle).toMatch(/^[0-9a-f]{32}$/)
    }))
})
