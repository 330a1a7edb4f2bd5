// The `buddy` executable. runMain interrupts the program on SIGINT/SIGTERM, so the held sign-in's
// release (its cancel) runs before the process exits; the teardown then turns the program's exit
// into C8's codes, which the default teardown would not (an interrupted run would exit 0).
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect } from "effect"
import { cli } from "./commands.js"
import { exitCodeOf, isUnexpected } from "./exit.js"
import { terminalConsole } from "./output.js"
import * as words from "./words.js"

// Which signal stopped us, for 130 (Ctrl-C) or 143 (SIGTERM). `once`, so a second signal still
// ends the process the default way once runMain has removed its own handlers.
let signal: "SIGINT" | "SIGTERM" | undefined
process.once("SIGINT", () => (signal ??= "SIGINT"))
process.once("SIGTERM", () => (signal ??= "SIGTERM"))

const program = Effect.consoleWith((base) =>
  cli(process.argv).pipe(
    // @effect/cli has said what was wrong with the command line; add how it is used.
    Effect.tapError((error) => (ValidationError.isValidationError(error) ? Console.error(words.usage) : Effect.void)),
    Effect.tapErrorCause((cause) => (isUnexpected(cause) ? Console.error(words.unexpected) : Effect.void)),
    Effect.withConsole(terminalConsole(base))
  )
)

program.pipe(
  // Deep imports: the platform-node barrel would also load cluster, rpc and sql at every start.
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) => onExit(exitCodeOf(exit, signal))
  })
)
