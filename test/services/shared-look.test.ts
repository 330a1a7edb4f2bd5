// A look shared by concurrent callers (D60, ./src/services/shared-reading.ts `sharedLook`): a caller
// alone makes its own look; callers arriving while one runs share the next, never one that began
// before them; the maker going away takes only its own look with it, and those waiting still get
// theirs.
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref, Supervisor } from "effect"
import { sharedLook } from "../../src/services/shared-reading.js"

/** A look that counts itself and, while `gate` is set, waits for it before answering its number. */
const gatedLook = Effect.gen(function*() {
  const begun = yield* Ref.make(0)
  const gate = yield* Ref.make<Deferred.Deferred<void> | undefined>(undefined)
  const look = Effect.gen(function*() {
    const number = yield* Ref.updateAndGet(begun, (n) => n + 1)
    const waiting = yield* Ref.get(gate)
    if (waiting !== undefined) yield* Deferred.await(waiting)
    return number
  })
  return { begun, gate, look }
})

/** Lets every fiber forked so far run until it waits. */
const settle = Effect.repeatN(Effect.yieldNow(), 10)

/** Until `n` looks have begun. */
const begunAt = (begun: Ref.Ref<number>, n: number) =>
  Effect.repeat(Ref.get(begun), { until: (count) => count >= n }).pipe(Effect.zipRight(Effect.yieldNow()))

/**
 * A shared look whose first look is made and waits at its gate: `maker` is the caller that made it,
 * `ungate` lets later looks through at once, and `first` lets the maker's own look answer.
 */
const makerWaiting = Effect.gen(function*() {
  const { begun, gate, look } = yield* gatedLook
  const shared = yield* sharedLook(look)
  const first = yield* Deferred.make<void>()
  yield* Ref.set(gate, first)
  const maker = yield* Effect.fork(shared)
  yield* begunAt(begun, 1)
  return { begun, shared, maker, first, ungate: Ref.set(gate, undefined) }
})

describe("sharedLook", () => {
  it.effect("one caller after another: each makes its own look", () =>
    Effect.gen(function*() {
      const { begun, look } = yield* gatedLook
      const shared = yield* sharedLook(look)
      // Supervised, every fiber the sharing starts is seen, a daemon included, until it ends.
      const supervisor = yield* Supervisor.track
      const alone = Effect.supervised(shared, supervisor)
      for (const expected of [1, 2, 3]) {
        expect(yield* alone).toBe(expected)
        // A caller alone left no fiber behind it: its look was made on its own.
        expect(yield* supervisor.value).toStrictEqual([])
      }
      expect(yield* Ref.get(begun)).toBe(3)
    }))

  it.effect("callers arriving while a look runs share the next one, which begins after them", () =>
    Effect.gen(function*() {
      const { begun, first, maker, shared, ungate } = yield* makerWaiting
      const joiners = yield* Effect.fork(
        Effect.all(Array.from({ length: 20 }, () => shared), { concurrency: "unbounded" })
      )
      yield* settle
      // The joiners wait: the look on its way began before they arrived.
      expect(yield* Ref.get(begun)).toBe(1)
      yield* ungate
      yield* Deferred.succeed(first, undefined)
      expect(yield* Fiber.join(maker)).toBe(1)
      expect(yield* Fiber.join(joiners)).toStrictEqual(Array.from({ length: 20 }, () => 2))
      expect(yield* Ref.get(begun)).toBe(2)
      // With nothing on its way, the next caller makes its own again.
      expect(yield* shared).toBe(3)
    }))

  it.effect("a maker that goes away takes only its own look: those waiting get the next", () =>
    Effect.gen(function*() {
      const { maker, shared, ungate } = yield* makerWaiting
      const joiner = yield* Effect.fork(shared)
      yield* settle
      yield* ungate
      yield* Fiber.interrupt(maker)
      expect(yield* Fiber.join(joiner)).toBe(2)
      expect(yield* shared).toBe(3)
    }))

  it.effect("a joiner that goes away stops waiting; the look goes on for the others", () =>
    Effect.gen(function*() {
      const { begun, first, maker, shared, ungate } = yield* makerWaiting
      const leaving = yield* Effect.fork(shared)
      const staying = yield* Effect.fork(shared)
      yield* settle
      yield* Fiber.interrupt(leaving)
      yield* ungate
      yield* Deferred.succeed(first, undefined)
      expect(yield* Fiber.join(maker)).toBe(1)
      expect(yield* Fiber.join(staying)).toBe(2)
      expect(yield* Ref.get(begun)).toBe(2)
    }))
})
