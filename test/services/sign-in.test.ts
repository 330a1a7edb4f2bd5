// SignIn (C4) against the fake gateway: every ending on Hermes's word only, one sign-in at a
// time, the contract gate, held sign-ins that cannot be ended, and the seed's three reviewed
// faults, each a named test (see docs/decisions.md D7 for the guard each one pins).
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Scope, TestClock } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { SignIn } from "../../src/services/SignIn.js"
import { buddyLayer, journalLines, pastDeadlines } from "../support/buddy.js"
import { CANCEL, httpLines, POLL, SIGN_OUT, type SignInService, START, withSignIn } from "./support/sign-in.js"

type Fault = Parameters<FakeGateway["fault"]>[1]

const refusal = <A>(effect: Effect.Effect<A, { readonly _tag: string; readonly reason: string }>) =>
  Effect.map(Effect.flip(effect), (error) => ({ _tag: error._tag, reason: error.reason }))

const blocked = (reason: string) => ({ _tag: "Blocked", reason })

const onlySession = (fake: FakeGateway) => {
  const sessions = fake.sessions()
  expect(sessions).toHaveLength(1)
  return sessions[0]!
}

describe("a sign-in", () => {
  it.live("starts with a 32-hex handle and exactly the code and page, and polls pending", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        expect(started.handle).toMatch(/^[0-9a-f]{32}$/)
        expect(started).toStrictEqual({
          state: "pending",
          handle: started.handle,
          code: "ABCD-EFGHK",
          page: "https://auth.openai.com/codex/device",
          pollInterval: 5
        })
        expect(yield* signIn.poll(started.handle)).toStrictEqual({
          state: "pending",
          code: "ABCD-EFGHK",
          page: "https://auth.openai.com/codex/device"
        })
        // A status read polls the held sign-in too (C5).
        expect(yield* signIn.current).toBe("pending")
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL])
      })
    ))

  it.live("each start gets a new handle, never derived from Hermes's session id", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const first = yield* signIn.start
        const second = yield* signIn.start
        expect(first.handle).not.toBe(second.handle)
        for (const session of fake.sessions()) {
          expect(first.handle).not.toContain(session.id)
          expect(second.handle).not.toContain(session.id)
        }
      })
    ))

  const endings: Array<[string, (fake: FakeGateway, id: string) => unknown, string]> = [
    ["approved", (fake, id) => fake.approve(id), "signed-in"],
    ["expired", (fake, id) => fake.expire(id), "expired"],
    ["denied", (fake, id) => fake.deny(id), "refused"],
    ["error", (fake, id) => fake.error(id), "failed"]
  ]
  for (const [status, act, state] of endings) {
    it.live(`ends as ${state} when its poll reports ${status}, and its holder keeps reading that ending`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          const started = yield* signIn.start
          act(fake, onlySession(fake).id)
          expect(yield* signIn.poll(started.handle)).toStrictEqual({ state })
          expect(yield* signIn.current).toBe("none")
          expect(yield* signIn.poll(started.handle)).toStrictEqual({ state })
          expect(httpLines(fake)).toStrictEqual([START, POLL])
        })
      ))
  }

  it.live("approval signs Buddy in through Hermes's own worker", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        expect(fake.approve(onlySession(fake).id)).toBe(true)
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "signed-in" })
        expect(fake.signedIn).toBe(true)
      })
    ))

  it.live("a handle that is not the holder's is unknown and nothing is sent to Hermes", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        yield* signIn.start
        fake.clearReceived()
        const other = "0123456789abcdef0123456789abcdef"
        expect(yield* refusal(signIn.poll(other))).toStrictEqual(blocked("sign-in-unknown"))
        expect(yield* refusal(signIn.cancel(other))).toStrictEqual(blocked("sign-in-unknown"))
        expect(fake.received).toStrictEqual([])
        expect(onlySession(fake).cancelled).toBe(false)
      })
    ))

  it.live("a hold still pending while Hermes sweeps it under the contract ends as lost, and its worker saves nothing", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        fake.sweep()
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "lost" })
        expect(fake.approve(id)).toBe(false)
        expect(fake.signedIn).toBe(false)
      })
    ))
})

