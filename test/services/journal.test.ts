// Journal (C6): the closed line, encoded through its Schema, and a journal that fails never
// fails the operation it records.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Journal, JournalCapture, makeJournal } from "../../src/services/Journal.js"
import { journalLines } from "../support/buddy.js"

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
})
