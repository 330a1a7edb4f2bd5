// SignIn (C4): one sign-in at a time, started only on a gateway that holds the cancellation
// contract, ended only on Hermes's word. Every operation is serialized and runs to its end on a
// daemon fiber, so a caller that goes away (a closed tab, Ctrl-C) cannot leave Hermes holding a
// session we forgot. Across processes, the holder lock (C4.1) keeps a second buddy from starting,
// cancelling or signing out beside this one. Every cancel polls first (C4.7), so an ending Hermes
// already reached is never reported as cancelled. Nothing is cancelled when the layer's scope
// closes (C4.9).
import { Context, Data, Effect, Fiber, identity, Layer, Option, Ref } from "effect"
import { randomBytes } from "node:crypto"
import type { JournalOperation, JournalOutcome } from "../schema/journal.js"
import type { BlockedReason, GatewayReason, SignInState } from "../schema/reasons.js"
import type { CallError, Instance } from "./CallError.js"
import type { GatewayError } from "./GatewayError.js"
import { Cancel, HermesApi, Poll, SignOut as SignOutAnswer, Start } from "./HermesApi.js"
import { type HolderBusy, HolderLock } from "./HolderLock.js"
import { Journal } from "./Journal.js"
import { sharedReading } from "./shared-reading.js"
import { Ticket } from "./Ticket.js"

/**
 * The operation changed nothing (C4.5, C6 409). `lock` is why the holder lock was not taken (C4.1:
 * another process holds it, or it is in the way), for the CLI's words; answers carry only the reason.
 */
export class Blocked extends Data.TaggedError("Blocked")<{
  readonly reason: BlockedReason
  readonly lock?: HolderBusy
}> {}
/** The gateway could not be reached or failed (C7, C6 503). */
export class Unavailable extends Data.TaggedError("Unavailable")<{ readonly reason: GatewayReason }> {}

export type Refusal = Blocked | Unavailable

/** The states a sign-in ends in. */
export type Ending = Exclude<SignInState, "none" | "pending">

/** What the holder sees of its sign-in: the code and page only while pending. */
export type SignInView =
  | { readonly state: "pending"; readonly code: string; readonly page: string }
  | { readonly state: Ending }

/** A started sign-in, for its holder. `pollInterval` (seconds) is Hermes's, for the CLI's loop. */
export interface Started {
  readonly state: "pending"
  readonly handle: string
  readonly code: string
  readonly page: string
  readonly pollInterval: number
}

/** The sign-in this process started on Hermes and that has not provably ended. */
type Held = Data.TaggedEnum<{
  None: {}
  /** Started and handed to a holder. The session id never leaves this module. */
  Holding: {
    readonly handle: string
    readonly sessionId: string
    readonly code: string
    readonly page: string
  }
  /** A start whose answer was lost or had no known shape: held without a holder (C4.6). */
  Orphan: { readonly sessionId: Option.Option<string>; readonly startedOn: Instance }
}>
const Held = Data.taggedEnum<Held>()

export class SignIn extends Context.Tag("buddy/SignIn")<SignIn, {
  readonly start: Effect.Effect<Started, Refusal>
  readonly poll: (handle: string) => Effect.Effect<SignInView, Refusal>
  /** `cancelled`, or the ending Hermes had already reached (C4.7): nothing is cancelled then. */
  readonly cancel: (handle: string) => Effect.Effect<{ readonly state: Ending }, Refusal>
  readonly signOut: Effect.Effect<{ readonly state: "signed-out" }, Refusal>
  /**
   * Whether a sign-in is held or a start is on its way to Hermes, for `GET /api/buddy` (C5): a held
   * sign-in is polled first when no operation is running, so a sign-in Hermes has ended reads
   * `none` (its ending kept for its handle); never waits behind an operation. `pending` too while
   * another layer or process holds the sign-in for this Hermes home, as `buddy status` says (D52):
   * only that it is held, never its handle, which is told to its holder alone (C4.3).
   */
  readonly current: Effect.Effect<"none" | "pending">
}>() {}

/** 32 lowercase hex chars from the operating system's CSPRNG (C4.3). */
const newHandle = Effect.sync(() => randomBytes(16).toString("hex"))

/** An instance that answered but did not prove an end: it changed nothing (C4.5). */
const blockedBy = (instance: Instance) =>
  new Blocked({ reason: instance.contract ? "sign-in-running" : "hermes-outdated" })

const unavailable = (error: GatewayError | CallError) => new Unavailable({ reason: error.reason })

/** Poll statuses that end a sign-in, and how (C4.4). */
const pollEndings = { approved: "signed-in", expired: "expired", denied: "refused", error: "failed" } as const