describe("one sign-in at a time", () => {
  it.live("two starts at once leave exactly one session on Hermes, and only the later handle holds it", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const [first, second] = yield* Effect.all([signIn.start, signIn.start], { concurrency: "unbounded" })
        const live = fake.sessions().filter((session) => session.inMap && !session.cancelled)
        expect(live).toHaveLength(1)
        expect(fake.sessions()).toHaveLength(2)
        // The replacement polls the held sign-in before it cancels it (C4.7).
        expect(httpLines(fake)).toStrictEqual([START, POLL, CANCEL, START])
        const holders = [first, second]
        const polls = yield* Effect.all(holders.map((started) => Effect.either(signIn.poll(started.handle))))
        const pending = polls.filter((poll) => poll._tag === "Right" && poll.right.state === "pending")
        expect(pending).toHaveLength(1)
      })
    ))

  it.live("a replacement start cancels the held sign-in first, and the old handle reads cancelled", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const first = yield* signIn.start
        const oldId = onlySession(fake).id
        const second = yield* signIn.start
        expect(yield* signIn.poll(first.handle)).toStrictEqual(expect.objectContaining({ state: "cancelled" }))
        expect(yield* signIn.poll(second.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        expect(fake.approve(oldId)).toBe(false)
      })
    ))
})

describe("cancel and sign-out", () => {
  it.live("an explicit cancel confirmed for exactly its session ends the sign-in as cancelled", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: "cancelled" })
        expect(onlySession(fake).cancelled).toBe(true)
        expect(yield* signIn.current).toBe("none")
        expect(fake.approve(id)).toBe(false)
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "cancelled" })
      })
    ))

  it.live("sign-out without a held sign-in sends the provider DELETE and needs no contract", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
        expect(fake.signedIn).toBe(false)
        expect(httpLines(fake)).toStrictEqual([SIGN_OUT])
        expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
      }), { contract: false, signedIn: true }))

  it.live("sign-out with a held sign-in cancels it first, then signs out", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
        expect(httpLines(fake)).toStrictEqual([START, POLL, CANCEL, SIGN_OUT])
        expect(fake.approve(id)).toBe(false)
        expect(fake.signedIn).toBe(false)
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "cancelled" })
      }), { signedIn: true }))
})

/** Every cancel answer that does not prove the end (C4.4), and what it looks like on the wire. */
const unconfirmed: Array<[string, Fault]> = [
  ["an HTTP 500", { kind: "status", status: 500 }],
  ["another session's confirmation", { kind: "other-session" }],
  ["{ok:true} without an id", { kind: "ok-without-id" }],
  ["another ok:false", { kind: "reply", body: { ok: false, message: "cancel failed" } }],
  ["a 404", { kind: "status", status: 404, body: { detail: "Not Found" } }],
  ["no JSON", { kind: "raw", status: 200, body: "<html>oops</html>" }],
  ["a refused ticket", { kind: "refuse-ticket" }],
  ["a timeout", { kind: "timeout" }]
]

describe("a cancel Hermes does not confirm changes nothing", () => {
  // On the TestClock: a cancel left unanswered passes its deadline at once (pastDeadlines).
  for (const [name, fault] of unconfirmed) {
    it.effect(`a replacement start on ${name} starts nothing and the old handle still polls pending`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          const started = yield* signIn.start
          fake.fault("cancel", fault)
          expect(yield* refusal(pastDeadlines(fake)(signIn.start))).toStrictEqual(blocked("sign-in-running"))
          expect(fake.sessions()).toHaveLength(1)
          expect(httpLines(fake).filter((line) => line === START)).toHaveLength(1)
          fake.clearFaults()
          expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        })
      ))

    it.effect(`an explicit cancel on ${name} is blocked and the sign-in stays held`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          const started = yield* signIn.start
          fake.fault("cancel", fault)
          expect(yield* refusal(pastDeadlines(fake)(signIn.cancel(started.handle)))).toStrictEqual(
            blocked("sign-in-running")
          )
          expect(yield* signIn.current).toBe("pending")
          fake.clearFaults()
          expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        })
      ))

    it.effect(`a sign-out on ${name} signs nothing out, even while the uncancelled sign-in gets approved`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          const started = yield* signIn.start
          const { id } = onlySession(fake)
          fake.fault("cancel", fault)
          expect(yield* refusal(pastDeadlines(fake)(signIn.signOut))).toStrictEqual(blocked("sign-in-running"))
          expect(httpLines(fake)).not.toContain(SIGN_OUT)
          expect(fake.signedIn).toBe(true)
          expect(fake.approve(id)).toBe(true)
          fake.clearFaults()
          expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "signed-in" })
        }), { signedIn: true }))

    it.effect(`a sign-in kept by ${name} ends as lost on the poll's "not found" from a restarted instance holding the contract`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          const started = yield* signIn.start
          const { id } = onlySession(fake)
          fake.fault("cancel", fault)
          expect(yield* refusal(pastDeadlines(fake)(signIn.cancel(started.handle)))).toStrictEqual(
            blocked("sign-in-running")
          )
          fake.clearFaults()
          fake.restart()
          // The cancel polls first (C4.7): the new instance no longer holds the session, under the contract.
          expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: "lost" })
          expect(fake.approve(id)).toBe(false)
          expect((yield* signIn.start).state).toBe("pending")
        })
      ))
  }

  it.live("a sign-out while the gateway drains is unavailable and sends no provider DELETE", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        yield* signIn.start
        fake.setState("draining")
        expect(yield* refusal(signIn.signOut)).toStrictEqual({ _tag: "Unavailable", reason: "not-ready" })
        expect(httpLines(fake)).toStrictEqual([START])
      })
    ))
})

