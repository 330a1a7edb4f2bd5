// What leaves the process (C6 journal, C9): one closed journal line per sign-in operation and
// none for status reads; no code but in the holder's start and poll answers; never a ticket,
// a Hermes session id, a path, a handle in the journal, or any of Hermes's own text.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { bodies, expectAnswer, line, startedHandle } from "./support/answers.js"
import {
  CANCEL,
  CODE,
  get,
  handleBody,
  hostedConfig,
  PAGE,
  POLL,
  post,
  type Reply,
  serve,
  SIGN_OUT,
  START,
  STATUS
} from "./support/server.js"

type Seen = { readonly label: "start" | "poll-pending" | "other"; readonly reply: Reply }

describe("the journal and the answers", () => {
  it.scopedLive("status reads are never journaled", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      for (let i = 0; i < 3; i++) expectAnswer(yield* get(port, STATUS), 200, bodies.status("works", "none"))
      // Once: the read with the recent identify answers it, its GET sent once (C2, D47.3).
      fake.clearReceived()
      fake.fault("providers", { kind: "status", status: 500 }, 1)
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("unknown", "none", "cs", "http-error"))
      expect(fake.received.filter((entry) => entry.channel === "http")).toHaveLength(1)
      expect(yield* journal).toStrictEqual([])
    }))

  it.scopedLive("a whole life of sign-ins journals one closed line per operation and leaks nothing", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      const seen: Array<Seen> = []
      const ask = (label: Seen["label"], request: Effect.Effect<Reply>) =>
        Effect.tap(request, (reply) => Effect.sync(() => seen.push({ label, reply })))

      expectAnswer(yield* ask("other", get(port, STATUS)), 200, bodies.status("waits", "none"))
      fake.fault("providers", { kind: "status", status: 500, body: { detail: "CANARY-1 providers detail" } }, 1)
      expectAnswer(yield* ask("other", get(port, STATUS)), 200, bodies.status("unknown", "none", "cs", "http-error"))
      fake.fault("start", { kind: "status", status: 500, body: { detail: "CANARY-2 start detail" } }, 1)
      expectAnswer(yield* ask("other", post(port, START, "{}")), 503, bodies.unavailable("http-error"))

      // A: started, polled, then Hermes's worker fails with its own error text.
      const a = startedHandle(yield* ask("start", post(port, START, "{}")))
      expectAnswer(yield* ask("poll-pending", post(port, POLL, handleBody(a))), 200, bodies.pending)
      expectAnswer(yield* ask("other", get(port, STATUS)), 200, bodies.status("waits", "pending"))
      fake.fault("poll", { kind: "reply", body: { status: "error", error_message: "CANARY-3 poll error_message" } }, 1)
      expectAnswer(yield* ask("other", post(port, POLL, handleBody(a))), 200, bodies.ended("failed"))

      // B: a cancel Hermes refuses with its own message, then one it confirms.
      const b = startedHandle(yield* ask("start", post(port, START, "{}")))
      fake.fault("cancel", { kind: "reply", body: { ok: false, message: "CANARY-4 cancel message" } }, 1)
      expectAnswer(yield* ask("other", post(port, CANCEL, handleBody(b))), 409, bodies.blocked("sign-in-running"))
      expectAnswer(yield* ask("other", post(port, CANCEL, handleBody(b))), 200, bodies.ended("cancelled"))

      // A sign-out Hermes fails with its own text.
      fake.fault("sign-out", { kind: "status", status: 500, body: { detail: "CANARY-5", error: "CANARY-6" } }, 1)
      expectAnswer(yield* ask("other", post(port, SIGN_OUT, "{}")), 503, bodies.unavailable("http-error"))

      // C: approved and signed in, then signed out.
      const c = startedHandle(yield* ask("start", post(port, START, "{}")))
      const sessionC = fake.sessions().at(-1)
      expect(fake.approve(sessionC!.id)).toBe(true)
      expectAnswer(yield* ask("other", post(port, POLL, handleBody(c))), 200, bodies.ended("signed-in"))
      expectAnswer(yield* ask("other", get(port, STATUS)), 200, bodies.status("works", "none"))
      expectAnswer(yield* ask("other", post(port, SIGN_OUT, "{}")), 200, bodies.signedOut)
      // A's holder still reads its own ending: the last 64 endings are kept for their handles.
      expectAnswer(yield* ask("other", post(port, POLL, handleBody(a))), 200, bodies.ended("failed"))

      const lines = yield* journal
      expect(lines).toStrictEqual([
        line("start", "unavailable", "http-error"),
        line("start", "pending"),
        line("poll", "pending"),
        line("poll", "failed"),
        line("start", "pending"),
        line("cancel", "blocked", "sign-in-running"),
        line("cancel", "cancelled"),
        line("sign-out", "unavailable", "http-error"),
        line("start", "pending"),
        line("poll", "signed-in"),
        line("sign-out", "signed-out"),
        line("poll", "failed")
      ])
      expect(lines[1]).toBe("{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}")

      const tickets = fake.ticketsMinted
      const sessionIds = fake.sessions().map((session) => session.id)
      expect(tickets.length).toBeGreaterThan(10)
      expect(sessionIds).toHaveLength(3)
      const neverAnywhere = [
        ...tickets,
        ...sessionIds,
        fake.instanceId,
        fake.home,
        fake.origin,
        "CANARY",
        "hermes-gw",
        "gateway.sock"
      ]
      for (const { label, reply } of seen) {
        const wire = `${reply.body}\n${JSON.stringify(reply.rawHeaders)}`
        for (const secret of neverAnywhere) expect(wire, `${label} ${reply.body}`).not.toContain(secret)
        const carriesCode = label === "start" || label === "poll-pending"
        expect(reply.body.includes(CODE), reply.body).toBe(carriesCode)
        expect(reply.body.includes(PAGE), reply.body).toBe(carriesCode)
        // A handle is only in the start answer that hands it over.
        const handles = [a, b, c].filter((handle) => reply.body.includes(handle))
        expect(handles).toHaveLength(label === "start" ? 1 : 0)
      }
      for (const journalLine of lines) {
        for (const secret of [...neverAnywhere, a, b, c, CODE, PAGE]) expect(journalLine).not.toContain(secret)
      }
    }))
})
