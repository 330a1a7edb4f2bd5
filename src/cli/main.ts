// The `buddy` executable. It runs the program on a fiber of its own and stops it on SIGINT,
// SIGTERM or SIGHUP by interrupting it, after recording which signal came: a command's release
// reads that (only Ctrl-C cancels a held sign-in, C4.9), and the exit code follows it (C8). A
// second signal ends the process at once. NodeRuntime.runMain handles neither SIGHUP nor the
// question of which signal it was, hence this small runner. A closed stdout or stderr ends a
// command at once, quietly, running no release, so it cancels nothing (C8, D27).
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Console, Effect, Layer, Option } from "effect"
import { onClosedPipe } from "./closed-pipe.js"
import { cli } from "./commands.js"
import { exitCodeOf, isUnexpected } from "./exit.js"
import { terminalConsole } from "./output.js"
import { signalExitCode, Stop, type StopSignal, stopSignals } from "./stop.js"
import * as words from "./words.js"

let received: StopSignal | undefined

const program = Effect.consoleWith((base) =>
  cli(process.argv).pipe(
    // @effect/cli has said what was wrong with the command line; add how it is used.
    Effect.tapError((error) => (ValidationError.isValidationError(error) ? Console.error(words.usage) : Effect.void)),
    Effect.tapErrorCause((cause) => (isUnexpected(cause) ? Console.error(words.unexpected) : Effect.void)),
    Effect.withConsole(terminalConsole(base))
  )
)

const fiber = program.pipe(
  // Deep imports: the platform-node barrel would also load cluster, rpc and sql at every start.
  Effect.provide(
    Layer.merge(NodeContext.layer, Layer.succeed(Stop, { signal: Effect.sync(() => Option.fromNullable(received)) }))
  ),
  Effect.runFork
)

// Whoever read our output has gone (`| head -1`): closed-pipe.ts says what follows.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", onClosedPipe)
}

// A fiber waiting on nothing but a Deferred holds no handle; this keeps the process alive until it ends.
const keepAlive = setInterval(() => {}, 2 ** 31 - 1)

for (const signal of stopSignals) {
  process.on(signal, () => {
    if (received !== undefined) process.exit(signalExitCode[signal])
    received = signal
    fiber.unsafeInterruptAsFork(fiber.id())
  })
}

fiber.addObserver((exit) => {
  clearInterval(keepAlive)
  const code = exitCodeOf(exit, received)
  // A clean end lets Node drain and exit by itself; anything else says its code explicitly, after
  // the turn in which a write to a reader that has gone reports it (then the exit is 141).
  if (received !== undefined || code !== 0) setImmediate(() => process.exit(code))
})
