// Checks 5 and 6 of C6 on the wire: blocked (409), unavailable (503) and the unforeseen (500),
// with Hermes's state and log showing that nothing changed; and the security headers on every
// kind of answer the app gives.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { SignIn } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import { bodies, expectAnswer, expectSecure, headerValues, line, startedHandle } from "./support/answers.js"
import { HERMES_CANCEL, HERMES_CARD, HERMES_POLL, HERMES_SIGN_OUT, hermesHttp } from "./support/fake.js"
import {
  CANCEL,
  emptyHome,
  get,
  handleBody,
  host,
  hostedConfig,
  OPENAPI,
  POLL,
  post,
  rawExchange,
  type Reply,
  sameOrigin,
  send,
  serve,
  serveWith,
  SIGN_OUT,
  START,
  STATUS
} from "./support/server.js"

const OTHER_HANDLE = "0123456789abcdef0123456789abcdef"

describe("409 blocked", () => {
  it.scopedLive("sign-in-running for a start, a cancel and a sign-out while Hermes does not confirm a cancel", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      const handle = startedHandle(yield* post(port, START, "{}"))
      fake.fault("cancel", { kind: "status", status: 500, body: { detail: "CANARY cancel detail" } })
      fake.clearReceived()
      const running = bodies.blocked("sign-in-running")
      expectAnswer(yield* post(port, START, "{}"), 409, running)
      expectAnswer(yield* post(port, CANCEL, handleBody(handle)), 409, running)
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 409, running)
      // The held sign-in is untouched and still polls pending; Buddy was not signed out.
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.pending)
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("works", "pending"))
      // One poll and one unconfirmed cancel per refused operation (C4.7); no start, no provider DELETE.
      // The status read polls the held sign-in before the card (C5).
      expect(hermesHttp(fake)).toStrictEqual([
        HERMES_POLL,
        HERMES_CANCEL,
        HERMES_POLL,
        HERMES_CANCEL,
        HERMES_POLL,
        HERMES_CANCEL,
        HERMES_POLL,
        HERMES_POLL,
        HERMES_CARD
      ])
      expect(hermesHttp(fake)).not.toContain(HERMES_SIGN_OUT)
      expect(fake.sessions()).toHaveLength(1)
      expect(fake.signedIn).toBe(true)
      expect(yield* journal).toStrictEqual([
        line("start", "pending"),
        line("start", "blocked", "sign-in-running"),
        line("cancel", "blocked", "sign-in-running"),
        line("sign-out", "blocked", "sign-in-running"),
        line("poll", "pending")
      ])
    }))

  it.scopedLive("hermes-outdated for a start on a gateway without the contract; status and sign-out still answer", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ contract: false, signedIn: true })
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      expectAnswer(yield* post(port, START, "{}"), 409, bodies.blocked("hermes-outdated"))
      expect(hermesHttp(fake)).toStrictEqual([])
      expect(fake.sessions()).toStrictEqual([])
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("works", "none"))
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 200, bodies.signedOut)
      expect(fake.signedIn).toBe(false)
      expect(hermesHttp(fake)).toStrictEqual([HERMES_CARD, HERMES_SIGN_OUT])
      expect(yield* journal).toStrictEqual([
        line("start", "blocked", "hermes-outdated"),
        line("sign-out", "signed-out")
      ])
    }))

  it.scopedLive("sign-in-unknown for a poll or cancel with a well-formed handle that is not the holder's", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      const unknown = bodies.blocked("sign-in-unknown")
      // With no sign-in held at all.
      expectAnswer(yield* post(port, POLL, handleBody(OTHER_HANDLE)), 409, unknown)
      expectAnswer(yield* post(port, CANCEL, handleBody(OTHER_HANDLE)), 409, unknown)
      // And with one held by someone else.
      const handle = startedHandle(yield* post(port, START, "{}"))
      fake.clearReceived()
      expectAnswer(yield* post(port, POLL, handleBody(OTHER_HANDLE)), 409, unknown)
      expectAnswer(yield* post(port, CANCEL, handleBody(OTHER_HANDLE)), 409, unknown)
      expect(fake.received).toStrictEqual([])
      expect(fake.sessions()[0]?.cancelled).toBe(false)
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.pending)
      expect(yield* journal).toStrictEqual([
        line("poll", "blocked", "sign-in-unknown"),
        line("cancel", "blocked", "sign-in-unknown"),
        line("start", "pending"),
        line("poll", "blocked", "sign-in-unknown"),
        line("cancel", "blocked", "sign-in-unknown"),
        line("poll", "pending")
      ])
    }))
})

describe("409 lock-unavailable (C4.1, D39)", () => {
  it.scopedLive("for a start and a sign-out when the holder lock's place is not buddy's: never sign-in-running, Hermes asked nothing", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      // Something of the account's that is not buddy's lock area stands where it belongs.
      yield* Effect.promise(() => fsp.writeFile(path.join(fake.home, ".buddy-lock"), ""))
      fake.clearReceived()
      const inTheWay = "{\"kind\":\"blocked\",\"reason\":\"lock-unavailable\"}"
      expectAnswer(yield* post(port, START, "{}"), 409, inTheWay)
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 409, inTheWay)
      // A status read does not touch the lock.
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("works", "none"))
      expect(hermesHttp(fake)).toStrictEqual([HERMES_CARD])
      expect(fake.signedIn).toBe(true)
      expect(fake.sessions()).toStrictEqual([])
      expect(yield* journal).toStrictEqual([
        line("start", "blocked", "lock-unavailable"),
        line("sign-out", "blocked", "lock-unavailable")
      ])
    }))
})

