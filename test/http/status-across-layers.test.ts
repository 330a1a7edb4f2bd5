// GET /api/buddy while the sign-in for the Hermes home is held elsewhere (D52): by another BuddyLive
// layer in this process, or by another buddy process. The answer says `signIn: pending`, as `buddy
// status` says it (D46), and never the holder's handle or code; what is not this app's to hold stays
// refused (C4.1), and nothing of the holder's is asked of Hermes.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { spawnBuddy } from "../cli/support/buddy-process.js"
import { fakeGateway } from "../cli/support/cleanup.js"
import { CODE as FAST_CODE, fastStart } from "../cli/support/fast-start.js"
import { HERMES_CARD, hermesHttp } from "./support/fake.js"
import { CODE, get, handleBody, hostedConfig, POLL, post, serve, START, STATUS } from "./support/server.js"

const buddyAnswer = (state: string, signIn: string) =>
  JSON.stringify({ kind: "buddy", state, signIn: { state: signIn }, locale: "cs" })

describe("GET /api/buddy while the home's sign-in is held elsewhere (D52)", () => {
  it.scopedLive("another layer's: pending, never its handle or code, and none once Hermes ended it", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const holder = yield* serve(hostedConfig(fake.home))
      const other = yield* serve(hostedConfig(fake.home))
      expect((yield* get(other.port, STATUS)).body).toBe(buddyAnswer("waits", "none"))

      const started = yield* post(holder.port, START, "{}")
      expect(started.status).toBe(200)
      const { handle } = JSON.parse(started.body) as { readonly handle: string }
      fake.clearReceived()
      const seen = yield* get(other.port, STATUS)
      expect([seen.status, seen.body]).toStrictEqual([200, buddyAnswer("waits", "pending")])
      expect(seen.body).not.toContain(handle)
      expect(seen.body).not.toContain(CODE)
      // The other app read the card only: the holder's session was neither polled nor cancelled by it.
      expect(hermesHttp(fake)).toStrictEqual([HERMES_CARD])
      // The holder's own reads say the same.
      expect((yield* get(holder.port, STATUS)).body).toBe(buddyAnswer("waits", "pending"))

      // Not the other's to start or to poll: refused, and Hermes saw no second start.
      fake.clearReceived()
      const blocked = yield* post(other.port, START, "{}")
      expect([blocked.status, blocked.body]).toStrictEqual([
        409,
        "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}"
      ])
      const foreign = yield* post(other.port, POLL, handleBody(handle))
      expect([foreign.status, foreign.body]).toStrictEqual([
        409,
        "{\"kind\":\"blocked\",\"reason\":\"sign-in-unknown\"}"
      ])
      expect(hermesHttp(fake)).toStrictEqual([])

      expect(fake.approve(fake.sessions()[0]!.id)).toBe(true)
      const ended = yield* post(holder.port, POLL, handleBody(handle))
      expect(ended.body).toBe("{\"kind\":\"sign-in\",\"state\":\"signed-in\"}")
      expect((yield* get(other.port, STATUS)).body).toBe(buddyAnswer("works", "none"))
      expect((yield* get(holder.port, STATUS)).body).toBe(buddyAnswer("works", "none"))
    }))

  it.scopedLive(
    "another process's (`buddy sign-in start`): pending while it holds, none once it ended",
    () =>
      Effect.gen(function*() {
        const fake = yield* Effect.promise(() => fakeGateway())
        const sessionId = yield* Effect.promise(() => fastStart(fake))
        const { port } = yield* serve(hostedConfig(fake.home))
        expect((yield* get(port, STATUS)).body).toBe(buddyAnswer("waits", "none"))

        const holder = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
        const [first] = yield* Effect.promise(() => holder.stdoutLines(1))
        expect(first).toContain(FAST_CODE)
        const seen = yield* get(port, STATUS)
        expect([seen.status, seen.body]).toStrictEqual([200, buddyAnswer("waits", "pending")])
        expect(seen.body).not.toContain(FAST_CODE)
        const blocked = yield* post(port, START, "{}")
        expect([blocked.status, blocked.body]).toStrictEqual([
          409,
          "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}"
        ])

        expect(fake.approve(sessionId)).toBe(true)
        expect(yield* Effect.promise(() => holder.finished)).toMatchObject({ code: 0 })
        expect((yield* get(port, STATUS)).body).toBe(buddyAnswer("works", "none"))
      }),
    30_000
  )
})
