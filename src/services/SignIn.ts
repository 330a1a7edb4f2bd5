// SignIn (C4): one sign-in at a time, started only on a gateway that holds the cancellation
// contract, ended only on Hermes's word. Every operation is serialized and runs to its end on a
// daemon fiber, so a caller that goes away (a closed tab, Ctrl-C) cannot leave Hermes holding a
// session we forgot. Nothing is cancelled when the layer's scope closes (C4.9).
import { Context, Data, Effect, Fiber, identity, Layer, Option, Ref } from "effect"
import { randomBytes } from "node:crypto"
import type { JournalOperation, JournalOutcome } from "../schema/journal.js"
import type { BlockedReason, GatewayReason, SignInState } from "../schema/reasons.js"
import type { CallError, Instance } from "./CallError.js"
import type { GatewayError } from "./GatewayError.js"
import { Cancel, HermesApi, Poll, SignOut as SignOutAnswer, Start } from "./HermesApi.js"
import { Journal } from "./Journal.js"
import { Ticket } from "./Ticket.js"

/** The operation changed nothing (C4.5, C6 409). */
export class Blocked extends Data.TaggedError("Blocked")<{ readonly reason: BlockedReason }> {}
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
  readonly cancel: (handle: string) => Effect.Effect<{ readonly state: "cancelled" }, Refusal>
  readonly signOut: Effect.Effect<{ readonly state: "signed-out" }, Refusal>
  /**
   * Whether a sign-in is held or a start is on its way to Hermes, for `GET /api/buddy`: a read,
   * never serialized behind an operation.
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

export const SignInLive = Layer.effect(
  SignIn,
  Effect.gen(function*() {
    const api = yield* HermesApi
    const tickets = yield* Ticket
    const journal = yield* Journal
    const held = yield* Ref.make<Held>(Held.None())
    /** The last ending, answered to its holder's poll until another sign-in ends. */
    const lastEnding = yield* Ref.make(Option.none<{ readonly handle: string; readonly state: Ending }>())
    const one = yield* Effect.makeSemaphore(1)
    /** Starts asked for and not yet ended: each may leave a session on Hermes before we hear of it (D14). */
    const starting = yield* Ref.make(0)

    const endAs = (handle: string, state: Ending) =>
      Effect.zipRight(Ref.set(held, Held.None()), Ref.set(lastEnding, Option.some({ handle, state })))

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

    /** Ends the held sign-in, if any, or fails and keeps it (C4.4–C4.6). */
    const endHeld: Effect.Effect<void, Refusal> = Effect.flatMap(Ref.get(held), (current) =>
      Held.$match(current, {
        None: () => Effect.void,
        Holding: ({ handle, sessionId }) => Effect.zipRight(cancelSession(sessionId), endAs(handle, "cancelled")),
        Orphan: ({ sessionId, startedOn }) =>
          Option.match(sessionId, {
            onSome: (known) => Effect.zipRight(cancelSession(known), Ref.set(held, Held.None())),
            // Unknown session: only a different instance holding the contract proves its worker gone.
            onNone: () =>
              Effect.flatMap(identify, (endpoint) =>
                endpoint.instanceId !== startedOn.instanceId && endpoint.contract
                  ? Ref.set(held, Held.None())
                  : Effect.fail(blockedBy(endpoint)))
          })
      }))

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

    const start = Effect.gen(function*() {
      // The gate comes first, so a start that cannot happen does not end the held sign-in either.
      const endpoint = yield* identify
      if (!endpoint.contract) return yield* Effect.fail(new Blocked({ reason: "hermes-outdated" }))
      yield* endHeld
      return yield* startOnHermes
    })

    const holding = (handle: string) =>
      Effect.flatMap(Ref.get(held), (current) =>
        current._tag === "Holding" && current.handle === handle
          ? Effect.succeed(current)
          : Effect.fail(new Blocked({ reason: "sign-in-unknown" })))

    const poll = (handle: string) =>
      Effect.gen(function*() {
        const ended = yield* Ref.get(lastEnding)
        if (Option.isSome(ended) && ended.value.handle === handle) return { state: ended.value.state }
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

    const cancel = (handle: string) =>
      Effect.zipRight(holding(handle), Effect.as(endHeld, { state: "cancelled" as const }))

    const signOut = Effect.gen(function*() {
      // A held sign-in ends first; if it cannot, the provider DELETE is never sent (C4.8).
      yield* endHeld
      const answer = yield* api.signOut.pipe(Effect.mapError(unavailable))
      return SignOutAnswer.$match(answer.value, {
        SignedOut: () => ({ state: "signed-out" as const }),
        NothingStored: () => ({ state: "signed-out" as const })
      })
    })

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
      whileAsked(one.withPermits(1)(body)).pipe(
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
      current: Effect.zipWith(
        Ref.get(held),
        Ref.get(starting),
        (current, inFlight) => (current._tag === "None" && inFlight === 0 ? "none" : "pending")
      )
    })
  })
)
