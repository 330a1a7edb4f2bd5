// `buddy sign-in start`: the sign-in held in a terminal, the way a device login is. The code and
// page come first; then one line per change until Hermes ends the sign-in, polling at Hermes's own
// poll_interval. Ctrl-C interrupts the hold and its release is the explicit cancel C4.9 allows,
// confirmed by Hermes or explained; SIGTERM and SIGHUP stop it without cancelling anything. Nothing
// here ends a sign-in by a clock of its own: Hermes alone decides expiry (C4.7).
import * as Command from "@effect/cli/Command"
import { Duration, Effect, Either, Exit, Fiber, Option, Runtime } from "effect"
import type { Context } from "effect"
import { HolderLock } from "../services/HolderLock.js"
import type { Ending, Refusal, Started } from "../services/SignIn.js"
import { SignIn } from "../services/SignIn.js"
import { Status } from "../services/Status.js"
import { ExitCode } from "./exit.js"
import { canOffer, offerToOpen, type Opened } from "./open-page.js"
import { type Output, refuse } from "./output.js"
import { draw, mayDraw, qrLines } from "./qr-code.js"
import { commonOptions, withServices } from "./root.js"
import { stoppedByCtrlC } from "./stop.js"
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
 * Hermes's poll_interval, within what a terminal should do: its schema takes any positive number,
 * but `1e999` is Infinity (the hold would never ask again) and `1e-300` a busy loop. Hermes sends 5.
 */
export const pollSeconds = (interval: number): number =>
  Number.isFinite(interval) ? Math.min(Math.max(interval, 1), 60) : 5

/**
 * Polls until Hermes ends the sign-in. A poll Hermes does not answer keeps the hold, said on
 * stderr once per change of trouble (not once per poll), and once more when Hermes answers again.
 */
const hold = (output: Output, signIn: SignInService, started: Started): Effect.Effect<Ending, ExitCode> => {
  const interval = Duration.seconds(pollSeconds(started.pollInterval))
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

/**
 * Ctrl-C's cancel: the cancelled state when Hermes confirms it, or the ending Hermes had already
 * reached (the cancel polls first, C4.7: an approval is never reported as cancelled), otherwise
 * what happened and what it means.
 */
const cancelHeld = (output: Output, signIn: SignInService, handle: string) =>
  Effect.gen(function*() {
    const cancelled = yield* Effect.either(signIn.cancel(handle))
    if (Either.isRight(cancelled)) {
      const { state } = cancelled.right
      return yield* output.answer({ kind: "sign-in", state }, words.signInState[state])
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
    yield* explainUnconfirmed(output, refusal)
  })

/** Why the sign-in may still be running on Hermes, on stdout as a line with --json and in words on stderr. */
const explainUnconfirmed = (output: Output, refusal: Refusal) =>
  Effect.zipRight(
    output.emit(
      refusal._tag === "Blocked"
        ? { kind: "blocked", reason: refusal.reason }
        : { error: "buddy-unavailable", reason: refusal.reason }
    ),
    Effect.zipRight(
      output.note(
        refusal._tag === "Unavailable"
          ? words.cancelUnconfirmed.unavailable(refusal.reason)
          : refusal.reason === "hermes-outdated"
          ? words.cancelUnconfirmed["hermes-outdated"]
          : words.cancelUnconfirmed["sign-in-running"]
      ),
      output.note(words.mayStillComplete)
    )
  )

/**
 * The program was stopped while `started` (the start on SignIn's daemon fiber) may have left a
 * sign-in on Hermes. Ctrl-C is an explicit cancel: wait for the start's answer (its own deadlines
 * bound the wait) and cancel what it started. SIGTERM and SIGHUP cancel nothing (C4.9) and say so.
 */
const onStop = (output: Output, signIn: SignInService, started: Effect.Effect<Started, Refusal>) =>
  Effect.gen(function*() {
    if (!(yield* stoppedByCtrlC)) return yield* output.note(words.stoppedWithoutCancel)
    yield* output.note(words.cancelling)
    const start = yield* Effect.either(started)
    // A start Hermes refused left nothing to cancel, unless its answer was lost on the way: then
    // SignIn holds it without a holder, and only it can end it (C4.6).
    if (Either.isLeft(start)) {
      return yield* (yield* signIn.current) === "none"
        ? output.note(words.nothingStarted)
        : explainUnconfirmed(output, start.left)
    }
    yield* cancelHeld(output, signIn, start.right.handle)
  })

const start = Command.make(
  "start",
  commonOptions,
  (options) =>
    withServices(options, (output) =>
      Effect.gen(function*() {
        const signIn = yield* SignIn
        // A sign-in while Buddy already works replaces his sign-in once finished: say so first, as
        // `gh auth login` does when already logged in (issue 18.4). Only when this process may hold
        // the sign-in (the start takes the same lock again at no cost): a start that another holder
        // blocks reaches Hermes with nothing, not even this reading (D23). A reading that fails says nothing.
        const mayHold = yield* Effect.flatMap(HolderLock, (lock) => lock.take).pipe(
          Effect.as(true),
          Effect.orElseSucceed(() => false)
        )
        if (mayHold && (yield* Effect.flatMap(Status, (status) => status.read)).state === "works") {
          yield* output.note(words.alreadyWorks)
        }
        // The start runs to its end on SignIn's daemon fiber whatever happens here; waiting for it is
        // interruptible, so a SIGTERM stops the process at once instead of after Hermes's answer.
        const starting = yield* Effect.forkDaemon(signIn.start)
        const started = yield* Fiber.join(starting).pipe(
          Effect.onInterrupt(() => onStop(output, signIn, Fiber.join(starting))),
          Effect.catchAll((refusal) => refuse(output, refusal))
        )
        yield* Effect.addFinalizer((exit) =>
          Exit.isInterrupted(exit) ? onStop(output, signIn, Effect.succeed(started)) : Effect.void
        )
        yield* output.answer(
          { kind: "sign-in", state: "pending", code: started.code, page: started.page },
          words.openPage(started.page, started.code)
        )
        // The page as a QR code, for a phone, only where a person sees stdout and it fits (D46).
        const qr = qrLines(started.page)
        if (mayDraw(qr, output.json, process.stdout, process.env)) yield* draw(qr)
        yield* output.tell(words.waiting)
        if (canOffer(output.json)) {
          yield* output.tell(words.pressEnterToOpen)
          const said = yield* Effect.runtime<never>().pipe(
            Effect.map((runtime) => (opened: Opened) =>
              Runtime.runFork(runtime)(
                output.tell(opened === "opening" ? words.opening(started.page) : words.noBrowser)
              )
            )
          )
          const endOffer = offerToOpen(started.page, said)
          yield* Effect.addFinalizer(() => Effect.sync(endOffer))
        }
        const ending = yield* hold(output, signIn, started)
        yield* output.answer({ kind: "sign-in", state: ending }, words.signInState[ending])
        // Signed in is done; failed is a failure; every other ending is "ended without a sign-in" (C8).
        if (ending !== "signed-in") return yield* new ExitCode({ code: ending === "failed" ? 1 : 3 })
      }).pipe(Effect.scoped))
).pipe(
  Command.withDescription("Start a sign-in and hold it here until it ends; Ctrl-C cancels it.")
)

export const signIn = Command.make("sign-in").pipe(
  Command.withDescription("Sign Buddy in to ChatGPT with a code you enter in the browser."),
  Command.withSubcommands([start])
)
