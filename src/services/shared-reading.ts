// Fresh readings shared between concurrent callers (C5). A caller never takes a reading that began
// before it arrived: it joins the next reading, which starts when the one on its way (if any) ends.
// So a burst of any size costs Hermes at most two readings at a time (the one on its way and the
// next), and every answer is as fresh as a reading made for it alone.
import { Deferred, Effect, Option, Ref } from "effect"

interface State<A> {
  /** The reading that has not begun yet, joined by every caller that arrives before it begins. */
  readonly next: Option.Option<Deferred.Deferred<A>>
  /** Whether a reading is on its way. */
  readonly running: boolean
}

/**
 * `read` shared as above. Readings run on daemon fibers: a caller that goes away stops waiting, the
 * reading goes on for the others. `read` must not fail (its failures are values, as Status's are).
 */
export const sharedReading = <A>(read: Effect.Effect<A>): Effect.Effect<Effect.Effect<A>> =>
  Effect.map(Ref.make<State<A>>({ next: Option.none(), running: false }), (state) => {
    /** Runs the waiting reading, then the one queued meanwhile, until none waits. */
    const drain: Effect.Effect<void> = Effect.flatMap(
      Ref.modify(state, (current): [Option.Option<Deferred.Deferred<A>>, State<A>] =>
        Option.isSome(current.next)
          ? [current.next, { next: Option.none(), running: true }]
          : [Option.none(), { next: Option.none(), running: false }]),
      Option.match({
        onNone: () => Effect.void,
        onSome: (waiting) =>
          read.pipe(
            Effect.exit,
            Effect.flatMap((exit) => Deferred.done(waiting, exit)),
            Effect.zipRight(Effect.suspend(() => drain))
          )
      })
    )
    return Effect.gen(function*() {
      const mine = yield* Deferred.make<A>()
      const [joined, begin] = yield* Ref.modify(
        state,
        (current): [readonly [Deferred.Deferred<A>, boolean], State<A>] =>
          Option.match(current.next, {
            onSome: (waiting) => [[waiting, false], current],
            onNone: () => [[mine, !current.running], { next: Option.some(mine), running: current.running }]
          })
      )
      if (begin) yield* Effect.forkDaemon(drain)
      return yield* Deferred.await(joined)
    })
  })