describe("an unexpected poll answer", () => {
  it.live("ends the sign-in as failed only after its cancel is confirmed", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "reply", body: { status: "weird" } })
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "failed" })
        expect(onlySession(fake).cancelled).toBe(true)
        expect(httpLines(fake)).toStrictEqual([START, POLL, CANCEL])
      })
    ))

  it.live("keeps the sign-in held when that cancel is not confirmed", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "reply", body: { status: "weird" } })
        fake.fault("cancel", { kind: "status", status: 500 })
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual(blocked("sign-in-running"))
        expect(yield* signIn.current).toBe("pending")
        fake.clearFaults()
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
      })
    ))

  it.live("a poll that gets no answer keeps the sign-in and reports the gateway's reason", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "status", status: 500 }, 1)
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual({ _tag: "Unavailable", reason: "http-error" })
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        expect(httpLines(fake)).not.toContain(CANCEL)
      })
    ))
})

describe("a start whose answer has no known shape or was lost is held without a holder", () => {
  const malformedStart: Fault = {
    kind: "reply",
    body: {
      session_id: "SESSION7xxxxxxxxxxxxxx",
      flow: "device_code",
      user_code: "abcd-efghk",
      verification_url: "https://auth.openai.com/codex/device",
      expires_in: 900,
      poll_interval: 5
    }
  }

  /** A poll answer saying the session is still pending, for a session id only the faulted start gave. */
  const pendingPoll: Fault = { kind: "reply", body: { status: "pending", error_message: null } }

  it.live("with a known session id it is polled at once and ends when Hermes no longer holds it", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        fake.fault("start", malformedStart, 1)
        expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Unavailable", reason: "malformed" })
        expect(httpLines(fake)).toStrictEqual([START, POLL])
        expect(yield* signIn.current).toBe("none")
        const started = yield* signIn.start
        expect(started.state).toBe("pending")
      })
    ))

  it.live("with a known session id still pending it is cancelled at once and ends when Hermes confirms", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        fake.fault("start", malformedStart, 1)
        fake.fault("poll", pendingPoll, 1)
        expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Unavailable", reason: "malformed" })
        expect(httpLines(fake)).toStrictEqual([START, POLL, CANCEL])
        expect(yield* signIn.current).toBe("none")
        const started = yield* signIn.start
        expect(started.state).toBe("pending")
      })
    ))

  it.live("while its cancel is not confirmed nothing else starts or signs out, until a restart's not-found ends it", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        fake.fault("start", malformedStart, 1)
        fake.fault("poll", pendingPoll)
        fake.fault("cancel", { kind: "status", status: 500 })
        expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Unavailable", reason: "malformed" })
        expect(yield* signIn.current).toBe("pending")
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("sign-in-running"))
        expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("sign-in-running"))
        expect(httpLines(fake).filter((line) => line === START)).toHaveLength(1)
        expect(httpLines(fake)).not.toContain(SIGN_OUT)
        fake.clearFaults()
        fake.restart()
        expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
      }), { signedIn: true }))

  it.live("a lost start answer blocks every start and sign-out on the same instance", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "reset" }, 1)
        expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Unavailable", reason: "lost" })
        expect(fake.sessions()).toHaveLength(1)
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("sign-in-running"))
        expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("sign-in-running"))
        expect(httpLines(fake)).toStrictEqual([START])
      })
    ))

  it.live("with an unknown session id it ends when a different instance holding the contract answers", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "reply", body: { nothing: "known" } }, 1)
        expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Unavailable", reason: "malformed" })
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("sign-in-running"))
        fake.restart({ contract: false })
        expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("hermes-outdated"))
        fake.restart({ contract: true })
        const started = yield* signIn.start
        expect(started.state).toBe("pending")
      })
    ))
})

