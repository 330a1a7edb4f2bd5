// `buddy sign-in start`: the sign-in held in a terminal, the way a device login is. The code and
// page come first; then one line per change until Hermes ends the sign-in, polling at Hermes's own
// poll_interval. The hold is a scoped resource: Ctrl-C or SIGTERM interrupts it and its release is
// the explicit cancel C4.9 allows, confirmed by Hermes or explained. Nothing here ends a sign-in
// by a clock of its own: Hermes alone decides expiry (C4.7).
import * as Command from "@effect/cli/Command"
import { Duration, Effect, Either, Exit, Option } from "effect"
import type { Context } from "effect"
import type { Ending, Refusal, Started } from "../services/SignIn.js"
import { SignIn } from "../services/SignIn.js"
import { ExitCode } from "./exit.js"
import { type Output, refuse } from "./output.js"
import { commonOptions, withServices } from "./root.js"
import * as words from "./words.js"

type SignInService = Context.Tag.Service<typeof SignIn>

/** Why a poll did not answer, in words; the sign-in stays held meanwhile (C4.4). */
const pollTrouble = (refusal: Refusal): string =>
  refusal._tag === "Unavailable"
    ? words.pollTrouble.unavailable(refusal.reason)
    : refusal.reason === "hermes-outdated"
    ? words.pollTrouble["hermes-outdated"]
    : words.pollTrouble["sign-in-running"]

/**
 * Polls until Hermes ends the sign-in. A poll Hermes does not answer keeps the hold, said on
 * stderr once per change of trouble (not once per poll), and once more when Hermes answers again.
 */
const hold = (output: Output, signIn: SignInService, started: Started): Effect.Effect<Ending, ExitCode> => {
  const interval = Duration.seconds(started.pollInterval)
  const step = (said: Option.Option<string>): Effect.Effect<Ending, ExitCode> =>
    Effect.sleep(interval).pipe(
      Effect.zipRight(Effect.either(signIn.poll(started.handle))),
      Effect.flatMap(Either.match({
        onRight: (view) =>
          view.state === "pending"
            ? Effect.zipRight(Option.isSome(said) ? output.note(words.pollRecovered) : Effect.void, step(Option.none()))
            : Effect.succeed(view.state),
        onLeft: (refusal) => {
          // Only another holder's handle is unknown; ours cannot be, but if it were there is nothing to hold.
          if (refusal._tag === "Blocked" && refusal.reason === "sign-in-unknown") return refuse(output, refusal)
          const trouble = pollTrouble(refusal)
          const say = Option.contains(said, trouble) ? Effect.void : output.note(`${trouble} ${words.stillWaiting}`)
          return Effect.zipRight(say, step(Option.some(trouble)))
        }
      }))
    )
  return step(Option.none())
}

/** Ctrl-C's cancel: the cancelled state when Hermes confirms it, otherwise what happened and what it means. */
const cancelOnInterrupt = (output: Output, signIn: SignInService, handle: string) =>
  Effect.gen(function*() {
    // Ended already (the interrupt came after the last line): nothing is held, nothing to cancel.
    if ((yield* signIn.current) === "none") return
    yield* output.note(words.cancelling)
    const cancelled = yield* Effect.either(signIn.cancel(handle))
    if (Either.isRight(cancelled)) {
      return yield* output.answer({ kind: "sign-in", state: "cancelled" }, words.signInState.cancelled)
    }
    const refusal = cancelled.left
    if (refusal._tag === "Blocked" && refusal.reason === "sign-in-unknown") {
      // The poll in flight when Ctrl-C came ended the sign-in first; its holder still reads that ending.
      const ended = yield* Effect.either(signIn.poll(handle))
      if (Either.isRight(ended) && ended.right.state !== "pending") {
        yield* output.answer({ kind: "sign-in", state: ended.right.state }, words.signInState[ended.right.state])
      }
      return
    }
    yield* output.emit(
      refusal._tag === "Blocked"
        ? { kind: "blocked", reason: refusal.reason }
        : { error: "buddy-unavailable", reason: refusal.reason }
    )
    yield* output.note(
      refusal._tag === "Unavailable"
        ? words.cancelUnconfirmed.unavailable(refusal.reason)
        : refusal.reason === "hermes-outdated"
        ? words.cancelUnconfirmed["hermes-outdated"]
        : words.cancelUnconfirmed["sign-in-running"]
    )
    yield* output.note(words.mayStillComplete)
  })

const start = Command.make(
  "start",
  commonOptions,
  (options) =>
    withServices(options, (output) =>
      Effect.gen(function*() {
        const signIn = yield* SignIn
        const started = yield* Effect.acquireRelease(
          signIn.start,
          (
            started,
            exit
          ) => (Exit.isInterrupted(exit) ? cancelOnInterrupt(output, signIn, started.handle) : Effect.void)
        ).pipe(Effect.catchAll((refusal) => refuse(output, refusal)))
        yield* output.answer(
          { kind: "sign-in", state: "pending", code: started.code, page: started.page },
          words.openPage(started.page, started.code)
        )
        yield* output.tell(words.waiting)
        const ending = yield* hold(output, signIn, started)
        yield* output.answer({ kind: "sign-in", state: ending }, words.signInState[ending])
        // Signed in is done; failed is a failure; every other ending is "ended without a sign-in" (C8).
        if (ending !== "signed-in") return yield* new ExitCode({ code: ending === "failed" ? 1 : 2 })
      }).pipe(Effect.scoped))
).pipe(
  Command.withDescription("Start a sign-in and hold it here until it ends; Ctrl-C cancels it.")
)

export const signIn = Command.make("sign-in").pipe(
  Command.withDescription("Sign Buddy in to ChatGPT with a code you enter in the browser."),
  Command.withSubcommands([start])
)
