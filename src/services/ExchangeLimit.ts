// How many exchanges one process has in flight with Hermes (C5): a burst of callers queues here
// instead of spending Hermes's ticket capacity (1 024 outstanding tickets, shared with every other
// client of the gateway) or its listener's backlog. One per process, whatever runs the layers (the
// HTTP app, the CLI, two apps mounted in one Launchpad): the semaphore is the Reference's default,
// made once. docs/decisions.md D24 says why 8.
import { Context, Effect } from "effect"

/** Exchanges in flight at most: an identify, or a ticketed call (its mint and its request together). */
export const exchangesInFlight = 8

export class ExchangeLimit extends Context.Reference<ExchangeLimit>()("buddy/ExchangeLimit", {
  defaultValue: () => ({ semaphore: Effect.unsafeMakeSemaphore(exchangesInFlight) })
}) {}

/**
 * Runs one exchange under the limit. The wait for a turn is outside the exchange's own deadline,
 * which starts when it does: a queued caller is late, never timed out by the queue.
 */
export const underLimit = <A, E, R>(exchange: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(ExchangeLimit, ({ semaphore }) => semaphore.withPermits(1)(exchange))