const signInStart = (signIn: SignInService) => signIn.start

describe("the cancellation contract", () => {
  it.live("without it no sign-in starts and no request reaches the start route, while status and sign-out work", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("hermes-outdated"))
        expect(httpLines(fake)).toStrictEqual([])
        expect(fake.sessions()).toStrictEqual([])
        expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
        expect(httpLines(fake)).toStrictEqual([SIGN_OUT])
      }), { contract: false, signedIn: true }))

  it.live("a replacement start on an instance that lost the contract is refused before the held sign-in is touched", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.setContract(false)
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("hermes-outdated"))
        expect(httpLines(fake)).toStrictEqual([START])
        expect(onlySession(fake).cancelled).toBe(false)
        fake.setContract(true)
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
      })
    ))

  it.live("a held sign-in on a gateway restarted with the contract ends as lost on the new instance's 404", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        fake.restart()
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "lost" })
        expect(fake.approve(id)).toBe(false)
      })
    ))

  it.live("a gateway restarted without the contract keeps the sign-in held, and another instance with it ends it as lost", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.restart({ contract: false })
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual(blocked("hermes-outdated"))
        expect(yield* refusal(signIn.cancel(started.handle))).toStrictEqual(blocked("hermes-outdated"))
        expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("hermes-outdated"))
        expect(yield* signIn.current).toBe("pending")
        expect(httpLines(fake)).not.toContain(SIGN_OUT)
        fake.restart({ contract: true })
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "lost" })
      })
    ))

  for (
    const [operation, run] of [
      ["a replacement start", signInStart],
      ["a sign-out", (signIn: SignInService) => signIn.signOut]
    ] as const
  ) {
    it.live(`${operation} after a restart ends the held sign-in on the new instance's "not found"`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          yield* signIn.start
          const oldId = fake.sessions()[0]?.id ?? ""
          fake.restart()
          yield* run(signIn)
          // Polled first (C4.7): the new instance's 404 under the contract ends it, nothing to cancel.
          expect(httpLines(fake).slice(1, 3)).toStrictEqual([POLL, run === signInStart ? START : SIGN_OUT])
          expect(fake.approve(oldId)).toBe(false)
        })
      ))
  }

  it.live("an explicit cancel after a sweep ends the sign-in as lost on the poll's \"not found\", and the swept worker saves nothing", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        fake.sweep()
        expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: "lost" })
        expect(fake.approve(id)).toBe(false)
        expect(fake.signedIn).toBe(false)
      })
    ))
})

describe("no time bound of our own", () => {
  it.scoped("a sign-in still pending hours past its code's end waits for Hermes, and nothing is cancelled for it", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const signIn = yield* Effect.provide(SignIn, buddyLayer(fake).pipe(Layer.orDie))
      const started = yield* signIn.start
      for (const hours of [1, 4, 24]) {
        yield* TestClock.adjust(`${hours} hours`)
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
      }
      expect(httpLines(fake)).not.toContain(CANCEL)
      expect(onlySession(fake).cancelled).toBe(false)
      expect(fake.approve(onlySession(fake).id)).toBe(true)
      expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "signed-in" })
    }))
})

