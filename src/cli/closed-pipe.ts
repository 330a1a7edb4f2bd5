// What a closed stdout or stderr does (C8, D27). A command's reader that went away
// (`buddy status | head -1`) ends the process at once: no stack, no word (there is nowhere to say
// it), no release, so a sign-in held here is left to Hermes as when the terminal closes. `buddy
// serve` keeps serving: its stdout is the journal, which drops lines nobody reads, and its answers
// go to its HTTP clients, not to the pipe.
import { Effect } from "effect"

/**
 * 141, what a shell reports for a process that SIGPIPE ended (as `yes | head -1` does), so a
 * script with `pipefail` sees a cut-short buddy as it sees any other command.
 */
export const closedPipeExitCode = 141

let serving = false

/** From now on this process serves: a closed stdout or stderr no longer ends it. */
export const keepServingWithoutReaders = Effect.sync(() => {
  serving = true
})

/** What main.ts does when writing to stdout or stderr fails. */
export const onClosedPipe = (): void => {
  if (!serving) process.exit(closedPipeExitCode)
}
