// `@lazurio/buddy/testing` used as a Launchpad's own @effect/vitest suite uses it (D53): buddy's layers on
// the fake gateway, each control changing what BuddyHttpApp, SignIn and Status answer, the journal read
// back as lines, and the simulator started from code. test/package.test.ts runs docs/testing.md's
// example the same way from the packed tarball.
import * as HttpApp from "@effect/platform/HttpApp"
import { describe, expect, it, layer } from "@effect/vitest"
import { BuddyHttpApp, BuddyLive, type BuddyServices, JournalSilent, SignIn, Status } from "@lazurio/buddy"
import {
  BuddyOnFakeGateway,
  FakeGateway,
  FakeGatewayError,
  journalLines,
  makeSimulator,
  startSimulator
} from "@lazurio/buddy/testing"
import { Duration, Effect } from "effect"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pendingSession } from "../../src/testing/gateway.js"

const LAUNCHPAD = "https://launchpad.example"
const fields = {
  launchpadOrigin: LAUNCHPAD,
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal"
} as const

/** What the app answers, mounted whole (C6's /api/buddy) in a host that speaks web Requests. */
const ask = (method: "GET" | "POST", route: string, body: unknown = {}) =>
  Effect.gen(function*() {
    const handler = HttpApp.toWebHandlerRuntime(yield* Effect.runtime<BuddyServices>())(BuddyHttpApp)
    const request = method === "GET"
      ? new Request(`${LAUNCHPAD}/api/buddy${route}`)
      : new Request(`${LAUNCHPAD}/api/buddy${route}`, {
        method,
        headers: { origin: LAUNCHPAD, "sec-fetch-site": "same-origin", "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    const response = yield* Effect.promise(() => handler(request))
    return [response.status, yield* Effect.promise(() => response.json() as Promise<unknown>)] as const
  })

/** A sign-in started through the app: its handle. */
const started = Effect.map(ask("POST", "/sign-in/start"), ([status, body]) => {
  expect([status, body]).toMatchObject([200, { kind: "sign-in", state: "pending" }])
  return (body as { readonly handle: string }).handle
})
const poll = (handle: string) => ask("POST", "/sign-in/poll", { handle })
const cancel = (handle: string) => ask("POST", "/sign-in/cancel", { handle })

/** The journal's lines, parsed. */
const journal = Effect.map(journalLines, (lines) => lines.map((line) => JSON.parse(line) as unknown))
const line = (operation: string, outcome: string, reason?: string) => ({
  scope: "buddy-sign-in",
  operation,
  outcome,
  ...(reason === undefined ? {} : { reason })
})

/** Every request the fake received on Hermes's start route. */
const startsReceived = Effect.map(
  Effect.flatMap(FakeGateway, (fake) => fake.received),
  (received) => received.filter((entry) => entry.channel === "http" && entry.path.endsWith("/start"))
)

describe("a fake gateway per test (Effect.provide)", () => {
  it.scoped("outdated: a start is blocked hermes-outdated and never reaches Hermes's start route", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      yield* fake.outdated()
      expect(yield* ask("POST", "/sign-in/start")).toStrictEqual([409, { kind: "blocked", reason: "hermes-outdated" }])
      expect(yield* startsReceived).toStrictEqual([])
      expect(yield* journal).toStrictEqual([line("start", "blocked", "hermes-outdated")])
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))

  it.scoped("outdated under a held sign-in: its cancel and a sign-out are blocked hermes-outdated, nothing changed", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      const handle = yield* started
      yield* fake.outdated()
      expect(yield* cancel(handle)).toStrictEqual([409, { kind: "blocked", reason: "hermes-outdated" }])
      expect(yield* ask("POST", "/sign-out")).toStrictEqual([409, { kind: "blocked", reason: "hermes-outdated" }])
      expect(yield* (yield* SignIn).current).toBe("pending")
      expect(fake.controls.signedIn).toBe(false)
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))

  it.scoped("an outdated Hermes from the start: the setup's contract", () =>
    Effect.gen(function*() {
      expect(yield* ask("POST", "/sign-in/start")).toStrictEqual([409, { kind: "blocked", reason: "hermes-outdated" }])
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields, { contract: false }))))

  it.scoped("stop: Buddy's state is unknown, not-running, and a start is unavailable; restart: he is read again", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      yield* fake.stop()
      expect(yield* (yield* Status).read).toStrictEqual({ state: "unknown", reason: "not-running" })
      expect(yield* ask("GET", "")).toStrictEqual([
        200,
        { kind: "buddy", state: "unknown", reason: "not-running", signIn: { state: "none" }, locale: "en" }
      ])
      expect(yield* ask("POST", "/sign-in/start")).toStrictEqual([
        503,
        { error: "buddy-unavailable", reason: "not-running" }
      ])
      yield* fake.restart()
      expect(yield* (yield* Status).read).toStrictEqual({ state: "waits" })
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))

  it.scoped("restart: the new instance does not hold the sign-in, and under the contract that proves it lost", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      const handle = yield* started
      yield* fake.restart()
      expect(yield* poll(handle)).toStrictEqual([200, { kind: "sign-in", state: "lost" }])
      expect(yield* journal).toStrictEqual([line("start", "pending"), line("poll", "lost")])
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))

  it.scoped("cancelUnconfirmed: the cancel is blocked sign-in-running and changes nothing; confirmed, it cancels", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      const handle = yield* started
      yield* fake.cancelUnconfirmed(1)
      expect(yield* cancel(handle)).toStrictEqual([409, { kind: "blocked", reason: "sign-in-running" }])
      expect(yield* poll(handle)).toMatchObject([200, { kind: "sign-in", state: "pending" }])
      expect(fake.controls.sessions()).toMatchObject([{ status: "pending", inMap: true, cancelled: false }])
      expect(yield* cancel(handle)).toStrictEqual([200, { kind: "sign-in", state: "cancelled" }])
      expect(yield* journal).toStrictEqual([
        line("start", "pending"),
        line("cancel", "blocked", "sign-in-running"),
        line("poll", "pending"),
        line("cancel", "cancelled")
      ])
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))

  it.scopedLive("slow: an answer later than the deadline is the closed reason timeout, and it was asked once", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      yield* fake.slow("providers", "5 seconds")
      expect(yield* (yield* Status).read).toStrictEqual({ state: "unknown", reason: "timeout" })
      const asked = (yield* fake.received).filter((entry) => entry.channel === "http")
      expect(asked.map((entry) => entry.channel === "http" && entry.path)).toStrictEqual(["/api/providers/oauth"])
    }).pipe(Effect.provide(BuddyOnFakeGateway({ ...fields, deadlines: { api: Duration.millis(200) } }))))

  it.scoped("approve, deny or expire with no pending sign-in fails with FakeGatewayError", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      for (const control of [fake.approve, fake.deny, fake.expire]) {
        expect(yield* Effect.flip(control())).toStrictEqual(new FakeGatewayError({ reason: "no-pending-sign-in" }))
      }
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))

  it.scoped("a fake in a private temporary home, removed with the scope", () =>
    Effect.gen(function*() {
      const home = yield* Effect.scoped(Effect.map(FakeGateway, (fake) => fake.home)).pipe(
        Effect.provide(FakeGateway.layer())
      )
      expect(home.startsWith(os.tmpdir())).toBe(true)
      expect(existsSync(home)).toBe(false)
    }))
})