describe("the process stopping", () => {
  it.live("closing the layer's scope cancels nothing on Hermes", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const scope = yield* Scope.make()
      const signIn = yield* Layer.buildWithScope(buddyLayer(fake).pipe(Layer.orDie), scope).pipe(
        Effect.map((context) => Context.get(context, SignIn))
      )
      yield* signIn.start
      yield* Scope.close(scope, Exit.void)
      expect(httpLines(fake)).toStrictEqual([START])
      expect(onlySession(fake).cancelled).toBe(false)
      expect(fake.approve(onlySession(fake).id)).toBe(true)
    }).pipe(Effect.scoped))

  it.live("a caller interrupted while its start is on Hermes leaves the sign-in recorded and held", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(signIn.start)
        yield* Effect.sleep("1 millis")
        yield* Fiber.interrupt(fiber)
        yield* Effect.sleep("300 millis")
        expect(fake.sessions()).toHaveLength(1)
        expect(yield* signIn.current).toBe("pending")
      })
    ))
})

describe("journal and answers", () => {
  it.live("each operation writes exactly its closed line", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        yield* signIn.poll(started.handle)
        yield* Effect.either(signIn.poll("ffffffffffffffffffffffffffffffff"))
        fake.fault("cancel", { kind: "status", status: 500 }, 1)
        yield* Effect.either(signIn.cancel(started.handle))
        yield* signIn.cancel(started.handle)
        fake.setState("starting")
        yield* Effect.either(signIn.signOut)
        expect(yield* journalLines).toStrictEqual([
          "{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}",
          "{\"scope\":\"buddy-sign-in\",\"operation\":\"poll\",\"outcome\":\"pending\"}",
          "{\"scope\":\"buddy-sign-in\",\"operation\":\"poll\",\"outcome\":\"blocked\",\"reason\":\"sign-in-unknown\"}",
          "{\"scope\":\"buddy-sign-in\",\"operation\":\"cancel\",\"outcome\":\"blocked\",\"reason\":\"sign-in-running\"}",
          "{\"scope\":\"buddy-sign-in\",\"operation\":\"cancel\",\"outcome\":\"cancelled\"}",
          "{\"scope\":\"buddy-sign-in\",\"operation\":\"sign-out\",\"outcome\":\"unavailable\",\"reason\":\"not-ready\"}"
        ])
      })
    ))

  it.live("no journal line and no answer carries the code, a ticket, the handle, a session id or Hermes's text", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const answers: Array<unknown> = []
        const keep = <A, E>(effect: Effect.Effect<A, E>) =>
          Effect.tap(Effect.either(effect), (result) => Effect.sync(() => answers.push(result)))
        const started = yield* signIn.start
        yield* keep(signIn.poll(started.handle))
        fake.fault("poll", { kind: "status", status: 500, body: { detail: "CANARY-poll-text" } }, 1)
        yield* keep(signIn.poll(started.handle))
        fake.fault("cancel", { kind: "reply", body: { ok: false, message: "CANARY-cancel-text" } }, 1)
        yield* keep(signIn.cancel(started.handle))
        fake.fault("sign-out", { kind: "status", status: 500, body: { detail: "CANARY-sign-out-text" } }, 1)
        yield* keep(signIn.signOut)
        yield* keep(signIn.start)
        const second = yield* signIn.start
        fake.fault("poll", {
          kind: "reply",
          body: { session_id: "CANARY-session", status: "error", error_message: "CANARY-worker-text" }
        }, 1)
        yield* keep(signIn.poll(second.handle))
        const journal = (yield* journalLines).join("\n")
        const secrets = [
          "ABCD-EFGHK",
          "auth.openai.com",
          started.handle,
          "CANARY",
          ...fake.ticketsMinted,
          ...fake.sessions().map((session) => session.id)
        ]
        for (const secret of secrets) expect(journal).not.toContain(secret)
        const rendered = answers.map((answer) => `${JSON.stringify(answer)} ${String(answer)}`).join("\n")
        for (const secret of ["CANARY", ...fake.ticketsMinted, ...fake.sessions().map((session) => session.id)]) {
          expect(rendered).not.toContain(secret)
        }
      })
    ))
})

/**
 * The seed's three reviewed faults, reproduced as the reviewer ran them. Each pins one guard
 * (docs/decisions.md D7 names it): removing the guard makes its test fail.
 */
