// What SignIn says of itself to `GET /api/buddy` while a start is on its way to Hermes (D14): never
// "none" while Hermes may hold a session this process asked for, and "none" again once Hermes has
// answered that nothing was started.
import { expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { SignIn } from "../../src/services/SignIn.js"
import { buddyLayer, httpRequest, untilReceived } from "../support/buddy.js"

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
