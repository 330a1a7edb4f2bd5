// What buddy answers to each kind of answer recorded from Hermes on 2026-11-30 (fixtures README facts
// 6–13), with the real layers against the in-process fake: what the fake received and kept, what the
// journal got, and what the caller was answered. Hermes's own texts must stop at HermesApi.
import { describe, expect, it } from "@effect/vitest"
import { type Context, Duration, Effect, Fiber, Layer, TestClock } from "effect"
import { readFileSync } from "node:fs"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { recordingsFileUrl } from "../../fixtures/hermes/templates.js"
import type { JournalLines } from "../../src/services/Journal.js"
import { SignIn } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import { mint } from "../fixtures/wire.js"
import { buddyLayer, httpRequest, journalLines, testDeadlines, untilReceived } from "../support/buddy.js"

interface Buddy {
  readonly signIn: Context.Tag.Service<typeof SignIn>
  readonly status: Context.Tag.Service<typeof Status>
}
type Received = FakeGateway["received"][number]

/** A fresh fake gateway and buddy's real services on it, for one test. */
const withBuddy = <A, E>(
  use: (fake: FakeGateway, buddy: Buddy) => Effect.Effect<A, E, JournalLines>,
  options: Parameters<typeof makeFakeGateway>[0] = {}
) =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway(options)
    return yield* Effect.gen(function*() {
      const buddy = { signIn: yield* SignIn, status: yield* Status }
      return yield* use(fake, buddy)
    }).pipe(Effect.provide(buddyLayer(fake).pipe(Layer.orDie)))
  }).pipe(Effect.scoped)

interface Recording {
  readonly name: string
  readonly response?: { readonly body?: unknown }
}
const recordings = new Map(
  (JSON.parse(readFileSync(recordingsFileUrl, "utf8")) as { exchanges: ReadonlyArray<Recording> }).exchanges.map((
    r
  ) => [r.name, r])
)
/** A text Hermes answered in a recorded exchange: `detail` of a failure, `error_message` of a poll. */
const recordedText = (name: string, member: "detail" | "error_message"): string => {
  const body = recordings.get(name)?.response?.body
  const text = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[member] : undefined
  if (typeof text !== "string") throw new Error(`no ${member} recorded in "${name}"`)
  return text
}

const IDENTIFY_LINE = "{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}\n"
const START = "POST /api/providers/oauth/openai-codex/start"
const POLL = "GET /api/providers/oauth/openai-codex/poll/<id>"
const CANCEL = "DELETE /api/providers/oauth/sessions/<id>"
const SIGN_OUT = "DELETE /api/providers/oauth/openai-codex"

/** Waits, in real time, until the start request has reached the fake (its deadline is armed by then). */
const untilStartReceived = (fake: FakeGateway) =>
  untilReceived(fake, httpRequest("POST", "/api/providers/oauth/openai-codex/start"), START)

const httpLines = (fake: FakeGateway) =>
  fake.received.filter((entry): entry is Extract<Received, { channel: "http" }> => entry.channel === "http").map((
    entry
  ) => `${entry.method} ${entry.path.replace(/\/(poll|sessions)\/[^/]+$/, "/$1/<id>")}`)

const line = (operation: string, outcome: string, reason?: string) =>
  JSON.stringify({ scope: "buddy-sign-in", operation, outcome, ...(reason === undefined ? {} : { reason }) })

const reasonOf = (error: unknown) => {
  const { _tag, reason } = error as { readonly _tag: string; readonly reason: string }
  return { _tag, reason }
}
const refusal = <A>(effect: Effect.Effect<A, { readonly _tag: string; readonly reason: string }>) =>
  Effect.map(Effect.flip(effect), reasonOf)

/** Every way an answer can be shown: its JSON and its string form. */
const rendered = (answers: ReadonlyArray<unknown>) =>
  answers.map((answer) => `${JSON.stringify(answer)} ${String(answer)}`).join("\n")

