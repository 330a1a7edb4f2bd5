// The layers of the real client, pointed at a fake gateway, for integration tests: real Unix
// socket, real loopback HTTP, the journal captured. Deadlines are short so fault tests run fast.
import { Duration, Effect, Fiber, Layer, Option, Ref, TestClock } from "effect"
import type { FakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HolderLockMemory } from "../../src/services/HolderLock.js"
import { JournalCapture, JournalLines } from "../../src/services/Journal.js"
import { buddyServices } from "../../src/services/layers.js"

export const testDeadlines = {
  control: Duration.millis(1000),
  api: Duration.millis(1000),
  start: Duration.millis(1500)
}

/**
 * SignIn, Status, HermesApi, Ticket, JournalLines for the fake gateway's home. The holder lock is
 * this process's alone (in memory): the machine-wide one is tested across processes.
 */
export const buddyLayer = (fake: FakeGateway) =>
  buddyServices(HolderLockMemory()).pipe(
    Layer.provideMerge(JournalCapture),
    Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home, deadlines: testDeadlines }))
  )

/** The journal lines written so far, parsed. */
export const journalLines = Effect.flatMap(JournalLines, Ref.get)

/** A real pause: the TestClock does not move for it, and the sockets need real time. */
export const realPause = (millis: number) =>
  Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

type Received = FakeGateway["received"][number]

/** Waits, in real time (so also on the TestClock), until the fake gateway has received a request that `matches`. */
export const untilReceived = (
  fake: { readonly received: ReadonlyArray<Received> },
  matches: (entry: Received) => boolean,
  what: string
) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < 5_000; waited += 10) {
      if (fake.received.some(matches)) return
      yield* realPause(10)
    }
    return yield* Effect.dieMessage(`the fake gateway never received ${what}`)
  })

/** An HTTP request to Hermes's API with this method and path, for `untilReceived`. */
export const httpRequest = (method: string, path: string) => (entry: Received) =>
  entry.channel === "http" && entry.method === method && entry.path === path

/**
 * Runs `effect` on the TestClock (inside `it.effect`) and, each time the fake gateway leaves one more
 * request unanswered (a timeout fault), moves the clock by `step` (by default the longest test
 * deadline, the start's): a deadline then passes at once instead of after a real wait. Every
 * deadline is armed before its request leaves, so it is running when the fake holds that request.
 */
export const pastDeadlines =
  (fake: { readonly stalled: number }, step: Duration.DurationInput = testDeadlines.start) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.gen(function*() {
      const fiber = yield* Effect.fork(effect)
      let seen = fake.stalled
      while (Option.isNone(yield* Fiber.poll(fiber))) {
        if (fake.stalled > seen) {
          seen = fake.stalled
          yield* TestClock.adjust(step)
        } else {
          yield* realPause(2)
        }
      }
      return yield* Fiber.join(fiber)
    })
