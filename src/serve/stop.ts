// How `buddy serve`'s host stops before serving: one line for the operator's stderr and the exit
// code (C8: 2 for what the command line or config file got wrong, 1 for a place it cannot use).
// The terminal's command says the line and exits with the code; the host itself prints nothing.
import { Data } from "effect"

export class ServeStop extends Data.TaggedError("ServeStop")<{
  readonly code: 1 | 2
  readonly line: string
}> {}
