// The contract's default deadlines (C2: 5 s a control exchange; C3: 5 s an API call, 15 s the start),
// pinned through what the real layers do with `BuddyConfig.forGateway({ hermesHome })` and nothing else:
// a peer that never answers fails the call with `timeout` at exactly its deadline and not a
// millisecond before. The TestClock is moved by hand (fork, adjust, join: effect-guide P11); the
// sockets are real, so each test waits in real time until the request has reached the fake gateway.
import { describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Layer, Option, TestClock } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { GatewayLive } from "../../src/services/layers.js"
import { realPause, untilReceived } from "../support/buddy.js"

type Received = FakeGateway["received"][number]
type Api = Effect.Effect.Success<typeof HermesApi>

/** The fiber's outcome once it has one, waiting in real time (a deadline that did not fire fails the test, not vitest's timer). */
const outcomeOf = <A, E>(fiber: Fiber.RuntimeFiber<A, E>, what: string) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < 2_000; waited += 10) {
      const exit = yield* Fiber.poll(fiber)
      if (Option.isSome(exit)) return exit.value
      yield* realPause(10)
    }
    return yield* Effect.dieMessage(`${what} was still pending at its deadline`)
  })

const controlVerb = (verb: string) => (entry: Received) =>
  entry.channel === "control" && (JSON.parse(entry.line) as { verb: string }).verb === verb
const httpRequest = (method: string, path: string) => (entry: Received) =>
  entry.channel === "http" && entry.method === method && entry.path === path

interface Case {
  readonly name: string
  readonly fault: Parameters<FakeGateway["fault"]>[0]
  readonly request: (entry: Received) => boolean
  readonly run: (api: Api) => Effect.Effect<unknown, unknown>
  readonly deadline: Duration.Duration
  readonly error: Record<string, unknown>
}

const cases: ReadonlyArray<Case> = [
  {
    name: "an identify that never answers times out at the 5 s control deadline",
    fault: "identify",
    request: controlVerb("identify"),
    run: (api) => api.providerCard,
    deadline: Duration.seconds(5),
    error: { _tag: "GatewayError", reason: "timeout" }
  },
  {
    name: "a session-ticket exchange that never answers times out at the 5 s control deadline",
    fault: "session-ticket",
    request: controlVerb("session-ticket"),
    run: (api) => api.providerCard,
    deadline: Duration.seconds(5),
    error: { _tag: "GatewayError", reason: "timeout" }
  },
  {
    name: "a providers GET that never answers times out at the 5 s API deadline",
    fault: "providers",
    request: httpRequest("GET", "/api/providers/oauth"),
    run: (api) => api.providerCard,
    deadline: Duration.seconds(5),
    error: { _tag: "CallError", reason: "timeout", mayHaveRun: true }
  },
  {
    name: "a start that never answers times out at the 15 s start deadline",
    fault: "start",
    request: httpRequest("POST", "/api/providers/oauth/openai-codex/start"),
    run: (api) => api.start,
    deadline: Duration.seconds(15),
    error: { _tag: "CallError", reason: "timeout", mayHaveRun: true }
  }
]

/**
 * Runs the case against a fresh fake whose faulted route never answers: the call must still be
 * pending 1 ms before its deadline and fail with `timeout` at it.
 */
const pinsDeadline = (
  spec: Case,
  caller: (effect: Effect.Effect<unknown, unknown>) => Effect.Effect<unknown, unknown>
) =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway()
    const layer = GatewayLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home })), Layer.orDie)
    const api = yield* Effect.provide(HermesApi, layer)
    fake.fault(spec.fault, { kind: "timeout" })
    const fiber = yield* Effect.fork(caller(spec.run(api)))
    yield* untilReceived(fake, spec.request, spec.fault)
    // Every earlier step answered at once, so the clock still reads 0: the deadline runs from here.
    yield* TestClock.adjust(Duration.subtract(spec.deadline, Duration.millis(1)))
    yield* realPause(50)
    expect(Option.isNone(yield* Fiber.poll(fiber)), "still pending 1 ms before the deadline").toBe(true)
    yield* TestClock.adjust(Duration.millis(1))
    const exit = yield* outcomeOf(fiber, spec.fault)
    expect(Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : exit).toStrictEqual(
      Option.some(expect.objectContaining(spec.error))
    )
  })

describe("the default deadlines", () => {
  for (const spec of cases) {
    it.scoped(`${spec.name}, not before`, () => pinsDeadline(spec, (effect) => effect))
  }
})

describe("the default deadlines hold for a caller that runs uninterruptibly (an HttpApp, effect-guide P15)", () => {
  for (const spec of cases) {
    it.scoped(`${spec.name}, not before, inside an uninterruptible region`, () =>
      pinsDeadline(spec, Effect.uninterruptible))
  }
})
