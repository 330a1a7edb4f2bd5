// Endings that are true for the person (issue 16; C4.7, C5, C4.1): every cancel polls first, so an
// approval Hermes saved before it is the ending and nothing is cancelled (fixtures fact 14); a
// status read polls the held sign-in, so a page that lost its handle never reads a stale pending;
// every displaced holder reads its own ending, the last 64 kept; and while another process holds
// the sign-in lock, or it cannot be taken, start and sign-out send nothing to Hermes. Across real
// processes: test/boundary/holder-lock.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Ref } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { type GatewayError, gatewayError } from "../../src/services/GatewayError.js"
import { Cancel, HermesApi } from "../../src/services/HermesApi.js"
import { type HolderBusy, lockUnavailable } from "../../src/services/HolderBusy.js"
import { HolderLock, HolderLockMemory } from "../../src/services/HolderLock.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { buddyServices } from "../../src/services/layers.js"
import { Blocked, endingsKept, SignIn, Unavailable } from "../../src/services/SignIn.js"
import { buddyLayer, journalLines, testDeadlines } from "../support/buddy.js"
import { CANCEL, httpLines, POLL, SIGN_OUT, type SignInService, START, withSignIn } from "./support/sign-in.js"

const onlyId = (fake: FakeGateway) => {
  const [session] = fake.sessions()
  expect(fake.sessions()).toHaveLength(1)
  return session!.id
}

const settle: Array<[string, (fake: FakeGateway, id: string) => boolean, string]> = [
  ["approved and saved", (fake, id) => fake.approve(id), "signed-in"],
  ["expired", (fake, id) => fake.expire(id), "expired"],
  ["denied", (fake, id) => fake.deny(id), "refused"],
  ["failed", (fake, id) => fake.error(id), "failed"]
]

describe("a cancel polls first (C4.7)", () => {
  it.live("the fake gateway's cancel answers {ok:true} for a session already approved and saved, as Hermes's does (fact 14)", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { api, signIn } = yield* Effect.all({ api: HermesApi, signIn: SignIn }).pipe(
        Effect.provide(buddyLayer(fake).pipe(Layer.orDie))
      )
      yield* signIn.start
      const id = onlyId(fake)
      expect(fake.approve(id)).toBe(true)
      const answer = yield* api.cancel(id)
      expect(answer.value).toStrictEqual(Cancel.Cancelled({ sessionId: id }))
      expect(fake.signedIn).toBe(true)
      expect(fake.sessions()).toStrictEqual([expect.objectContaining({ status: "approved", inMap: false })])
    }).pipe(Effect.scoped))

  for (const [what, act, ending] of settle) {
    it.live(`an explicit cancel of a sign-in Hermes already ${what} answers ${ending} and cancels nothing`, () =>
      withSignIn((fake, signIn) =>
        Effect.gen(function*() {
          const started = yield* signIn.start
          expect(act(fake, onlyId(fake))).toBe(true)
          expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: ending })
          expect(httpLines(fake)).toStrictEqual([START, POLL])
          expect(fake.sessions()[0]).toMatchObject({ cancelled: false })
          expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: ending })
          expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: ending })
          expect(httpLines(fake)).toStrictEqual([START, POLL])
        })
      ))
  }

  it.live("a replacement start after the person approved: the replaced handle reads signed-in, and Buddy stays signed in", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const first = yield* signIn.start
        expect(fake.approve(onlyId(fake))).toBe(true)
        const second = yield* signIn.start
        expect(httpLines(fake)).toStrictEqual([START, POLL, START])
        expect(yield* signIn.poll(first.handle)).toStrictEqual({ state: "signed-in" })
        expect(yield* signIn.poll(second.handle)).toMatchObject({ state: "pending" })
        expect(fake.signedIn).toBe(true)
      })
    ))

  it.live("a sign-out after the person approved ends the held sign-in as signed-in, then signs out", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        expect(fake.approve(onlyId(fake))).toBe(true)
        expect(yield* signIn.signOut).toStrictEqual({ state: "signed-out" })
        expect(httpLines(fake)).toStrictEqual([START, POLL, SIGN_OUT])
        expect(fake.signedIn).toBe(false)
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "signed-in" })
      })
    ))

  it.live("a cancel whose poll gets no answer cancels nothing and keeps the sign-in held", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "status", status: 500 }, 1)
        expect(yield* Effect.flip(signIn.cancel(started.handle))).toMatchObject({
          _tag: "Unavailable",
          reason: "http-error"
        })
        expect(httpLines(fake)).toStrictEqual([START, POLL])
        expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: "cancelled" })
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL, CANCEL])
      })
    ))
})

