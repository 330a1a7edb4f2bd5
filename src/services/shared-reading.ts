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

const idle = { next: Option.none(), running: false } as const

/**
 * Runs the waiting reading, then the one queued meanwhile, until none waits; then nothing runs. The
 * readings run on the fiber that drains, a daemon (what runs it, below, says).
 */
const drainOf = <A>(state: Ref.Ref<State<A>>, read: Effect.Effect<A>): Effect.Effect<void> => {
  const drain: Effect.Effect<void> = Effect.flatMap(
    Ref.modify(state, (current): [Option.Option<Deferred.Deferred<A>>, State<A>] =>
      Option.isSome(current.next)
        ? [current.next, { next: Option.none(), running: true }]
        : [Option.none(), idle]),
    Option.match({
      // Stryker disable next-line ArrowFunction: a drain that finds none waiting ends on a daemon fiber whose end no one awaits
      onNone: () => Effect.void,
      onSome: (waiting) =>
        read.pipe(
          Effect.exit,
          Effect.flatMap((exit) => Deferred.done(waiting, exit)),
          Effect.zipRight(Effect.suspend(() => drain))
        )
    })
  )
  return drain
}

/**
 * `read` shared as above. Readings run on daemon fibers: a caller that goes away stops waiting, the
 * reading goes on for the others. `read` must not fail (its failures are values, as Status's are).
 */
export const sharedReading = <A>(read: Effect.Effect<A>): Effect.Effect<Effect.Effect<A>> =>
  Effect.map(Ref.make<State<A>>(idle), (state) => {
    const drain = drainOf(state, read)
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

/**
 * `look` shared as above, for a look that changes nothing (D60): the caller that finds no look on
 * its way makes its own, on its own fiber, so a look alone forks nothing (a status read with nobody
 * to share with pays no fiber for the sharing). Callers that arrive while it runs wait for the next
 * look, which its maker starts on a daemon fiber as its own ends, however it ends: a maker that goes
 * away takes only its own look with it. `look` must not fail.
 */
export const sharedLook = <A>(look: Effect.Effect<A>): Effect.Effect<Effect.Effect<A>> =>
  Effect.map(Ref.make<State<A>>(idle), (state) => {
    const drain = drainOf(state, look)
    // The queued look, if any, is the drain's to run; with none, nothing runs any longer.
    const handOff = Effect.flatMap(
      Ref.modify(
        state,
        (current): [boolean, State<A>] => Option.isSome(current.next) ? [true, current] : [false, idle]
      ),
      (queued) => (queued ? Effect.asVoid(Effect.forkDaemon(drain)) : Effect.void)
    )
    return Effect.gen(function*() {
      const mine = yield* Deferred.make<A>()
      // Nothing runs: this caller makes the look. Something runs: it joins the look queued after it.
      const joined = yield* Ref.modify(
        state,
        (current): [Option.Option<Deferred.Deferred<A>>, State<A>] =>
          !current.running
            ? [Option.none(), { next: Option.none(), running: true }]
            : Option.match(current.next, {
              onSome: (waiting) => [Option.some(waiting), current],
              onNone: () => [Option.some(mine), { next: Option.some(mine), running: true }]
            })
      )
      return yield* Option.match(joined, {
        onNone: () => Effect.ensuring(look, handOff),
        onSome: Deferred.await
      })
    })
  })
