// Journal (C6): one JSON line per sign-in operation, to stdout by default. The line is built
// from closed values only, encoded through its Schema (so nothing else can slip in), and a
// journal that fails never fails the operation it records, nor stops the server (D15).
import { Cause, Context, Effect, Layer, Ref, Schema } from "effect"
import type { Writable } from "node:stream"
import { JournalLine } from "../schema/journal.js"
import { lossTally } from "./journal-loss.js"

export class Journal extends Context.Tag("buddy/Journal")<Journal, {
  readonly record: (entry: Omit<JournalLine, "scope">) => Effect.Effect<void>
}>() {
  /** A journal handing each line to `write` (see `makeJournal`), as a layer: for `BuddyLive`'s journal. */
  static readonly layer = <E>(
    write: (line: string) => Effect.Effect<void, E>,
    lost?: (cause: Cause.Cause<E>) => void
  ): Layer.Layer<Journal> => Layer.succeed(Journal, makeJournal(write, lost))
}

const encodeLine = Schema.encode(Schema.parseJson(JournalLine))

/**
 * A journal handing each encoded line to `write`. Only the named members are copied, so nothing
 * else reaches the line; a value outside the closed unions fails the encoding and the line is
 * dropped; a failure or defect of the writer is handed to `lost` (to count it, D58) and goes no
 * further, nor does one of `lost` itself: `record` never fails.
 */
export const makeJournal = <E>(
  write: (line: string) => Effect.Effect<void, E>,
  lost: (cause: Cause.Cause<E>) => void = () => {}
) =>
  Journal.of({
    record: ({ operation, outcome, reason }) =>
      encodeLine({ scope: "buddy-sign-in", operation, outcome, ...(reason === undefined ? {} : { reason }) }).pipe(
        Effect.flatMap((line) => Effect.catchAllCause(write(line), (cause) => Effect.sync(() => lost(cause)))),
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

/** How much a journal's stream may hold unwritten, and where the count of dropped lines is said. */
export interface JournalBound {
  /** Bytes waiting in the stream (its `writableLength`) beyond which a line is dropped. */
  readonly limit: number
  readonly warn: (text: string) => void
}

/**
 * stdout's journal: 64 KiB waiting (some 600 lines, on top of what the kernel holds for a pipe or
 * the journal's socket) before lines are dropped; the count is said on stderr.
 */
export const stdoutBound: JournalBound = {
  limit: 64 * 1024,
  warn: (text) => {
    guard(process.stderr)
    process.stderr.write(text)
  }
}

const droppedLine = (dropped: number) =>
  `buddy: ${dropped} journal ${dropped === 1 ? "line" : "lines"} dropped: stdout was not being read\n`

/**
 * A journal writing a line at a time to `stream` without awaiting the write's callback. A stream
 * whose reader stops reading (a pipe or the journal's socket nobody drains) keeps what it is given
 * in memory: beyond `bound.limit` waiting bytes a line is dropped and counted instead, and the
 * count is said once the stream has drained, or by `sayDropped` (at the journal's end). A line the
 * stream cannot take (its write fails: a full disk, a closed pipe; the stream has failed; a write
 * that throws, a stream of the caller's) is lost: counted, the first loss said at once and the
 * total by `sayLost` (D58). `record` never fails its caller either way.
 */
const boundedJournal = (stream: Writable, bound: JournalBound) => {
  let dropped = 0
  const sayDropped = () => {
    if (dropped > 0) bound.warn(droppedLine(dropped))
    dropped = 0
  }
  const loss = lossTally(bound.warn)
  // A write's callback has the error for its line, or for a line still waiting when the stream failed.
  const written = (error: Error | null | undefined) => {
    if (error instanceof Error) loss.lose(error)
  }
  const journal = makeJournal(
    (line) =>
      Effect.sync(() => {
        guard(stream)
        // A stream that failed but lives on (autoDestroy off) would buffer the line for ever, unsaid.
        if (stream.destroyed || stream.errored !== null) return loss.lose(stream.errored)
        if (stream.writableLength < bound.limit) return stream.write(`${line}\n`, written)
        if (dropped === 0) stream.once("drain", sayDropped)
        dropped += 1
      }),
    (cause) => loss.lose(Cause.squash(cause))
  )
  return { journal, sayDropped: Effect.sync(sayDropped), sayLost: Effect.sync(loss.sayTotal) }
}

/** A journal on `stream`, bounded as stdout's unless told otherwise (see `boundedJournal`). */
export const streamJournal = (stream: Writable, bound: JournalBound = stdoutBound) =>
  boundedJournal(stream, bound).journal

/**
 * A journal on `stream` as a layer: lines dropped and not yet said are said when the layer ends
 * (`buddy serve` stopping, a host disposing of its handler), and then how many were lost, if any. `JournalLive` is stdout's: the
 * Launchpad's stdout is its systemd journal.
 */
export const journalOn = (stream: Writable, bound: JournalBound) =>
  Layer.scoped(
    Journal,
    Effect.gen(function*() {
      const { journal, sayDropped, sayLost } = boundedJournal(stream, bound)
      yield* Effect.addFinalizer(() => Effect.zipRight(sayDropped, sayLost))
      return journal
    })
  )

export const JournalLive = journalOn(process.stdout, stdoutBound)

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