/** Hermes's text reached neither the journal nor any answer. */
const kept = (text: string, answers: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    expect((yield* journalLines).join("\n")).not.toContain(text)
    expect(rendered(answers)).not.toContain(text)
  })

const unavailable = (reason: string) => ({ _tag: "Unavailable", reason })

describe("a gateway whose API listener ended (identify \"failed\", fact 12)", () => {
  it.live("is not ready: a status read stops at identify, before any ticket is minted", () =>
    withBuddy((fake, { status }) =>
      Effect.gen(function*() {
        expect(yield* status.read).toStrictEqual({ state: "unknown", reason: "not-ready" })
        expect(fake.received).toStrictEqual([{ channel: "control", line: IDENTIFY_LINE }])
        expect(fake.ticketsMinted).toStrictEqual([])
      }), { state: "failed" }))

  it.live("refuses a start and a sign-out as not-ready, sending nothing past identify", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        expect(yield* refusal(signIn.start)).toStrictEqual(unavailable("not-ready"))
        expect(yield* refusal(signIn.signOut)).toStrictEqual(unavailable("not-ready"))
        expect(fake.received).toStrictEqual([
          { channel: "control", line: IDENTIFY_LINE },
          { channel: "control", line: IDENTIFY_LINE }
        ])
        expect(fake.ticketsMinted).toStrictEqual([])
        expect(fake.signedIn).toBe(true)
        expect(yield* journalLines).toStrictEqual([
          line("start", "unavailable", "not-ready"),
          line("sign-out", "unavailable", "not-ready")
        ])
      }), { state: "failed", signedIn: true }))

  it.live("keeps a held sign-in while the listener is gone, and polls it again once the gateway is ready", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.setState("failed")
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual(unavailable("not-ready"))
        expect(yield* refusal(signIn.cancel(started.handle))).toStrictEqual(unavailable("not-ready"))
        expect(yield* signIn.current).toBe("pending")
        fake.setState("ready")
        expect(yield* signIn.poll(started.handle)).toStrictEqual(expect.objectContaining({ state: "pending" }))
        expect(httpLines(fake)).toStrictEqual([START, POLL])
        expect(fake.sessions()).toStrictEqual([expect.objectContaining({ inMap: true, cancelled: false })])
      })
    ))
})

const START_FAILURES = [
  "start openai-codex when the issuer answers 503 with an empty body -> 500",
  "start openai-codex when the issuer answers 403 naming device-code authorization -> 500",
  "start openai-codex when the issuer is unreachable -> 500",
  "start openai-codex when the issuer answers 200 without user_code -> 500"
]
const START_TIMED_OUT = "start openai-codex when the issuer does not answer within 10 s -> 504"