describe("the reviewer's reproductions", () => {
  it.live("reproduction 1: a cancel answered HTTP 500 is not an end — no second session, no sign-out, the approval still arrives", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const first = yield* signIn.start
        const { id } = onlySession(fake)
        fake.fault("cancel", { kind: "status", status: 500 })
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("sign-in-running"))
        expect(fake.sessions()).toHaveLength(1)
        expect(yield* signIn.poll(first.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("sign-in-running"))
        expect(httpLines(fake)).not.toContain(SIGN_OUT)
        expect(fake.approve(id)).toBe(true)
        expect(yield* signIn.poll(first.handle)).toStrictEqual({ state: "signed-in" })
        expect(fake.signedIn).toBe(true)
      })
    ))

  it.live("reproduction 2: \"session not found\" from an instance without the contract proves nothing — its swept worker can still save", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        // The instance stops advertising the contract, then its clean-up drops the session unmarked.
        fake.setContract(false)
        fake.sweep()
        expect(onlySession(fake).cancelled).toBe(false)
        expect(yield* refusal(signIn.cancel(started.handle))).toStrictEqual(blocked("hermes-outdated"))
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual(blocked("hermes-outdated"))
        expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("hermes-outdated"))
        expect(yield* signIn.current).toBe("pending")
        expect(fake.approve(id)).toBe(true)
        expect(fake.signedIn).toBe(true)
        expect(httpLines(fake)).not.toContain(SIGN_OUT)
      })
    ))

  it.scoped("reproduction 3: no time bound and no new instance alone ends a sign-in — a save delayed past any bound is stopped only by the contract", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const signIn = yield* Effect.provide(SignIn, buddyLayer(fake).pipe(Layer.orDie))
      const started = yield* signIn.start
      const { id } = onlySession(fake)
      // Far past the 1223 s the second fix proposed: still Hermes's to decide.
      yield* TestClock.adjust("2 hours")
      expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
      // A new instance without the contract is not proof by itself.
      fake.restart({ contract: false })
      yield* TestClock.adjust("2 hours")
      expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("hermes-outdated"))
      expect(yield* signIn.current).toBe("pending")
      // Under the contract the stopping instance marked the session, so its late save saves nothing.
      fake.restart({ contract: true })
      expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
      expect(fake.approve(id)).toBe(false)
      expect(fake.signedIn).toBe(false)
    }))
})

describe("what the holder reads after an ending", () => {
  it.live("a sign-in found lost keeps reading lost, and one failed on an unexpected answer keeps reading failed", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const first = yield* signIn.start
        fake.sweep()
        expect(yield* signIn.poll(first.handle)).toStrictEqual({ state: "lost" })
        expect(yield* signIn.poll(first.handle)).toStrictEqual({ state: "lost" })
        const second = yield* signIn.start
        fake.fault("poll", { kind: "reply", body: { status: "weird" } }, 1)
        expect(yield* signIn.poll(second.handle)).toStrictEqual({ state: "failed" })
        expect(yield* signIn.poll(second.handle)).toStrictEqual({ state: "failed" })
        // The repeated readings come from the recorded ending: Hermes is asked once per sign-in.
        expect(httpLines(fake).filter((line) => line === POLL)).toHaveLength(2)
      })
    ))
})

describe("a start that fails after the gate", () => {
  it.live("a refused ticket for the start itself is unavailable refused, and nothing is held", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        fake.fault("session-ticket", { kind: "refuse-ticket" }, 1)
        expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Unavailable", reason: "refused" })
        expect(httpLines(fake)).toStrictEqual([])
        expect(yield* signIn.current).toBe("none")
      })
    ))

  it.live("an instance that stops advertising the contract between the gate and the start gets no start", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const identify = (capabilities: ReadonlyArray<string>) =>
          `{"ok": true, "protocol": 1, "result": ${
            JSON.stringify({
              kind: "hermes-gateway",
              instance_id: fake.instanceId,
              runtime_protocol: 1,
              state: "ready",
              api_origin: fake.origin,
              served_profiles: [{ profile_id: fake.home, home: fake.home }],
              capabilities
            })
          }, "id": 1}`
        fake.fault("identify", {
          kind: "reply",
          line: identify(["session-authority-v1", "lazurio-oauth-cancel-contract-v1"])
        }, 1)
        fake.fault("identify", { kind: "reply", line: identify(["session-authority-v1"]) }, 1)
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("hermes-outdated"))
        expect(httpLines(fake)).toStrictEqual([])
        expect(fake.sessions()).toStrictEqual([])
      })
    ))
})