describe("the simulator started from code", () => {
  it.scopedLive("approves each sign-in after the delay, as npm run demo's does; its temporary home goes with the scope", () =>
    Effect.gen(function*() {
      const home = yield* Effect.scoped(Effect.gen(function*() {
        const simulator = yield* makeSimulator({ approveAfter: "200 millis" })
        const signIn = yield* Effect.provide(
          SignIn,
          BuddyLive({ ...fields, hermesHome: simulator.home }, JournalSilent)
        )
        const { handle } = yield* signIn.start
        expect(yield* signIn.poll(handle)).toMatchObject({ state: "pending" })
        // Polled as a page does, until Hermes ends it: a busy machine may approve later than 200 ms.
        const ended = yield* signIn.poll(handle).pipe(
          Effect.delay("50 millis"),
          Effect.repeat({ until: (view) => view.state !== "pending" }),
          Effect.timeout("5 seconds")
        )
        expect(ended).toStrictEqual({ state: "signed-in" })
        return simulator.home
      }))
      expect(existsSync(home)).toBe(false)
    }))

  it.live("started and stopped by a caller outside Effect, approved by hand, on a home it leaves in place", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(os.tmpdir(), "buddy-kit-"))
      const home = path.join(dir, "hermes")
      const simulator = yield* Effect.promise(() => startSimulator({ home, signedIn: true }))
      const layer = BuddyLive({ ...fields, hermesHome: home }, JournalSilent)
      expect(yield* Effect.provide(Effect.flatMap(Status, (status) => status.read), layer)).toStrictEqual({
        state: "works"
      })
      expect(simulator.approve()).toBe(false)
      yield* Effect.promise(simulator.stop)
      expect(existsSync(home)).toBe(true)
      expect(existsSync(path.join(home, "gateway.sock"))).toBe(false)
      rmSync(dir, { recursive: true, force: true })
    }))
})

