// Journal (C6): the closed line, encoded through its Schema, and a journal that fails never
// fails the operation it records, nor stops the process: a stream that breaks (EPIPE, a reader
// gone) is heard once and written to no more (D15), its lines lost and counted (D58, in detail:
// journal-loss.test.ts). The real closed stdout: test/cli/serve.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Writable } from "node:stream"
import { vi } from "vitest"
import {
  Journal,
  JournalCapture,
  journalOn,
  JournalSilent,
  makeJournal,
  stdoutBound,
  streamJournal
} from "../../src/services/Journal.js"
import { journalLines } from "../support/buddy.js"

/** A stream keeping what it is given, or failing every write as a pipe without a reader does. */
const stream = (fails: boolean) => {
  const written: Array<string> = []
  const target = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString("utf8"))
      done(fails ? Object.assign(new Error("write EPIPE"), { code: "EPIPE" }) : null)
    }
  })
  return { target, written }
}

/**
 * A stream whose reader has stopped: it takes what it is given and completes no write until
 * `resume`, as stdout into a pipe or a journal socket nobody drains.
 */
const stuck = () => {
  const written: Array<string> = []
  const held: Array<() => void> = []
  const target = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString("utf8"))
      held.push(() => done())
    }
  })
  const resume = () => {
    while (held.length > 0) held.shift()?.()
  }
  return { target, written, resume }
}

const pollLine = "{\"scope\":\"buddy-sign-in\",\"operation\":\"poll\",\"outcome\":\"pending\"}\n"