describe("a poll that does not say Hermes let the session go", () => {
  it.live("a poll answered 400 (Hermes's profile mismatch) is unavailable http-error and the sign-in stays held", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        fake.fault("poll", { kind: "status", status: 400, body: { detail: "OAuth session profile mismatch" } }, 1)
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual({ _tag: "Unavailable", reason: "http-error" })
        expect(yield* signIn.current).toBe("pending")
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        // Still held, so a replacement start must end it first, and only Hermes's confirmation does (C4.2, C4.4).
        const second = yield* signIn.start
        // The status read's poll, the holder's, then the replacement's poll before its cancel (C5, C4.7).
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL, POLL, POLL, CANCEL, START])
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "cancelled" })
        expect(fake.approve(id)).toBe(false)
        expect(yield* signIn.poll(second.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
      })
    ))

  it.live("after a 400 poll, a replacement start whose cancel is not confirmed is blocked and starts nothing", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "status", status: 400, body: { detail: "OAuth session profile mismatch" } }, 1)
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual({ _tag: "Unavailable", reason: "http-error" })
        fake.fault("cancel", { kind: "status", status: 400, body: { detail: "OAuth session profile mismatch" } })
        expect(yield* refusal(signIn.start)).toStrictEqual(blocked("sign-in-running"))
        expect(fake.sessions()).toHaveLength(1)
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL, CANCEL])
        fake.clearFaults()
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
      })
    ))
})

describe("a poll 404 that is not Hermes's own not-found answer", () => {
  it.live("a 404 of no such route ({\"detail\":\"Not Found\"}) never ends the sign-in as lost: it is an http-error and stays held", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const { id } = onlySession(fake)
        fake.fault("poll", { kind: "status", status: 404, body: { detail: "Not Found" } }, 2)
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual({ _tag: "Unavailable", reason: "http-error" })
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual({ _tag: "Unavailable", reason: "http-error" })
        expect(yield* signIn.current).toBe("pending")
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL, POLL, POLL])
        // The worker Hermes still runs signs Buddy in, and the holder hears it.
        expect(fake.approve(id)).toBe(true)
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "signed-in" })
      })
    ))

  it.live("Hermes's own not-found answer under the contract still ends the sign-in as lost", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "raw", status: 404, body: "{\"detail\":\"Session not found or expired\"}" }, 1)
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "lost" })
        expect(yield* signIn.current).toBe("none")
      })
    ))
})

describe("a start whose session id is outside Hermes's alphabet", () => {
  const foreign: Array<[string, string]> = [
    ["a slash", "SESSION1/xxxxxxxxxxxxx"],
    ["a percent escape", "SESSION1%2Fxxxxxxxxxxx"],
    ["a space", "SESSION1 xxxxxxxxxxxxx"],
    ["nothing (empty)", ""],
    ["a dot segment", ".."]
  ]
  for (const [name, id] of foreign) {
    it.live(`an id with ${name} is held without a known session: it reaches no URL, and nothing starts or signs out until another instance with the contract answers`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          fake.fault("start", {
            kind: "reply",
            body: {
              session_id: id,
              flow: "device_code",
              user_code: "ABCD-EFGHK",
              verification_url: "https://auth.openai.com/codex/device",
              expires_in: 900,
              poll_interval: 5
            }
          }, 1)
          expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Unavailable", reason: "malformed" })
          expect(yield* signIn.current).toBe("pending")
          expect(yield* refusal(signIn.start)).toStrictEqual(blocked("sign-in-running"))
          expect(yield* refusal(signIn.signOut)).toStrictEqual(blocked("sign-in-running"))
          expect(fake.signedIn).toBe(true)
          // No cancel, no poll: the id was never put in a URL, raw or escaped.
          expect(httpLines(fake)).toStrictEqual([START])
          fake.restart()
          expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
          expect(httpLines(fake)).toStrictEqual([START, SIGN_OUT])
          const paths = fake.received.flatMap((entry) => (entry.channel === "http" ? [entry.path] : []))
          expect(paths.filter((path) => path.startsWith("/api/providers/oauth/sessions/"))).toStrictEqual([])
          if (id !== "") {
            for (const path of paths) {
              expect(path).not.toContain(id)
              expect(path).not.toContain(encodeURIComponent(id))
            }
          }
        }), { signedIn: true }))
  }
})
