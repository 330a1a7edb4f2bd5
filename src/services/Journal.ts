// Journal (C6): one JSON line per sign-in operation, to stdout by default. The line is built
// from closed values only, encoded through its Schema (so nothing else can slip in), and a
// journal that fails never fails the operation it records.
import { Context, Effect, Layer, Ref, Schema } from "effect"
import { JournalLine } from "../schema/journal.js"

export class Journal extends Context.Tag("buddy/Journal")<Journal, {
  readonly record: (entry: Omit<JournalLine, "scope">) => Effect.Effect<void>
}>() {}

const encodeLine = Schema.encode(Schema.parseJson(JournalLine))

/**
 * A journal handing each encoded line to `write`. Only the named members are copied, so nothing
 * else reaches the line; a value outside the closed unions fails the encoding and the line is
 * dropped; any failure or defect of the writer is swallowed.
 */
export const makeJournal = <E>(write: (line: string) => Effect.Effect<void, E>) =>
  Journal.of({
    record: ({ operation, outcome, reason }) =>
      encodeLine({ scope: "buddy-sign-in", operation, outcome, ...(reason === undefined ? {} : { reason }) }).pipe(
        Effect.flatMap(write),
        Effect.catchAllCause(() => Effect.void)
      )
  })

/** The journal on stdout: the Launchpad's stdout is its systemd journal. */
export const JournalLive = Layer.succeed(
  Journal,
  makeJournal((line) => Effect.try(() => void process.stdout.write(`${line}\n`)))
)

/** No journal: for the CLI's terminal, where the answer itself is the record. */
export const JournalSilent = Layer.succeed(Journal, Journal.of({ record: () => Effect.void }))

/** The lines a capturing journal kept, for tests. */
export class JournalLines extends Context.Tag("buddy/JournalLines")<JournalLines, Ref.Ref<ReadonlyArray<string>>>() {}

/** A journal that keeps its lines in `JournalLines`. */
export const JournalCapture = Layer.effect(JournalLines, Ref.make<ReadonlyArray<string>>([])).pipe(
  Layer.flatMap((context) => {
    const lines = Context.get(context, JournalLines)
    return Layer.merge(
      Layer.succeedContext(context),
      Layer.succeed(Journal, makeJournal((line) => Ref.update(lines, (all) => [...all, line])))
    )
  })
)
