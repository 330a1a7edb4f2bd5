// The journal captured as lines (C6 "Journal"), for a Launchpad's tests: the capturing journal the
// project's own tests use (src/services/Journal.ts), and the lines it has kept.
import { Effect, Ref } from "effect"
import { JournalLines } from "../services/Journal.js"

export { JournalCapture, JournalLines } from "../services/Journal.js"

/** The journal lines written so far, oldest first: each one JSON object (`JournalLine`) as written. */
export const journalLines: Effect.Effect<ReadonlyArray<string>, never, JournalLines> = Effect.flatMap(
  JournalLines,
  Ref.get
)
