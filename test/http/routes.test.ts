// The five routes of C6 on a hosted personal environment, against the fake Hermes gateway and a
// real server on 127.0.0.1: exact bytes of every answer, what Hermes was asked, the journal.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { bodies, expectAnswer, line, startedHandle } from "./support/answers.js"
import { HERMES_CANCEL, HERMES_CARD, HERMES_POLL, HERMES_SIGN_OUT, HERMES_START, hermesHttp } from "./support/fake.js"
import {
  CANCEL,
  emptyHome,
  get,
  handleBody,
  hostedConfig,
  POLL,
  post,
  serve,
  SIGN_OUT,
  START,
  STATUS
} from "./support/server.js"

const onlySessionId = (sessions: ReadonlyArray<{ readonly id: string }>) => {
  expect(sessions).toHaveLength(1)
  return sessions[0]!.id
}

describe("GET /api/buddy", () => {
  it.scopedLive("answers waits, no sign-in and the configured locale, and journals nothing", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(
        yield* get(port, STATUS),
        200,
        "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"cs\"}"
      )
      expect(hermesHttp(fake)).toStrictEqual([HERMES_CARD])
      expect(yield* journal).toStrictEqual([])
    }))

  it.scopedLive("carries the locale of the config: en", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home, { locale: "en" }))
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none", "en"))
    }))

  it.scopedLive("reads works when Hermes holds Buddy's sign-in, fresh on every request", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const { port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("works", "none"))
      fake.setSignedIn(false)
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
      expect(hermesHttp(fake)).toStrictEqual([HERMES_CARD, HERMES_CARD])
    }))

  it.scopedLive("is 200 unknown not-running when no gateway runs for the home", () =>
    Effect.gen(function*() {
      const home = yield* emptyHome
      const { journal, port } = yield* serve(hostedConfig(home))
      expectAnswer(
        yield* get(port, STATUS),
        200,
        "{\"kind\":\"buddy\",\"state\":\"unknown\",\"reason\":\"not-running\",\"signIn\":{\"state\":\"none\"},\"locale\":\"cs\"}"
      )
      expect(yield* journal).toStrictEqual([])
    }))

  it.scopedLive("is 200 unknown not-running once the gateway has gone away", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
      yield* fake.close()
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("unknown", "none", "cs", "not-running"))
    }))

  it.scopedLive("is 200 unknown with the closed reason, never Hermes's text, when the card read fails", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      fake.fault("providers", { kind: "status", status: 500, body: { detail: "CANARY providers detail" } }, 1)
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("unknown", "none", "cs", "http-error"))
      fake.setState("draining")
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("unknown", "none", "cs", "not-ready"))
    }))

  it.scopedLive("ignores a query string", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(yield* get(port, `${STATUS}?state=works&x`), 200, bodies.status("waits", "none"))
    }))
})