describe("a start Hermes answers with its own failure (fact 8)", () => {
  for (const name of START_FAILURES) {
    it.live(`"${name}" is unavailable http-error, holds nothing, and its detail is shown nowhere`, () =>
      withBuddy((fake, { signIn }) =>
        Effect.gen(function*() {
          const detail = recordedText(name, "detail")
          fake.fault("start", { kind: "start-failed", detail }, 1)
          const answers: Array<unknown> = [yield* Effect.flip(signIn.start)]
          expect(reasonOf(answers[0])).toStrictEqual(unavailable("http-error"))
          expect(yield* signIn.current).toBe("none")
          expect(httpLines(fake)).toStrictEqual([START])
          expect(yield* journalLines).toStrictEqual([line("start", "unavailable", "http-error")])
          yield* kept(detail, answers)
          // Nothing held, so the next start goes ahead; the errored session stays Hermes's own.
          expect((yield* signIn.start).state).toBe("pending")
          expect(fake.sessions().map((session) => session.status)).toStrictEqual(["error", "pending"])
        })
      ))
  }

  it.live(`"${START_TIMED_OUT}" is unavailable http-error and holds nothing`, () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "start-timed-out" }, 1)
        const answers: Array<unknown> = [yield* Effect.flip(signIn.start)]
        expect(reasonOf(answers[0])).toStrictEqual(unavailable("http-error"))
        expect(yield* signIn.current).toBe("none")
        expect(yield* journalLines).toStrictEqual([line("start", "unavailable", "http-error")])
        yield* kept(recordedText(START_TIMED_OUT, "detail"), answers)
        expect((yield* signIn.start).state).toBe("pending")
      })
    ))

  // On the TestClock: the start is on the wire before the clock moves, and its answer is held
  // back by the fake in real time, so the deadline is moved past by hand, never waited for.
  it.effect("the 504 that ends Hermes's own wait for the code still arrives within buddy's start deadline", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "late", ms: 300, then: { kind: "start-timed-out" } }, 1)
        const fiber = yield* Effect.fork(refusal(signIn.start))
        yield* untilStartReceived(fake)
        // Past the API deadline, 1 ms short of the start's own: the start is still waiting.
        yield* TestClock.adjust(Duration.subtract(testDeadlines.start, "1 millis"))
        expect(yield* Fiber.join(fiber)).toStrictEqual(unavailable("http-error"))
        expect(yield* signIn.current).toBe("none")
      })
    ))

  it.effect("a start answered only after buddy's start deadline is held without a holder: Hermes had registered it", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "late", ms: 60_000 }, 1)
        const fiber = yield* Effect.fork(refusal(signIn.start))
        yield* untilStartReceived(fake)
        yield* TestClock.adjust(testDeadlines.start)
        expect(yield* Fiber.join(fiber)).toStrictEqual(unavailable("timeout"))
        expect(fake.sessions()).toStrictEqual([expect.objectContaining({ status: "pending", inMap: true })])
        expect(yield* signIn.current).toBe("pending")
        expect(yield* refusal(signIn.start)).toStrictEqual({ _tag: "Blocked", reason: "sign-in-running" })
        expect(httpLines(fake)).toStrictEqual([START])
      })
    ))
})

const POLL_ERRORS = [
  "poll after the issuer answers 400 access_denied -> error",
  "poll after the issuer answers 400 expired_token -> error",
  "poll after the issuer answers 500 -> error",
  "poll after the issuer answers 200 with a non-JSON body -> error",
  "poll after the issuer answers 200 without authorization_code -> error",
  "poll after approve when the token exchange answers 400 -> error",
  "poll after six refused token polls -> error"
]
const POLL_EXPIRED = "poll 15 min after start (issuer kept answering 403 expired_token) -> expired"

describe("a poll that reports Hermes's own ending (facts 6, 7)", () => {
  it.live("a code refused at the issuer with 403 polls pending, then ends expired at Hermes's deadline, its text shown nowhere", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        const answers: Array<unknown> = [yield* signIn.poll(started.handle)]
        expect(answers[0]).toStrictEqual(expect.objectContaining({ state: "pending" }))
        expect(fake.expire(fake.sessions()[0]!.id)).toBe(true)
        answers.push(yield* signIn.poll(started.handle))
        expect(answers[1]).toStrictEqual({ state: "expired" })
        expect(yield* signIn.current).toBe("none")
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL])
        expect(yield* journalLines).toStrictEqual([
          line("start", "pending"),
          line("poll", "pending"),
          line("poll", "expired")
        ])
        yield* kept(recordedText(POLL_EXPIRED, "error_message"), answers)
      })
    ))

  for (const name of POLL_ERRORS) {
    it.live(`"${name}" ends the sign-in failed on Hermes's word, with no cancel and its text shown nowhere`, () =>
      withBuddy((fake, { signIn }) =>
        Effect.gen(function*() {
          const message = recordedText(name, "error_message")
          const started = yield* signIn.start
          expect(fake.error(fake.sessions()[0]!.id, message)).toBe(true)
          const answers: Array<unknown> = [yield* signIn.poll(started.handle)]
          expect(answers[0]).toStrictEqual({ state: "failed" })
          expect(yield* signIn.current).toBe("none")
          expect(httpLines(fake)).toStrictEqual([START, POLL])
          expect((yield* journalLines).at(-1)).toBe(line("poll", "failed"))
          yield* kept(message, answers)
        })
      ))
  }
})