describe("503 buddy-unavailable", () => {
  it.scopedLive("not-running for every operation when no gateway runs, while GET answers 200 unknown", () =>
    Effect.gen(function*() {
      const home = yield* emptyHome
      const { journal, port } = yield* serve(hostedConfig(home))
      expectAnswer(yield* post(port, START, "{}"), 503, "{\"error\":\"buddy-unavailable\",\"reason\":\"not-running\"}")
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 503, bodies.unavailable("not-running"))
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("unknown", "none", "cs", "not-running"))
      expect(yield* journal).toStrictEqual([
        line("start", "unavailable", "not-running"),
        line("sign-out", "unavailable", "not-running")
      ])
    }))

  it.scopedLive("http-error, never Hermes's text, when Hermes fails the start; nothing is held", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      fake.fault("start", { kind: "status", status: 500, body: { detail: "CANARY start detail" } }, 1)
      expectAnswer(yield* post(port, START, "{}"), 503, bodies.unavailable("http-error"))
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
      startedHandle(yield* post(port, START, "{}"))
      expect(yield* journal).toStrictEqual([line("start", "unavailable", "http-error"), line("start", "pending")])
    }))

  it.scopedLive("not-ready while the gateway drains", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      fake.setState("draining")
      expectAnswer(yield* post(port, START, "{}"), 503, bodies.unavailable("not-ready"))
      expect(hermesHttp(fake)).toStrictEqual([])
    }))
})

/** SignIn and Status that die with a secret in the defect, as an unforeseen failure would. */
const dying = Layer.mergeAll(
  Layer.succeed(
    SignIn,
    SignIn.of({
      start: Effect.die(new Error("secret-stack-CANARY start")),
      poll: () => Effect.die(new Error("secret-stack-CANARY poll")),
      cancel: () => Effect.dieMessage("secret-stack-CANARY cancel"),
      signOut: Effect.die("secret-stack-CANARY sign-out"),
      current: Effect.succeed("none")
    })
  ),
  Layer.succeed(Status, Status.of({ read: Effect.die(new Error("secret-stack-CANARY status")) })),
  BuddyConfig.gatewayLayer(hostedConfig(undefined))
)

describe("500 operation-failed", () => {
  it.scopedLive("anything unforeseen answers exactly {\"error\":\"operation-failed\"}: no stack, no message", () =>
    Effect.gen(function*() {
      const { port } = yield* serveWith(dying)
      const replies = [
        yield* post(port, START, "{}"),
        yield* post(port, POLL, handleBody(OTHER_HANDLE)),
        yield* post(port, CANCEL, handleBody(OTHER_HANDLE)),
        yield* post(port, SIGN_OUT, "{}"),
        yield* get(port, STATUS)
      ]
      for (const reply of replies) {
        expectAnswer(reply, 500, "{\"error\":\"operation-failed\"}")
        expect(JSON.stringify(reply.rawHeaders)).not.toContain("CANARY")
      }
    }))

  it.scopedLive("the admission checks still answer before the broken service is reached", () =>
    Effect.gen(function*() {
      const { port } = yield* serveWith(dying)
      expectAnswer(yield* post(port, START, "{}", []), 403, bodies.denied)
      expectAnswer(yield* post(port, POLL, "[]"), 400, bodies.invalidRequest)
      expectAnswer(yield* get(port, "/api/buddy/nope"), 404, bodies.notFound)
      expect((yield* get(port, OPENAPI)).status).toBe(200)
    }))
})

describe("the security headers", () => {
  it.scopedLive("are on every kind of answer: 200, 400, 403, 404, 405, 409, 413, 415, 500 and 503", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      const { port: downPort } = yield* serve(hostedConfig(yield* emptyHome))
      const { port: brokenPort } = yield* serveWith(dying)
      const handle = startedHandle(yield* post(port, START, "{}"))
      const tooLarge = yield* rawExchange(
        port,
        `POST ${POLL} HTTP/1.1\r\nHost: x\r\nOrigin: https://launchpad.example\r\nSec-Fetch-Site: same-origin\r\n` +
          "Content-Type: application/json\r\nContent-Length: 16385\r\n\r\n"
      )
      const kinds: ReadonlyArray<readonly [number, Reply | typeof tooLarge]> = [
        [200, yield* get(port, STATUS)],
        [200, yield* post(port, POLL, handleBody(handle))],
        [200, yield* get(port, OPENAPI)],
        [400, yield* post(port, POLL, "{}")],
        [400, yield* post(port, POLL, handleBody("XYZ"))],
        [403, yield* post(port, START, "{}", [])],
        [404, yield* get(port, "/api/buddy/x")],
        [404, yield* get(port, "/")],
        [405, yield* send(port, { method: "PUT", path: POLL, headers: [host(port), ...sameOrigin] })],
        [409, yield* post(port, POLL, handleBody(OTHER_HANDLE))],
        [413, tooLarge],
        [415, yield* post(port, START, "{}", sameOrigin)],
        [500, yield* post(brokenPort, START, "{}")],
        [503, yield* post(downPort, START, "{}")]
      ]
      for (const [status, reply] of kinds) {
        expect(reply.status).toBe(status)
        expectSecure(reply)
      }
      // The 404 for a path outside /api/buddy and the buddy-absent 404 carry them too.
      const { port: absentPort } = yield* serve(hostedConfig(fake.home, { environment: "local" }))
      expectSecure(yield* get(absentPort, STATUS))
      expect(headerValues(yield* get(absentPort, STATUS), "set-cookie")).toStrictEqual([])
    }))
})
