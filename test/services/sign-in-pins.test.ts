// SignIn pinned where its other tests leave room: a start whose answer has no known shape and no
// session id is held without a holder, and nothing more is asked of the gateway for it (there is
// nothing to cancel, and the instance that just answered cannot prove its own worker gone).
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { SignIn } from "../../src/services/SignIn.js"
import { buddyLayer, journalLines } from "../support/buddy.js"

type Received = FakeGateway["received"][number]

/** Every request the fake gateway got, in order: the control verb or `METHOD path` (ids as `<id>`). */
const wire = (fake: FakeGateway) =>
  fake.received.map((entry: Received) =>
    entry.channel === "control"
      ? `control ${(JSON.parse(entry.line) as { readonly verb: string }).verb}`
      : `${entry.method} ${entry.path.replace(/\/(poll|sessions)\/[^/]+$/, "/$1/<id>")}`
  )

const START = "POST /api/providers/oauth/openai-codex/start"

describe("a start answered with no known shape and no session id", () => {
  it.live("is held without a holder and nothing is asked after the start: no identify, no ticket, no cancel", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      yield* Effect.gen(function*() {
        const signIn = yield* SignIn
        fake.fault("start", { kind: "reply", body: { nothing: "known" } }, 1)
        const error = yield* Effect.flip(signIn.start)
        expect({ _tag: error._tag, reason: error.reason }).toStrictEqual({ _tag: "Unavailable", reason: "malformed" })
        // The gate's identify, then the start's own identify and ticket: nothing after the start.
        expect(wire(fake)).toStrictEqual(["control identify", "control identify", "control session-ticket", START])
        expect(yield* signIn.current).toBe("pending")
        expect(yield* journalLines).toStrictEqual([
          JSON.stringify({ scope: "buddy-sign-in", operation: "start", outcome: "unavailable", reason: "malformed" })
        ])
      }).pipe(Effect.provide(buddyLayer(fake).pipe(Layer.orDie)))
    }).pipe(Effect.scoped))
})