describe("the dashboard app failing to load (fact 13)", () => {
  it.live("a status read is unknown http-error, its ticket unspent, and the next read loads it again", () =>
    withBuddy((fake, { status }) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "dashboard-unavailable" }, 1)
        expect(yield* status.read).toStrictEqual({ state: "unknown", reason: "http-error" })
        expect(fake.ticketsMinted).toHaveLength(1)
        expect(fake.ticketsRedeemed).toStrictEqual([])
        expect(yield* status.read).toStrictEqual({ state: "waits" })
        expect(fake.ticketsRedeemed).toStrictEqual([fake.ticketsMinted[1]])
      })
    ))

  it.live("a start is unavailable http-error, sent once, and nothing starts on either side", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "dashboard-unavailable" }, 1)
        expect(yield* refusal(signIn.start)).toStrictEqual(unavailable("http-error"))
        expect(httpLines(fake)).toStrictEqual([START])
        expect(fake.ticketsRedeemed).toStrictEqual([])
        expect(fake.sessions()).toStrictEqual([])
        expect(yield* signIn.current).toBe("none")
        expect(yield* journalLines).toStrictEqual([line("start", "unavailable", "http-error")])
      })
    ))

  it.live("a poll is unavailable and a cancel blocked: the sign-in stays held and its session untouched", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "dashboard-unavailable" }, 1)
        fake.fault("cancel", { kind: "dashboard-unavailable" }, 1)
        expect(yield* refusal(signIn.poll(started.handle))).toStrictEqual(unavailable("http-error"))
        expect(yield* refusal(signIn.cancel(started.handle))).toStrictEqual({
          _tag: "Blocked",
          reason: "sign-in-running"
        })
        expect(yield* signIn.current).toBe("pending")
        expect(fake.sessions()).toStrictEqual([expect.objectContaining({ inMap: true, cancelled: false })])
        expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: "cancelled" })
        // Each cancel polls first (C4.7); the status read polls too (C5).
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL, CANCEL, POLL, POLL, CANCEL])
      })
    ))
})

describe("ticket capacity exhausted (fact 11)", () => {
  it.live("with 1024 unexpired tickets outstanding a status read and a start are refused, and no request reaches the API", () =>
    withBuddy((fake, { signIn, status }) =>
      Effect.gen(function*() {
        yield* Effect.promise(async () => {
          for (let batch = 0; batch < 1024 / 32; batch++) {
            await Promise.all(Array.from({ length: 32 }, () => mint(fake)))
          }
        })
        expect(yield* status.read).toStrictEqual({ state: "unknown", reason: "refused" })
        expect(yield* refusal(signIn.start)).toStrictEqual(unavailable("refused"))
        expect(httpLines(fake)).toStrictEqual([])
        expect(fake.ticketsMinted).toHaveLength(1024)
        expect(yield* journalLines).toStrictEqual([line("start", "unavailable", "refused")])
        fake.expireTickets()
        expect(yield* status.read).toStrictEqual({ state: "waits" })
      })
    ))
})

describe("a sign-out Hermes cannot carry out (fact 10)", () => {
  it.live("an unreadable auth store is unavailable http-error, signs nothing out, and its text is shown nowhere", () =>
    withBuddy((fake, { signIn }) =>
      Effect.gen(function*() {
        fake.fault("sign-out", { kind: "auth-store-unreadable" }, 1)
        const answers: Array<unknown> = [yield* Effect.flip(signIn.signOut)]
        expect(reasonOf(answers[0])).toStrictEqual(unavailable("http-error"))
        expect(fake.signedIn).toBe(true)
        expect(httpLines(fake)).toStrictEqual([SIGN_OUT])
        expect(yield* journalLines).toStrictEqual([line("sign-out", "unavailable", "http-error")])
        yield* kept(recordedText("sign-out when auth.json cannot be read -> 500", "detail"), answers)
        yield* kept("Failed to remove", answers)
      }), { signedIn: true }))
})