describe("a cancel's poll and cancel, further", () => {
  it.live("a poll answer of no known shape goes on to the cancel, and a confirmed cancel ends it as cancelled", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "reply", body: { status: "weird" } }, 1)
        expect(yield* signIn.cancel(started.handle)).toStrictEqual({ state: "cancelled" })
        expect(httpLines(fake)).toStrictEqual([START, POLL, CANCEL])
      })
    ))

  it.live("a gateway that fails between the poll and the cancel is unavailable, and the sign-in stays held", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        // The poll's identify passes; the cancel's is reset.
        fake.fault("identify", { kind: "late", ms: 1 }, 1)
        fake.fault("identify", { kind: "reset" }, 1)
        expect(yield* Effect.flip(signIn.cancel(started.handle))).toMatchObject({ _tag: "Unavailable", reason: "lost" })
        expect(yield* signIn.poll(started.handle)).toMatchObject({ state: "pending" })
      })
    ))
})

describe("a status read polls the held sign-in (C5)", () => {
  it.live("a status read after a restart under the contract ends the held sign-in as lost", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.restart()
        expect(yield* signIn.current).toBe("none")
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "lost" })
      })
    ))

  it.live("after the person approves, the next status read releases the sign-in: none, and the holder reads signed-in", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        expect(yield* signIn.current).toBe("pending")
        expect(fake.approve(onlyId(fake))).toBe(true)
        expect(yield* signIn.current).toBe("none")
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL])
        // Released: a read asks Hermes nothing more, and the holder reads its ending without asking.
        expect(yield* signIn.current).toBe("none")
        expect(yield* signIn.poll(started.handle)).toStrictEqual({ state: "signed-in" })
        expect(httpLines(fake)).toStrictEqual([START, POLL, POLL])
      })
    ))

  it.live("a read that joins the next look while the look on its way ends the sign-in polls nothing itself", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        yield* signIn.start
        expect(fake.approve(onlyId(fake))).toBe(true)
        // The first read's poll is held back: the second read arrives while the sign-in is still held,
        // and joins the look after it, which then finds nothing held (D47.12).
        fake.fault("poll", { kind: "late", ms: 300 }, 1)
        const first = yield* Effect.fork(signIn.current)
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        const second = yield* Effect.fork(signIn.current)
        expect(yield* Fiber.join(first)).toBe("none")
        expect(yield* Fiber.join(second)).toBe("none")
        expect(httpLines(fake)).toStrictEqual([START, POLL])
      })
    ))

  it.live("a status read whose poll fails or reads pending keeps the sign-in held", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "status", status: 500 }, 1)
        expect(yield* signIn.current).toBe("pending")
        expect(yield* signIn.current).toBe("pending")
        expect(yield* signIn.poll(started.handle)).toMatchObject({ state: "pending" })
      })
    ))

  it.live("a status read during an operation does not wait for it and asks Hermes nothing itself", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* signIn.start
        fake.fault("poll", { kind: "late", ms: 300 }, 1)
        const polling = yield* Effect.fork(signIn.poll(started.handle))
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        expect(yield* signIn.current).toBe("pending")
        expect(httpLines(fake)).toStrictEqual([START, POLL])
        yield* polling.await
      })
    ))
})

describe("every displaced holder reads its own ending", () => {
  it.live("30 concurrent starts leave one live session, and each of the 29 displaced handles reads cancelled", () =>
    withSignIn((fake, signIn) =>
      Effect.gen(function*() {
        const started = yield* Effect.all(Array.from({ length: 30 }, () => signIn.start), { concurrency: "unbounded" })
        expect(fake.sessions().filter((session) => session.inMap && !session.cancelled)).toHaveLength(1)
        const states = yield* Effect.forEach(started, (each) =>
          Effect.map(Effect.either(signIn.poll(each.handle)), (polled) =>
            polled._tag === "Right" ? polled.right.state : polled.left.reason))
        expect(states.filter((state) =>
          state === "pending"
        )).toHaveLength(1)
        expect(states.filter((state) => state === "cancelled")).toHaveLength(29)
      })
    ))

  it.live(`the last ${endingsKept} endings are kept: the one before them reads sign-in-unknown`, () =>
    withSignIn((_fake, signIn) =>
      Effect.gen(function*() {
        const handles: Array<string> = []
        for (let index = 0; index < endingsKept + 1; index++) {
          const started = yield* signIn.start
          handles.push(started.handle)
          yield* signIn.cancel(started.handle)
        }
        expect(yield* Effect.flip(signIn.poll(handles[0]!))).toMatchObject({ reason: "sign-in-unknown" })
        expect(yield* signIn.poll(handles[1]!)).toStrictEqual({ state: "cancelled" })
        expect(yield* signIn.poll(handles.at(-1)!)).toStrictEqual({ state: "cancelled" })
      })
    ))
})