/** How many endings are kept for their handles: every recently displaced holder reads its own (C6). */
export const endingsKept = 64

/** `endings` with `handle`'s ending added last, the oldest dropped beyond `endingsKept`. */
const remember = (endings: ReadonlyMap<string, Ending>, handle: string, state: Ending) => {
  const next = new Map(endings)
  next.delete(handle)
  next.set(handle, state)
  for (const oldest of next.keys()) {
    if (next.size <= endingsKept) break
    next.delete(oldest)
  }
  return next
}

export const SignInLive = Layer.effect(
  SignIn,
  Effect.gen(function*() {
    const api = yield* HermesApi
    const tickets = yield* Ticket
    const journal = yield* Journal
    const lock = yield* HolderLock
    const held = yield* Ref.make<Held>(Held.None())
    /** The recent endings by handle, answered to their holders' polls (bounded: `endingsKept`). */
    const endings = yield* Ref.make<ReadonlyMap<string, Ending>>(new Map())
    const one = yield* Effect.makeSemaphore(1)
    /** Starts asked for and not yet ended: each may leave a session on Hermes before we hear of it (D14). */
    const starting = yield* Ref.make(0)

    /** Nothing held any more (the holder lock follows once the operation ends: `settleLock`). */
    const release = Ref.set(held, Held.None())

    /**
     * The holder lock follows what is held (C4.1), decided once an operation or a status read's
     * poll is over, still under the operations' permit: kept while a sign-in is held, let go when
     * none is. Never in the middle of one: a replacing start ends the old sign-in and holds the new
     * one without letting go in between.
     */
    const settleLock = Effect.flatMap(Ref.get(held), (after) => (after._tag === "None" ? lock.release : Effect.void))

    const endAs = (handle: string, state: Ending) =>
      Effect.zipRight(release, Ref.update(endings, (known) => remember(known, handle, state)))

    /**
     * Another buddy holds a sign-in for this Hermes, or the lock cannot be taken (its own reason, never
     * sign-in-running), or the home is missing or unsafe (what C1 says of it): nothing is sent to Hermes (C4.1).
     */
    const takeLock = lock.take.pipe(
      Effect.mapError((error): Refusal =>
        error._tag === "GatewayError"
          ? unavailable(error)
          : new Blocked({ reason: error.reason === "held" ? "sign-in-running" : "lock-unavailable", lock: error })
      )
    )

    const identify = tickets.identify.pipe(Effect.mapError(unavailable))

    /** A cancel ends a session only when confirmed for exactly it, or "not found" under the contract. */
    const cancelSession = (sessionId: string) =>
      api.cancel(sessionId).pipe(
        Effect.mapError((error) => (error._tag === "CallError" ? blockedBy(error.instance) : unavailable(error))),
        Effect.flatMap(({ instance, value }) =>
          Cancel.$match(value, {
            Cancelled: (
              confirmed
            ) => (confirmed.sessionId === sessionId ? Effect.void : Effect.fail(blockedBy(instance))),
            NotFound: () => (instance.contract ? Effect.void : Effect.fail(blockedBy(instance))),
            Unrecognized: () => Effect.fail(blockedBy(instance))
          })
        )
      )

    /**
     * Ends a held session, polling it first (C4.7): Hermes's cancel answers `{ok:true}` for a session
     * it already approved and saved, so an ending Hermes has reached is the ending and nothing is
     * cancelled; only a pending session (or one whose poll answer has no known shape) is cancelled.
     */
    const endSession = (sessionId: string): Effect.Effect<Ending, Refusal> =>
      api.poll(sessionId).pipe(
        Effect.mapError(unavailable),
        Effect.flatMap(({ instance, value }) =>
          Poll.$match(value, {
            Status: ({ status }): Effect.Effect<Ending, Refusal> =>
              status === "pending"
                ? Effect.as(cancelSession(sessionId), "cancelled" as const)
                : Effect.succeed(pollEndings[status]),
            NotHeld: () => (instance.contract ? Effect.succeed("lost" as const) : Effect.fail(blockedBy(instance))),
            Unrecognized: () => Effect.as(cancelSession(sessionId), "cancelled" as const)
          })
        )
      )

    /** Ends a holder's sign-in on Hermes's word, keeping the ending for its handle. */
    const endHolding = ({ handle, sessionId }: { readonly handle: string; readonly sessionId: string }) =>
      Effect.flatMap(endSession(sessionId), (ending) => Effect.as(endAs(handle, ending), ending))

    /** Ends the held sign-in, if any, with its ending for a holder, or fails and keeps it (C4.4–C4.7). */
    const endHeld: Effect.Effect<Option.Option<Ending>, Refusal> = Effect.flatMap(
      Ref.get(held),
      (current) =>
        Held.$match(current, {
          None: () => Effect.succeedNone,
          Holding: (holder) => Effect.map(endHolding(holder), Option.some),
          Orphan: ({ sessionId, startedOn }) =>
            Option.match(sessionId, {
              onSome: (known) => Effect.as(Effect.zipRight(endSession(known), release), Option.none()),
              // Unknown session: only a different instance holding the contract proves its worker gone.
              onNone: () =>
                Effect.flatMap(identify, (endpoint) =>
                  endpoint.instanceId !== startedOn.instanceId && endpoint.contract
                    ? Effect.as(release, Option.none())
                    : Effect.fail(blockedBy(endpoint)))
            })
        })
    )

    const startOnHermes = Effect.gen(function*() {
      const answer = yield* api.start.pipe(
        Effect.catchTags({
          ContractMissing: () => Effect.fail(new Blocked({ reason: "hermes-outdated" })),
          GatewayError: (error) => Effect.fail(unavailable(error)),
          CallError: (error) =>
            Effect.zipRight(
              error.mayHaveRun
                ? Ref.set(held, Held.Orphan({ sessionId: Option.none(), startedOn: error.instance }))
                : Effect.void,
              Effect.fail(unavailable(error))
            )
        })
      )
      return yield* Start.$match(answer.value, {
        Started: (started) =>
          Effect.gen(function*() {
            const handle = yield* newHandle
            yield* Ref.set(
              held,
              Held.Holding({ handle, sessionId: started.sessionId, code: started.code, page: started.page })
            )
            return {
              state: "pending" as const,
              handle,
              code: started.code,
              page: started.page,
              pollInterval: started.pollInterval
            }
          }),
        Unrecognized: ({ sessionId }) =>
          Effect.gen(function*() {
            yield* Ref.set(held, Held.Orphan({ sessionId, startedOn: answer.instance }))
            // A known session id is cancelled at once; it ends only when Hermes confirms (C4.6).
            if (Option.isSome(sessionId)) yield* Effect.ignore(endHeld)
            return yield* Effect.fail(new Unavailable({ reason: "malformed" }))
          })
      })
    })

    /** Runs `body` with the holder lock taken first: held elsewhere, nothing is sent to Hermes. */
    const locked = <A>(body: Effect.Effect<A, Refusal>) => Effect.zipRight(takeLock, body)

    const start = locked(Effect.gen(function*() {
      // The gate comes first, so a start that cannot happen does not end the held sign-in either.
      const endpoint = yield* identify
      if (!endpoint.contract) return yield* Effect.fail(new Blocked({ reason: "hermes-outdated" }))
      yield* endHeld
      return yield* startOnHermes
    }))

    const holding = (handle: string) =>
      Effect.flatMap(Ref.get(held), (current) =>
        // Stryker disable next-line ConditionalExpression: only a holding has a handle; the tag is for the type
        current._tag === "Holding" && current.handle === handle
          ? Effect.succeed(current)
          : Effect.fail(new Blocked({ reason: "sign-in-unknown" })))

    const poll = (handle: string) =>
      Effect.gen(function*() {
        const ended = (yield* Ref.get(endings)).get(handle)
        if (ended !== undefined) return { state: ended }
        const current = yield* holding(handle)
        const answer = yield* api.poll(current.sessionId).pipe(Effect.mapError(unavailable))
        return yield* Poll.$match(answer.value, {
          Status: ({ status }): Effect.Effect<SignInView, Refusal> =>
            status === "pending"
              ? Effect.succeed({ state: "pending", code: current.code, page: current.page })
              : Effect.as(endAs(handle, pollEndings[status]), { state: pollEndings[status] }),
          NotHeld: () =>
            answer.instance.contract
              ? Effect.as(endAs(handle, "lost"), { state: "lost" as const })
              : Effect.fail(blockedBy(answer.instance)),
          // An answer of no known shape ends the sign-in only once its cancel is confirmed (C4.7).
          Unrecognized: () =>
            Effect.zipRight(
              cancelSession(current.sessionId),
              Effect.as(endAs(handle, "failed"), { state: "failed" as const })
            )
        })
      })

    /**
     * The holder's cancel: `cancelled`, or the ending Hermes had already reached (C4.7). A sign-in
     * that ended already (by a poll, a status read or a replacement) answers its ending, asking
     * Hermes nothing.
     */
    const cancel = (handle: string): Effect.Effect<{ readonly state: Ending }, Refusal> =>
      Effect.flatMap(Ref.get(endings), (known) => {
        const ended = known.get(handle)
        if (ended !== undefined) return Effect.succeed({ state: ended })
        return holding(handle).pipe(
          Effect.flatMap(endHolding),
          Effect.map((state) => ({ state }))
        )
      })

    const signOut = locked(Effect.gen(function*() {
      // A held sign-in ends first; if it cannot, the provider DELETE is never sent (C4.8).
      yield* endHeld
      const answer = yield* api.signOut.pipe(Effect.mapError(unavailable))
      return SignOutAnswer.$match(answer.value, {
        SignedOut: () => ({ state: "signed-out" as const }),
        NothingStored: () => ({ state: "signed-out" as const })
      })
    }))

    /**
     * A status read's look at the held sign-in (C5): its poll, and an ending Hermes reached ends it
     * here too (kept for its handle). Anything else changes nothing: the holder's own poll or
     * cancel decides. Not journaled, like every status read.
     */
    const refreshHeld = Effect.flatMap(
      Ref.get(held),
      (current) =>
        current._tag !== "Holding" ? Effect.void : api.poll(current.sessionId).pipe(
          Effect.flatMap(({ instance, value }) =>
            Poll.$match(value, {
              Status: ({ status }) => (status === "pending" ? Effect.void : endAs(current.handle, pollEndings[status])),
              NotHeld: () => (instance.contract ? endAs(current.handle, "lost") : Effect.void),
              Unrecognized: () => Effect.void
            })
          ),
          Effect.ignore
        )
    )

    /**
     * The status reads' look at the held sign-in, shared like their card readings (C5): concurrent
     * reads share one poll that began after each arrived. It runs only when no operation does (that
     * operation will tell), on a daemon fiber, so a reader gone away cannot lose an ending Hermes gave.
     */
    const refreshShared = yield* sharedReading(
      Effect.asVoid(one.withPermitsIfAvailable(1)(Effect.ensuring(refreshHeld, settleLock)))
    )

    /** Whether anyone holds the holder lock for this home, looked at as `buddy status` looks (D46.1, D52). */
    const lockHeld = Effect.map(lock.holder, Option.isSome)

    /**
     * One operation at a time, journaled, run to its end on a daemon fiber: the asker may be
     * interrupted while it waits, the operation on Hermes and our record of it are not.
     */
    const operation = <A extends { readonly state: JournalOutcome }>(
      name: JournalOperation,
      body: Effect.Effect<A, Refusal>,
      /** What holds from the moment the operation is asked for, its wait for the others included. */
      whileAsked: (queued: Effect.Effect<A, Refusal>) => Effect.Effect<A, Refusal> = identity
    ): Effect.Effect<A, Refusal> =>
      whileAsked(one.withPermits(1)(Effect.ensuring(body, settleLock))).pipe(
        Effect.tapBoth({
          onSuccess: (result) => journal.record({ operation: name, outcome: result.state }),
          onFailure: (refusal) =>
            journal.record({
              operation: name,
              outcome: refusal._tag === "Blocked" ? "blocked" : "unavailable",
              reason: refusal.reason
            })
        }),
        Effect.forkDaemon,
        Effect.flatMap(Fiber.join)
      )

    return SignIn.of({
      // Counted from the moment it is asked for (queued behind another operation included) until it
      // ends, on the daemon fiber, so a caller that goes away cannot leave the count up.
      start: operation("start", start, (queued) =>
        Effect.acquireUseRelease(
          Ref.update(starting, (n) => n + 1),
          () => queued,
          () => Ref.update(starting, (n) => n - 1)
        )),
      poll: (handle) => operation("poll", poll(handle)),
      cancel: (handle) => operation("cancel", cancel(handle)),
      signOut: operation("sign-out", signOut),
      // Never "none" while a start is on its way: Hermes may already hold the session it asked for.
      // Only a sign-in held with its session has anything for the look to poll; with none held, or an
      // orphan, the look would poll nothing and settle a lock that every way out of holding has
      // settled already, so it is skipped: two fibers and a permit fewer per read (D47.12).
      current: Effect.flatMap(
        Ref.get(held),
        // Stryker disable next-line ConditionalExpression: the look run every time answers the same; only slower
        (now) => (now._tag === "Holding" ? refreshShared : Effect.void)
      ).pipe(
        Effect.zipRight(
          Effect.zipWith(
            Ref.get(held),
            Ref.get(starting),
            (current, inFlight) => current._tag === "None" && inFlight === 0
          )
        ),
        // Nothing of ours: another layer or process may hold one for this home (D52).
        Effect.flatMap((idle) => (idle ? lockHeld : Effect.succeed(true))),
        Effect.map((pending) => (pending ? "pending" : "none"))
      )
    })
  })
)