describe("the sign-in a control ends", () => {
  it.scoped("is the one pending on Hermes, and none once Hermes ended it", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      expect(pendingSession(fake.controls)).toBeUndefined()
      const signIn = yield* SignIn
      yield* signIn.start
      const [session] = fake.controls.sessions()
      expect(pendingSession(fake.controls)?.id).toBe(session?.id)
      yield* fake.deny()
      // Denied, not cancelled: Hermes's worker can end it no more, so no control may reach it.
      expect(fake.controls.sessions().map((s) => [s.status, s.cancelled])).toStrictEqual([["denied", false]])
      expect(pendingSession(fake.controls)).toBeUndefined()
      expect(yield* Effect.flip(fake.approve())).toStrictEqual(new FakeGatewayError({ reason: "no-pending-sign-in" }))
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))

  it.scoped("is never one its instance marked cancelled when it went away", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      yield* (yield* SignIn).start
      yield* fake.restart()
      expect(fake.controls.sessions().map((s) => [s.status, s.cancelled])).toStrictEqual([["pending", true]])
      expect(pendingSession(fake.controls)).toBeUndefined()
    }).pipe(Effect.provide(BuddyOnFakeGateway(fields))))
})

// One fake and one BuddyLive for the block, as a Launchpad's suite shares them; each test ends the
// sign-in it starts. Last in the file: `layer` changes the `it` the tests after it use (P10).
layer(BuddyOnFakeGateway(fields))("one fake gateway for a block (layer)", (it) => {
  it.scoped("approve: the poll answers signed-in, Buddy works, and the journal says so", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      const handle = yield* started
      yield* fake.approve()
      expect(yield* poll(handle)).toStrictEqual([200, { kind: "sign-in", state: "signed-in" }])
      expect(yield* ask("GET", "")).toStrictEqual([
        200,
        { kind: "buddy", state: "works", signIn: { state: "none" }, locale: "en" }
      ])
      expect(yield* journal).toStrictEqual([line("start", "pending"), line("poll", "signed-in")])
      expect(yield* ask("POST", "/sign-out")).toStrictEqual([200, { kind: "sign-out", state: "signed-out" }])
    }))

  it.scoped("deny: the sign-in ends refused, through SignIn as through the app", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      const signIn = yield* SignIn
      const { handle } = yield* signIn.start
      yield* fake.deny()
      expect(yield* signIn.poll(handle)).toStrictEqual({ state: "refused" })
      expect(yield* poll(handle)).toStrictEqual([200, { kind: "sign-in", state: "refused" }])
      expect(yield* (yield* Status).read).toStrictEqual({ state: "waits" })
    }))

  it.scoped("expire: the sign-in ends expired, and the journal has every line of the block so far", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGateway
      const handle = yield* started
      yield* fake.expire()
      expect(yield* poll(handle)).toStrictEqual([200, { kind: "sign-in", state: "expired" }])
      expect((yield* journal).slice(-2)).toStrictEqual([line("start", "pending"), line("poll", "expired")])
      expect(yield* journal).toHaveLength(8)
    }))
})