/** Lets the stream's deferred `'error'` event (Node emits it on a later tick) be emitted. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))

describe("the journal", () => {
  it.effect("writes one JSON line with the scope, operation, outcome and reason, in that order", () =>
    Effect.gen(function*() {
      const journal = yield* Journal
      yield* journal.record({ operation: "start", outcome: "pending" })
      yield* journal.record({ operation: "cancel", outcome: "blocked", reason: "sign-in-running" })
      expect(yield* journalLines).toStrictEqual([
        "{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}",
        "{\"scope\":\"buddy-sign-in\",\"operation\":\"cancel\",\"outcome\":\"blocked\",\"reason\":\"sign-in-running\"}"
      ])
    }).pipe(Effect.provide(JournalCapture)))

  it.effect("writes only the named members and drops a line whose values are not closed", () =>
    Effect.gen(function*() {
      const journal = yield* Journal
      const smuggled = { operation: "poll", outcome: "pending", code: "ABCD-EFGHK" } as const
      yield* journal.record(smuggled)
      const notClosed = JSON.parse("{\"operation\":\"poll\",\"outcome\":\"Hermes said no\"}") as Parameters<
        typeof journal.record
      >[0]
      yield* journal.record(notClosed)
      expect(yield* journalLines).toStrictEqual([
        "{\"scope\":\"buddy-sign-in\",\"operation\":\"poll\",\"outcome\":\"pending\"}"
      ])
    }).pipe(Effect.provide(JournalCapture)))

  it.effect("a failing writer never fails the caller", () =>
    Effect.gen(function*() {
      const journal = makeJournal(() => Effect.fail("disk full"))
      const result = yield* Effect.either(journal.record({ operation: "sign-out", outcome: "signed-out" }))
      expect(result._tag).toBe("Right")
      const dying = makeJournal(() => Effect.die("stdout closed"))
      const exit = yield* Effect.exit(dying.record({ operation: "sign-out", outcome: "signed-out" }))
      expect(exit._tag).toBe("Success")
    }))

  it.effect("the capturing layer is a Journal like any other", () =>
    Effect.gen(function*() {
      yield* Effect.flatMap(Journal, (journal) => journal.record({ operation: "poll", outcome: "lost" }))
      expect(yield* journalLines).toStrictEqual([
        "{\"scope\":\"buddy-sign-in\",\"operation\":\"poll\",\"outcome\":\"lost\"}"
      ])
    }).pipe(Effect.provide(Layer.fresh(JournalCapture))))

  it.live("a stream that breaks fails neither the caller nor the process, and gets no more lines", () =>
    Effect.gen(function*() {
      const { target, written } = stream(true)
      const journal = streamJournal(target)
      const exit = yield* Effect.exit(journal.record({ operation: "start", outcome: "pending" }))
      expect(exit._tag).toBe("Success")
      // The failure arrives as an 'error' event on a later tick; unheard, Node throws it and the
      // process dies. So someone must be listening before it comes.
      expect(target.listenerCount("error")).toBe(1)
      yield* settle
      expect(target.destroyed).toBe(true)
      yield* journal.record({ operation: "poll", outcome: "pending" })
      yield* journal.record({ operation: "cancel", outcome: "cancelled" })
      yield* settle
      expect(written).toStrictEqual(["{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}\n"])
    }))

  it.live("listens for a stream's failure once, however many lines and journals", () =>
    Effect.gen(function*() {
      const { target, written } = stream(false)
      const before = target.listenerCount("error")
      for (let i = 0; i < 20; i++) {
        yield* streamJournal(target).record({ operation: "poll", outcome: "pending" })
      }
      expect(target.listenerCount("error") - before).toBe(1)
      expect(written).toHaveLength(20)
    }))

  it.live("holds at most its bound for a stream that is not read, drops the rest and says how many once it drains", () =>
    Effect.gen(function*() {
      const { target, written, resume } = stuck()
      const warned: Array<string> = []
      const journal = streamJournal(target, { limit: 4 * 1024, warn: (text) => warned.push(text) })
      for (let i = 0; i < 3_000; i++) yield* journal.record({ operation: "poll", outcome: "pending" })
      // Lines are taken while less than the bound waits (the one being written counts).
      const kept = Math.ceil(4 * 1024 / pollLine.length)
      expect(target.writableLength).toBe(kept * pollLine.length)
      expect(target.writableLength).toBeLessThan(4 * 1024 + pollLine.length)
      expect(warned).toStrictEqual([])
      resume()
      yield* Effect.promise(() => new Promise((drained) => setImmediate(drained)))
      resume()
      yield* settle
      expect(written).toStrictEqual(Array(kept).fill(pollLine))
      expect(warned).toStrictEqual([`buddy: ${3_000 - kept} journal lines dropped: stdout was not being read\n`])
      // Read again, it takes lines again, and says nothing more.
      yield* journal.record({ operation: "poll", outcome: "pending" })
      yield* settle
      resume()
      expect(written).toHaveLength(kept + 1)
      expect(warned).toHaveLength(1)
    }))

  it.live("says what it dropped and has not said yet when its layer ends, once", () =>
    Effect.gen(function*() {
      const { target } = stuck()
      const warned: Array<string> = []
      yield* Effect.scoped(
        Effect.gen(function*() {
          const journal = yield* Journal
          for (let i = 0; i < 100; i++) yield* journal.record({ operation: "poll", outcome: "pending" })
          expect(warned).toStrictEqual([])
        }).pipe(Effect.provide(journalOn(target, { limit: 256, warn: (text) => warned.push(text) })))
      )
      const kept = Math.ceil(256 / pollLine.length)
      expect(warned).toStrictEqual([`buddy: ${100 - kept} journal lines dropped: stdout was not being read\n`])
    }))

  it.effect("the silent journal (the CLI's) takes every line and writes none", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.flatMap(Journal, (journal) => journal.record({ operation: "sign-out", outcome: "signed-out" }))
      )
      expect(exit._tag).toBe("Success")
    }).pipe(Effect.provide(JournalSilent)))

  it.live("one line dropped is said as one line, and the stream gets one drain listener however many are dropped", () =>
    Effect.gen(function*() {
      const { target, resume } = stuck()
      const warned: Array<string> = []
      // 17 lines (past the stream's own 1 KiB mark, so that it drains) and one more.
      const journal = streamJournal(target, { limit: 17 * pollLine.length, warn: (text) => warned.push(text) })
      const before = target.listenerCount("drain")
      for (let i = 0; i < 18; i++) yield* journal.record({ operation: "poll", outcome: "pending" })
      expect(target.listenerCount("drain") - before).toBe(1)
      resume()
      yield* settle
      expect(warned).toStrictEqual(["buddy: 1 journal line dropped: stdout was not being read\n"])
      const again = streamJournal(target, { limit: 0, warn: (text) => warned.push(text) })
      for (let i = 0; i < 20; i++) yield* again.record({ operation: "poll", outcome: "pending" })
      expect(target.listenerCount("drain") - before).toBe(1)
    }))

  it.live("says nothing at its layer's end when nothing was dropped, or all of it was said", () =>
    Effect.gen(function*() {
      const { target } = stuck()
      const warned: Array<string> = []
      yield* Effect.scoped(
        Effect.flatMap(Journal, (journal) => journal.record({ operation: "poll", outcome: "pending" })).pipe(
          Effect.provide(journalOn(target, { limit: 1024, warn: (text) => warned.push(text) }))
        )
      )
      expect(warned).toStrictEqual([])
    }))

  it.live("a stream that failed loses what comes after: said at the first, counted at the end, apart from the dropped", () =>
    Effect.gen(function*() {
      const { target } = stuck()
      const warned: Array<string> = []
      yield* Effect.scoped(
        Effect.gen(function*() {
          const journal = yield* Journal
          // Over the bound while it stalls: two lines taken, three dropped and counted.
          for (let i = 0; i < 5; i++) yield* journal.record({ operation: "poll", outcome: "pending" })
          target.destroy()
          yield* settle
          for (let i = 0; i < 5; i++) yield* journal.record({ operation: "poll", outcome: "pending" })
        }).pipe(
          Effect.provide(journalOn(target, { limit: 2 * pollLine.length - 1, warn: (text) => warned.push(text) }))
        )
      )
      // Destroyed without an error, it is "closed"; the lines dropped while it stalled are no loss of its own.
      expect(warned).toStrictEqual([
        "buddy: the journal could not be written (closed); its lines are being lost\n",
        "buddy: 3 journal lines dropped: stdout was not being read\n",
        "buddy: 5 journal lines lost: the journal could not be written (closed)\n"
      ])
    }))

  it("stdout's bound is 64 KiB, and its count goes to stderr", () => {
    expect(stdoutBound.limit).toBe(64 * 1024)
    const written: Array<string> = []
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    stdoutBound.warn("buddy: 2 journal lines dropped: stdout was not being read\n")
    write.mockRestore()
    expect(written).toStrictEqual(["buddy: 2 journal lines dropped: stdout was not being read\n"])
  })
})
