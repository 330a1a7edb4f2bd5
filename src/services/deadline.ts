// A deadline armed once, where an exchange begins, and heard where its I/O waits: one timer per
// exchange instead of a sleeping fiber raced against the work (D25). Time is the fiber's own
// Clock: on the live clock a plain timer, as the clock's own sleep would arm; on any other clock
// (the TestClock) that clock's own sleep, so a test moves the deadline past by hand.
import { Clock, Context, DefaultServices, Duration, Effect } from "effect"

/** What an exchange waits on hears the deadline through this; an exchange waits for one thing at a time. */
export interface Deadline {
  /**
   * Calls `expire` once the time is up, at once if it already is. Each call replaces the listener
   * before it: the fs call, then the socket, each listens while it is the thing waited for.
   */
  readonly onExpire: (expire: () => void) => void
}

/** A deadline that never passes: for an exchange whose caller bounds it some other way (and tests). */
export const noDeadline: Deadline = { onExpire: () => undefined }

const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/** The longest delay a Node timer takes; a longer one would fire at once, so it is never armed (as Effect's own clock). */
const longestTimer = 2 ** 31 - 1

/** Runs `task` after `duration` on `clock`; the returned function disarms it. */
const schedule = (clock: Clock.Clock, duration: Duration.Duration, task: () => void): () => void => {
  // Stryker disable next-line ConditionalExpression: the clock's own sleep keeps the same time on the live clock too; the timer is only cheaper (D25.1)
  if (clock !== liveClock) {
    const cancel = Effect.runCallback(Effect.andThen(clock.sleep(duration), Effect.sync(task)))
    return () => cancel()
  }
  const millis = Duration.toMillis(duration)
  // Stryker disable next-line EqualityOperator: differs for a deadline of exactly 2^31-1 ms (24.8 days) only, which no test waits for
  if (!(millis <= longestTimer)) return () => undefined
  const timer = setTimeout(task, millis)
  return () => clearTimeout(timer)
}

/**
 * Runs `use` with a deadline `duration` from now on the fiber's clock, disarmed when `use` ends
 * however it ends. The deadline ends nothing by itself: what waits on it settles its own I/O.
 */
export const withDeadline = <A, E, R>(
  duration: Duration.DurationInput,
  use: (deadline: Deadline) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.clockWith((clock) =>
    Effect.suspend(() => {
      let expired = false
      let listener: (() => void) | undefined
      const disarm = schedule(clock, Duration.decode(duration), () => {
        expired = true
        listener?.()
      })
      const deadline: Deadline = {
        onExpire: (expire) => {
          listener = expire
          if (expired) expire()
        }
      }
      return Effect.ensuring(use(deadline), Effect.sync(disarm))
    })
  )

/**
 * Waits for a promise no longer than the deadline: it fails with `onFailure` of its rejection, or
 * with `onExpired()` when the deadline passes first. Only the wait ends; the work behind the
 * promise (a filesystem call in libuv's pool) cannot be stopped and runs to its end unheard.
 */
export const awaitBefore = <A, E>(
  deadline: Deadline,
  run: () => Promise<A>,
  onFailure: (cause: unknown) => E,
  onExpired: () => E
): Effect.Effect<A, E> =>
  Effect.async<A, E>((resume) => {
    // Effect takes the first resume only; the flag keeps the deadline from running a call it already ended.
    let settled = false
    const settle = (outcome: Effect.Effect<A, E>) => {
      // Stryker disable next-line ConditionalExpression: Effect takes an async's first resume only; the flag spares building a second outcome
      if (settled) return
      settled = true
      resume(outcome)
    }
    deadline.onExpire(() => settle(Effect.fail(onExpired())))
    if (settled) return
    // A synchronous throw becomes a rejection, as with Effect.tryPromise. An interrupted wait needs
    // no canceller: Effect hears no resume after it.
    void new Promise<A>((resolve) => resolve(run())).then(
      (value) => settle(Effect.succeed(value)),
      (cause: unknown) => settle(Effect.fail(onFailure(cause)))
    )
  })