describe("a sign-in over HTTP", () => {
  it.scopedLive("start answers pending with a 32-hex handle, the code and OpenAI's page; GET shows it held", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      const handle = startedHandle(yield* post(port, START, "{}"))
      expect(hermesHttp(fake)).toStrictEqual([HERMES_START])
      expect(fake.sessions()).toHaveLength(1)
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "pending"))
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.pending)
      // GET polls the held sign-in before it reads the card (C5).
      expect(hermesHttp(fake)).toStrictEqual([HERMES_START, HERMES_POLL, HERMES_CARD, HERMES_POLL])
      expect(yield* journal).toStrictEqual([line("start", "pending"), line("poll", "pending")])
    }))

  it.scopedLive("after Hermes's worker saves the approval: GET polls the held sign-in and reads works and none; the holder reads signed-in", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      const handle = startedHandle(yield* post(port, START, "{}"))
      expect(fake.approve(onlySessionId(fake.sessions()))).toBe(true)
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("works", "none"))
      expect(hermesHttp(fake)).toStrictEqual([HERMES_START, HERMES_POLL, HERMES_CARD])
      // The holder reads its ending, kept for its handle: Hermes is not asked again.
      fake.clearReceived()
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, "{\"kind\":\"sign-in\",\"state\":\"signed-in\"}")
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.ended("signed-in"))
      expect(hermesHttp(fake)).toStrictEqual([])
      // Status reads are not journaled; the holder's polls are.
      expect(yield* journal).toStrictEqual([
        line("start", "pending"),
        line("poll", "signed-in"),
        line("poll", "signed-in")
      ])
    }))

  const endings: Array<[string, "expire" | "deny" | "error", string]> = [
    ["expired", "expire", "expired"],
    ["denied", "deny", "refused"],
    ["error", "error", "failed"]
  ]
  for (const [status, act, state] of endings) {
    it.scopedLive(`a poll Hermes answers ${status} is ${state}, without code or page`, () =>
      Effect.gen(function*() {
        const fake = yield* makeFakeGateway()
        const { port } = yield* serve(hostedConfig(fake.home))
        const handle = startedHandle(yield* post(port, START, "{}"))
        expect(fake[act](onlySessionId(fake.sessions()))).toBe(true)
        expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.ended(state))
        expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
      }))
  }

  it.scopedLive("cancel ends the held sign-in on Hermes: cancelled, and its worker can no longer save", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      const handle = startedHandle(yield* post(port, START, "{}"))
      const id = onlySessionId(fake.sessions())
      expectAnswer(yield* post(port, CANCEL, handleBody(handle)), 200, "{\"kind\":\"sign-in\",\"state\":\"cancelled\"}")
      // The cancel polls first (C4.7): pending, so it is cancelled.
      expect(hermesHttp(fake)).toStrictEqual([HERMES_START, HERMES_POLL, HERMES_CANCEL])
      expect(fake.approve(id)).toBe(false)
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.ended("cancelled"))
      expect(yield* journal).toStrictEqual([
        line("start", "pending"),
        line("cancel", "cancelled"),
        line("poll", "cancelled")
      ])
    }))

  it.scopedLive("a second start replaces the first: the old holder reads cancelled, the new one pending", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      const first = startedHandle(yield* post(port, START, "{}"))
      const second = startedHandle(yield* post(port, START, "{}"))
      expect(second).not.toBe(first)
      expect(hermesHttp(fake)).toStrictEqual([HERMES_START, HERMES_POLL, HERMES_CANCEL, HERMES_START])
      expectAnswer(yield* post(port, POLL, handleBody(first)), 200, bodies.ended("cancelled"))
      expectAnswer(yield* post(port, POLL, handleBody(second)), 200, bodies.pending)
    }))
})

describe("POST /api/buddy/sign-out", () => {
  it.scopedLive("signs Buddy out through Hermes's provider DELETE", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 200, "{\"kind\":\"sign-out\",\"state\":\"signed-out\"}")
      expect(fake.signedIn).toBe(false)
      expect(hermesHttp(fake)).toStrictEqual([HERMES_SIGN_OUT])
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
      expect(yield* journal).toStrictEqual([line("sign-out", "signed-out")])
    }))

  it.scopedLive("answers signed-out when nothing was stored", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 200, bodies.signedOut)
    }))

  it.scopedLive("with a held sign-in cancels it first, then signs out", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const { port } = yield* serve(hostedConfig(fake.home))
      const handle = startedHandle(yield* post(port, START, "{}"))
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 200, bodies.signedOut)
      expect(hermesHttp(fake)).toStrictEqual([HERMES_START, HERMES_POLL, HERMES_CANCEL, HERMES_SIGN_OUT])
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.ended("cancelled"))
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
    }))

  it.scopedLive("ignores a query string on a POST route", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(yield* post(port, `${SIGN_OUT}?all=1`, "{}"), 200, bodies.signedOut)
      startedHandle(yield* post(port, `${START}?handle=x`, "{}"))
    }))
})
