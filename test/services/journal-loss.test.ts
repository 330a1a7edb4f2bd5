// Journal lines a stream cannot take (src/services/Journal.ts, journal-loss.ts; issue 39, D58): a
// full disk (ENOSPC), a closed pipe (EPIPE), a destroyed stream, a write that throws. Each such
// line is lost and counted; the first loss is said once, with the failure's code and nothing of
// the line; the total is said when the journal's layer ends; the operation never fails.
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Layer } from "effect"
import { Writable } from "node:stream"
import { failureCode, losingWords, lossTally, lostWords } from "../../src/services/journal-loss.js"
import { Journal, journalOn, makeJournal } from "../../src/services/Journal.js"

const losing = (code: string) => `buddy: the journal could not be written (${code}); its lines are being lost\n`

/** A stream failing every write with `code`, as stdout on /dev/full (ENOSPC) or a pipe without a reader. */
const failing = (code: string, options: { readonly autoDestroy?: boolean } = {}) => {
  let writes = 0
  const target = new Writable({
    ...options,
    write(_chunk: Buffer, _encoding, done) {
      writes += 1
      done(Object.assign(new Error(`write ${code} {"scope":"buddy-sign-in"} secret-token`), { code }))
    }
  })
  return { target, writes: () => writes }
}

/** Lets the streams' deferred callbacks and events (a later tick) run. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))

/** `count` lines recorded on a journal over `target` in a layer that then ends; what was said, and the exits. */
const recordOn = (target: Writable, count: number) =>
  Effect.gen(function*() {
    const warned: Array<string> = []
    const exits = yield* Effect.scoped(
      Effect.gen(function*() {
        const journal = yield* Journal
        const exits: Array<string> = []
        for (let i = 0; i < count; i++) {
          exits.push((yield* Effect.exit(journal.record({ operation: "poll", outcome: "pending" })))._tag)
          yield* settle
        }
        return { exits, before: [...warned] }
      }).pipe(Effect.provide(journalOn(target, { limit: 64 * 1024, warn: (text) => warned.push(text) })))
    )
    return { warned, ...exits }
  })

describe("a journal whose stream cannot take its lines", () => {
  it.live("on a full disk: says so once at the first line lost, and how many at its end; every record succeeds", () =>
    Effect.gen(function*() {
      // Not destroyed, as stdout on a file is not: Node refuses each later write with the same error.
      const { target, writes } = failing("ENOSPC", { autoDestroy: false })
      const { before, exits, warned } = yield* recordOn(target, 6)
      expect(target.destroyed).toBe(false)
      expect(writes()).toBe(1)
      expect(exits).toStrictEqual(Array(6).fill("Success"))
      expect(before).toStrictEqual(["buddy: the journal could not be written (ENOSPC); its lines are being lost\n"])
      expect(warned).toStrictEqual([
        "buddy: the journal could not be written (ENOSPC); its lines are being lost\n",
        "buddy: 6 journal lines lost: the journal could not be written (ENOSPC)\n"
      ])
    }))

  it.live("closed: the first write's EPIPE is said, and the lines after, on a destroyed stream, are counted too", () =>
    Effect.gen(function*() {
      const { target, writes } = failing("EPIPE")
      const { warned } = yield* recordOn(target, 4)
      expect(target.destroyed).toBe(true)
      expect(writes()).toBe(1)
      expect(warned).toStrictEqual([
        losing("EPIPE"),
        "buddy: 4 journal lines lost: the journal could not be written (EPIPE)\n"
      ])
    }))

  it.live("one line lost is said as one line", () =>
    Effect.gen(function*() {
      const { warned } = yield* recordOn(failing("ENOSPC").target, 1)
      expect(warned).toStrictEqual([
        losing("ENOSPC"),
        "buddy: 1 journal line lost: the journal could not be written (ENOSPC)\n"
      ])
    }))

  it.live("a stream that was ended or destroyed without an error is closed", () =>
    Effect.gen(function*() {
      const target = new Writable({ write: (_chunk, _encoding, done) => done() })
      target.destroy()
      const { warned } = yield* recordOn(target, 3)
      expect(warned).toStrictEqual([
        losing("closed"),
        "buddy: 3 journal lines lost: the journal could not be written (closed)\n"
      ])
    }))

  it.live("a write that throws (a stream of the caller's) is lost with its code, and fails nothing", () =>
    Effect.gen(function*() {
      const target = new Writable()
      Object.defineProperty(target, "write", {
        value: () => {
          throw Object.assign(new Error("bad descriptor"), { code: "EBADF" })
        }
      })
      const { exits, warned } = yield* recordOn(target, 2)
      expect(exits).toStrictEqual(["Success", "Success"])
      expect(warned).toStrictEqual([
        losing("EBADF"),
        "buddy: 2 journal lines lost: the journal could not be written (EBADF)\n"
      ])
    }))

  it.live("a stream that takes its lines loses none and says nothing", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const target = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          written.push(chunk.toString("utf8"))
          done()
        }
      })
      const { warned } = yield* recordOn(target, 3)
      expect(written).toHaveLength(3)
      expect(warned).toStrictEqual([])
    }))

  it.live("a stream that fails after some lines counts only the lines it lost", () =>
    Effect.gen(function*() {
      let writes = 0
      const target = new Writable({
        autoDestroy: false,
        write(_chunk: Buffer, _encoding, done) {
          writes += 1
          done(writes > 2 ? Object.assign(new Error("no space"), { code: "ENOSPC" }) : null)
        }
      })
      const { warned } = yield* recordOn(target, 5)
      expect(warned).toStrictEqual([
        losing("ENOSPC"),
        "buddy: 3 journal lines lost: the journal could not be written (ENOSPC)\n"
      ])
    }))
})

