// Which signal asked the CLI to stop (C8, C4.9). Only Ctrl-C (SIGINT) is an explicit cancel of a
// sign-in held in the terminal; SIGTERM and SIGHUP stop the process and cancel nothing on Hermes.
// main.ts records the signal before it interrupts the program; commands read it in their release.
import { Context, Effect, Option } from "effect"

export type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP"

export const stopSignals: ReadonlyArray<StopSignal> = ["SIGINT", "SIGTERM", "SIGHUP"]

/** 128 + the signal's number, as shells report a process that a signal ended. */
export const signalExitCode: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 }

export class Stop extends Context.Reference<Stop>()("buddy/cli/Stop", {
  // Without a runner that records signals (a test calling the CLI in-process), no interruption is
  // an explicit cancel: C4.9 prefers leaving Hermes's worker free over a cancel nobody asked for.
  defaultValue: () => ({ signal: Effect.succeed(Option.none<StopSignal>()) })
}) {}

/** Whether the program was stopped by Ctrl-C, the one signal that cancels a held sign-in. */
export const stoppedByCtrlC = Effect.flatMap(Stop, (stop) => stop.signal).pipe(
  Effect.map(Option.contains<StopSignal>("SIGINT"))
)
