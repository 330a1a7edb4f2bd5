// Exit codes (C8), one meaning each: 0 done, 1 unavailable, unknown or failed, 2 usage errors only,
// 3 Buddy waits or the sign-in ended without signing him in, 4 blocked (another holder, an outdated
// Hermes, a lock that cannot be taken), 130 after Ctrl-C, 143 after SIGTERM, 129 after SIGHUP. A command prints its own answer first, then fails with `ExitCode`; the process's
// teardown turns the fiber's exit into the number with `exitCodeOf`, so the mapping is one pure
// function that tests call directly.
import * as ValidationError from "@effect/cli/ValidationError"
import { Cause, Data, Exit, Option } from "effect"
import { signalExitCode, type StopSignal } from "./stop.js"

/** The command has said everything it had to; the process ends with this code. */
export class ExitCode extends Data.TaggedError("ExitCode")<{ readonly code: 1 | 2 | 3 | 4 }> {}

export const interruptedCode = 130

/** The process exit code for how the program ended; `signal` is the one that interrupted it, if any. */
export const exitCodeOf = (exit: Exit.Exit<unknown, unknown>, signal?: StopSignal): number =>
  Exit.match(exit, {
    onSuccess: () => 0,
    onFailure: (cause) => {
      if (Cause.isInterruptedOnly(cause)) return signal === undefined ? interruptedCode : signalExitCode[signal]
      return Option.match(Cause.failureOption(cause), {
        onNone: () => 1,
        onSome: (failure) => {
          if (failure instanceof ExitCode) return failure.code
          return ValidationError.isValidationError(failure) ? 2 : 1
        }
      })
    }
  })

/** Whether the program ended in a way no command planned for (a defect or an untagged failure). */
export const isUnexpected = (cause: Cause.Cause<unknown>): boolean =>
  !Cause.isInterruptedOnly(cause) &&
  Option.match(Cause.failureOption(cause), {
    onNone: () => true,
    onSome: (failure) => !(failure instanceof ExitCode) && !ValidationError.isValidationError(failure)
  })