describe("the words of a loss", () => {
  it("name the code of a system or Node error, closed without an error, and unknown for anything else", () => {
    expect(failureCode(Object.assign(new Error("x"), { code: "ENOSPC" }))).toBe("ENOSPC")
    expect(failureCode({ code: "ERR_STREAM_DESTROYED" })).toBe("ERR_STREAM_DESTROYED")
    expect(failureCode(undefined)).toBe("closed")
    expect(failureCode(null)).toBe("closed")
    expect(failureCode(new Error("ENOSPC"))).toBe("unknown")
    expect(failureCode("ENOSPC")).toBe("unknown")
    expect(failureCode({ code: 28 })).toBe("unknown")
    // A code is capitals, digits and underscores, at most 40: nothing an error's text could carry.
    expect(failureCode({ code: "ENOSPC secret" })).toBe("unknown")
    expect(failureCode({ code: "enospc" })).toBe("unknown")
    expect(failureCode({ code: "" })).toBe("unknown")
    expect(failureCode({ code: "1ENOSPC" })).toBe("unknown")
    expect(failureCode({ code: `E${"X".repeat(39)}` })).toBe(`E${"X".repeat(39)}`)
    expect(failureCode({ code: `E${"X".repeat(40)}` })).toBe("unknown")
  })

  it("are one line each, the count's noun agreeing with it", () => {
    expect(losingWords("EPIPE")).toBe("buddy: the journal could not be written (EPIPE); its lines are being lost\n")
    expect(lostWords(1, "EPIPE")).toBe("buddy: 1 journal line lost: the journal could not be written (EPIPE)\n")
    expect(lostWords(2, "EPIPE")).toBe("buddy: 2 journal lines lost: the journal could not be written (EPIPE)\n")
    expect(lostWords(0, "EPIPE")).toBe("buddy: 0 journal lines lost: the journal could not be written (EPIPE)\n")
  })

  it("count every loss, say the first failure's code once, and the total only when there was a loss", () => {
    const warned: Array<string> = []
    const tally = lossTally((text) => warned.push(text))
    tally.sayTotal()
    expect(warned).toStrictEqual([])
    expect(tally.lost()).toBe(0)
    tally.lose({ code: "ENOSPC" })
    tally.lose({ code: "EPIPE" })
    tally.lose(undefined)
    expect(tally.lost()).toBe(3)
    expect(warned).toStrictEqual([losing("ENOSPC")])
    tally.sayTotal()
    expect(warned).toStrictEqual([losing("ENOSPC"), lostWords(3, "ENOSPC")])
  })
})

describe("a journal's own writer that fails", () => {
  it.effect("hands the writer's failure or defect to `lost`, and fails nothing", () =>
    Effect.gen(function*() {
      const causes: Array<Cause.Cause<string>> = []
      const journal = makeJournal((line) => line.includes("sign-out") ? Effect.fail("disk full") : Effect.die("gone"), (
        cause
      ) => causes.push(cause))
      expect((yield* Effect.exit(journal.record({ operation: "sign-out", outcome: "signed-out" })))._tag).toBe(
        "Success"
      )
      expect((yield* Effect.exit(journal.record({ operation: "poll", outcome: "lost" })))._tag).toBe("Success")
      expect(causes.map(Cause.squash)).toStrictEqual(["disk full", "gone"])
    }))

  it.effect("never hands `lost` a line that was written, nor one refused before the writer", () =>
    Effect.gen(function*() {
      const causes: Array<unknown> = []
      const journal = makeJournal(() => Effect.void, (cause) => causes.push(cause))
      yield* journal.record({ operation: "poll", outcome: "pending" })
      const notClosed = JSON.parse("{\"operation\":\"poll\",\"outcome\":\"Hermes said no\"}") as Parameters<
        typeof journal.record
      >[0]
      yield* journal.record(notClosed)
      expect(causes).toStrictEqual([])
    }))

  it.effect("a `lost` that throws fails nothing either", () =>
    Effect.gen(function*() {
      const journal = makeJournal(() => Effect.fail("disk full"), () => {
        throw new Error("stderr gone too")
      })
      expect((yield* Effect.exit(journal.record({ operation: "start", outcome: "pending" })))._tag).toBe("Success")
    }))

  it.effect("Journal.layer passes `lost` on", () =>
    Effect.gen(function*() {
      const causes: Array<Cause.Cause<string>> = []
      yield* Effect.flatMap(Journal, (journal) => journal.record({ operation: "poll", outcome: "pending" })).pipe(
        Effect.provide(Layer.fresh(Journal.layer(() => Effect.fail("disk full"), (cause) => causes.push(cause))))
      )
      expect(causes.map(Cause.squash)).toStrictEqual(["disk full"])
    }))
})
