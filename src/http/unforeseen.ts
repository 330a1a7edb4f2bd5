// Anything unforeseen (C6 check 6): 500 operation-failed on the wire, never a stack or a message,
// and on Effect's logger the cause a developer needs to find it (D43). The cause is logged with its
// shape and its stack frames, but without a word of any message: a message could quote Hermes's
// text, a code, a ticket or a session id (C9), and no filter can know which words those are.
import { Cause, Effect, Predicate } from "effect"
import { failedAnswer } from "./answer.js"

const withheld = "(message withheld)"

/** What a failure or defect is called: its tag, its class's name, or its type. */
const nameOf = (value: unknown): string =>
  Predicate.hasProperty(value, "_tag") && typeof value._tag === "string"
    ? value._tag
    : value instanceof Error
    ? value.name
    : typeof value

/**
 * The stack's frames without its header. V8 writes the header as `String(error)` (name, message,
 * every line of it) when the error is made; when the stack does not begin with exactly that (the
 * message was changed since), no frame can be told from the message, and none is kept.
 */
const framesOf = (value: unknown): string => {
  if (!(value instanceof Error) || typeof value.stack !== "string") return ""
  const header = String(value)
  if (!value.stack.startsWith(`${header}\n`)) return ""
  return value.stack.slice(header.length)
}

/** `value` as an error with its name and frames, and no message. */
const squeezed = (value: unknown): Error => {
  const error = new Error(withheld)
  error.name = nameOf(value)
  error.stack = `${error.name}: ${withheld}${framesOf(value)}`
  return error
}

/** The cause with each failure and defect squeezed; its shape (sequence, parallel, interruption) kept. */
const squeezeCause = (cause: Cause.Cause<unknown>): Cause.Cause<never> =>
  Cause.match(cause, {
    onEmpty: Cause.empty,
    onFail: (error) => Cause.die(squeezed(error)),
    onDie: (defect) => Cause.die(squeezed(defect)),
    onInterrupt: Cause.interrupt,
    onSequential: Cause.sequential,
    onParallel: Cause.parallel
  })

/**
 * The answer to an unforeseen cause: a caller gone away is not an operation that failed (its
 * interruption goes on); anything else is logged, naming the operation when it is known, and
 * answered 500.
 */
export const unforeseen = (operation: string) => <E>(cause: Cause.Cause<E>) =>
  Cause.isInterruptedOnly(cause)
    ? Effect.failCause(cause)
    : Effect.zipRight(
      Effect.logError(
        `buddy: ${operation} failed unforeseen and was answered 500 operation-failed`,
        squeezeCause(cause)
      ),
      failedAnswer
    )
