// Journal (C6): one JSON line per sign-in operation, to stdout by default. The line is built
// from closed values only, encoded through its Schema (so nothing else can slip in), and a
// journal that fails never fails the operation it records, nor stops the server (D15).
import { Context, Effect, Layer, Ref, Schema } from "effect"
import type { Writable } from "node:stream"
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

/**
 * Streams we listen on: one listener per stream however many lines, kept as long as the stream
 * lives (a stream outlives any one layer: stdout is the process's).
 */
const guarded = new WeakSet<Writable>()

/**
 * A stream's failure arrives as its `'error'` event, after the write returned: unheard, Node
 * throws it and the process dies (`buddy serve | head -1`: EPIPE at the second line). Heard once
 * here, it is only heard: a stream that failed (errored or destroyed) takes no more writes, each
 * refused by Node itself with one more `'error'`, which this listener hears too.
 */
const guard = (stream: Writable) => {
  if (guarded.has(stream)) return
  guarded.add(stream)
  stream.on("error", () => {})
}

/**
 * A journal writing a line at a time to `stream` without awaiting the write's callback (stdout on
 * a Linux pipe or file is written synchronously anyway); once the stream failed, lines are dropped.
 * A write that throws (a stream of the caller's) is dropped too: `record` never fails its caller.
 */
export const streamJournal = (stream: Writable) =>
  makeJournal((line) =>
    Effect.sync(() => {
      guard(stream)
      stream.write(`${line}\n`)
    })
  )

/** The journal on stdout: the Launchpad's stdout is its systemd journal. */
export const JournalLive = Layer.sync(Journal, () => streamJournal(process.stdout))

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