describe("another process holds the sign-in lock (C4.1)", () => {
  const withOther = <A, E>(
    use: (fake: FakeGateway, signIn: SignInService) => Effect.Effect<A, E>,
    heldHome: (home: string) => string = (home) => home
  ) =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const others = yield* Ref.make<ReadonlyMap<string, number>>(new Map([[heldHome(fake.home), 4242]]))
      const layer = buddyServices(HolderLockMemory(others)).pipe(
        Layer.provideMerge(JournalCapture),
        Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home, deadlines: testDeadlines })),
        Layer.orDie
      )
      return yield* Effect.flatMap(SignIn, (signIn) => use(fake, signIn)).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped)

  it.live("start and sign-out are blocked sign-in-running, naming the holder, and nothing reaches Hermes", () =>
    withOther((fake, signIn) =>
      Effect.gen(function*() {
        for (const operation of [Effect.asVoid(signIn.start), Effect.asVoid(signIn.signOut)]) {
          const refusal = yield* Effect.flip(operation)
          expect(refusal).toMatchObject({ _tag: "Blocked", reason: "sign-in-running" })
          expect(refusal._tag === "Blocked" ? refusal.lock?.holder : undefined).toStrictEqual(Option.some(4242))
        }
        expect(fake.received).toStrictEqual([])
        expect(fake.signedIn).toBe(true)
        // The other process's sign-in is said as pending here too, as `buddy status` says it (D52).
        expect(yield* signIn.current).toBe("pending")
      })
    ))

  it.live("a lock another process holds for another Hermes home blocks nothing here", () =>
    withOther((_fake, signIn) =>
      Effect.gen(function*() {
        expect((yield* signIn.start).state).toBe("pending")
      }), (home) => `${home}-other`))
})

describe("a holder lock that cannot be taken (C4.1, D39)", () => {
  /** SignIn whose holder lock's every take fails with `refusal`; the journal read back after. */
  const withLock = <A, E>(
    refusal: HolderBusy | GatewayError,
    use: (fake: FakeGateway, signIn: SignInService) => Effect.Effect<A, E>
  ) =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const lock = Layer.succeed(
        HolderLock,
        HolderLock.of({ take: Effect.fail(refusal), release: Effect.void, holder: Effect.succeedNone })
      )
      const layer = buddyServices(lock).pipe(
        Layer.provideMerge(JournalCapture),
        Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home, deadlines: testDeadlines })),
        Layer.orDie
      )
      return yield* Effect.flatMap(SignIn, (signIn) => Effect.zip(use(fake, signIn), journalLines)).pipe(
        Effect.provide(layer)
      )
    }).pipe(Effect.scoped)

  /** The journal's line, byte for byte. */
  const journaled = (operation: string, outcome: string, reason: string) =>
    `{"scope":"buddy-sign-in","operation":"${operation}","outcome":"${outcome}","reason":"${reason}"}`

  it.live("start and sign-out are blocked lock-unavailable, never sign-in-running, keeping why for the words; nothing reaches Hermes", () =>
    Effect.gen(function*() {
      const inTheWay = lockUnavailable("/home/buddy/.hermes/.buddy-lock", "foreign", { found: 65534 })
      const [, journal] = yield* withLock(inTheWay, (fake, signIn) =>
        Effect.gen(function*() {
          for (const operation of [Effect.asVoid(signIn.start), Effect.asVoid(signIn.signOut)]) {
            const refusal = yield* Effect.flip(operation)
            expect(refusal).toStrictEqual(new Blocked({ reason: "lock-unavailable", lock: inTheWay }))
          }
          expect(fake.received).toStrictEqual([])
          expect(fake.signedIn).toBe(true)
        }))
      expect(journal).toStrictEqual([
        journaled("start", "blocked", "lock-unavailable"),
        journaled("sign-out", "blocked", "lock-unavailable")
      ])
    }))

  it.live("a home the lock finds missing or unsafe is answered unavailable with C1's reason; nothing reaches Hermes", () =>
    Effect.gen(function*() {
      for (const reason of ["not-running", "unsafe-home"] as const) {
        const [, journal] = yield* withLock(gatewayError(reason), (fake, signIn) =>
          Effect.gen(function*() {
            expect(yield* Effect.flip(signIn.start)).toStrictEqual(new Unavailable({ reason }))
            expect(yield* Effect.flip(signIn.signOut)).toStrictEqual(new Unavailable({ reason }))
            expect(fake.received).toStrictEqual([])
          }))
        expect(journal).toStrictEqual([
          journaled("start", "unavailable", reason),
          journaled("sign-out", "unavailable", reason)
        ])
      }
    }))
})
