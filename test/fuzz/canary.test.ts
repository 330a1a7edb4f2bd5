// Fuzzing for leaks (C6 journal, C7, C9): the real SignIn and Status layers against the fake
// gateway (real Unix socket, real loopback HTTP), whose answers are replaced by generated ones with a
// canary secret in every text member (and member name): session ids, tickets, instance ids, Hermes's
// details and messages, names, extra members. Every answer and refusal of a whole sign-in and status
// round, and every journal line, is serialized and must hold no canary; each answer is a value or a
// closed refusal, and a started sign-in shows only a 32-hex handle, an exact code and the exact page.
// Slower than the other properties (about two dozen real connections a run), so it runs a tenth of
// FUZZ_RUNS (at least 30): see runs.ts and docs/quality.md.
import { Cause, Effect, Exit, FastCheck, Layer, Ref } from "effect"
import { inspect } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeGatewayHandle, startFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { JournalCapture, JournalLines } from "../../src/services/Journal.js"
import { BuddyServicesLive } from "../../src/services/layers.js"
import { SignIn } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import { testDeadlines } from "../support/buddy.js"
import { blockedReasons, expectClosed, gatewayReasons } from "./support/closed.js"
import { jsonNearMiss } from "./support/mutate.js"
import { devicePage, isDeviceCode, isHandle, type Json } from "./support/oracles.js"
import { canaryRuns, params, tally, timeoutFor } from "./support/runs.js"

const fc = FastCheck

/** Every canary holds this; nothing we may show (handles, codes, the page, reasons) can. */
const marker = "cnry"

/** A canary that is also a valid session id or ticket, so it gets past the decoders. */
const secretId = fc.string({
  unit: fc.constantFrom(..."abcdefghijkmnpqrstuvwxyz0123456789-_"),
  minLength: 4,
  maxLength: 20
})
  .map((tail) => `${marker}${tail}`)

/** A canary as any text Hermes might say. */
const secret = fc.oneof(
  secretId,
  secretId.map((id) => `Hermes: token ${id} in /home/operator/.hermes/auth.json`),
  secretId.map((id) => `${id}\n`),
  secretId.map((id) => ` ${id.toUpperCase().replace("CNRY", marker)} `),
  secretId.map((id) => `{"detail":"${id}"}`)
)

const deviceCode = fc.constantFrom("ABCD-EFGHK", "WXYZ-12345", "0000-AAAAA")

/** Usually `usual`, sometimes `other`. */
const mostly = <A, B>(usual: FastCheck.Arbitrary<A>, other: FastCheck.Arbitrary<B>) =>
  fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: other, weight: 1 })
const pollStatus = fc.constantFrom("pending", "approved", "expired", "denied", "error")

/** Answers of each route in their known shapes, every free text a canary, canary members added. */
const shaped = {
  providers: fc.record({
    providers: fc.array(
      fc.record({
        id: fc.oneof(fc.constant("openai-codex"), secret),
        name: secret,
        status: fc.record({ logged_in: fc.oneof(fc.boolean(), secret), source: secret, error: secret })
      }),
      { maxLength: 3 }
    )
  }),
  start: fc.record({
    session_id: mostly(secretId, secret),
    flow: mostly(fc.constant("device_code"), secret),
    user_code: mostly(deviceCode, secret),
    verification_url: mostly(fc.constant(devicePage), secret),
    expires_in: fc.constant(900),
    poll_interval: fc.constantFrom(5, 1),
    message: secret
  }, { requiredKeys: ["session_id", "flow", "user_code", "verification_url", "expires_in", "poll_interval"] }),
  poll: fc.record({
    session_id: secretId,
    status: fc.oneof(pollStatus, pollStatus, secret),
    error_message: secret,
    detail: secret
  }, { requiredKeys: [] }),
  cancel: fc.oneof(
    fc.record({ ok: fc.boolean(), session_id: fc.oneof(secretId, secret) }),
    fc.record({ ok: fc.constant(false), message: fc.oneof(fc.constant("session not found"), secret) }),
    fc.record({ ok: fc.boolean(), message: secret, session_id: secretId })
  ),
  "sign-out": fc.record({ ok: fc.oneof(fc.boolean(), secret), message: secret, provider: secret }, {
    requiredKeys: ["ok"]
  }),
  error: fc.oneof(
    fc.record({ detail: secret }),
    fc.record({ error: secret }),
    fc.record({ error: fc.constant("gateway_not_ready"), state: secret }),
    fc.constant({ detail: "Session not found or expired" })
  )
} satisfies Record<string, FastCheck.Arbitrary<Json>>

/** A canary member added under a canary name, or a near-miss of the shape. */
const withCanaries = (answer: FastCheck.Arbitrary<Json>) =>
  fc.oneof(
    answer,
    fc.tuple(answer, secretId, secret).map(([value, name, text]): Json =>
      typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value, [name]: text } : value
    ),
    answer.chain((value) => jsonNearMiss(value, { session_id: secret, detail: secret, message: secret }))
  )

type HttpRoute = "providers" | "start" | "poll" | "cancel" | "sign-out"
type Fault = Parameters<FakeGatewayHandle["fault"]>[1]

const statuses = fc.constantFrom(200, 200, 400, 401, 404, 409, 500, 503)

/** What one HTTP route does this run: its own work, or a generated answer. */
const httpFault = (route: HttpRoute): FastCheck.Arbitrary<Fault | undefined> =>
  fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: withCanaries(shaped[route]).map((body): Fault => ({ kind: "reply", body })), weight: 4 },
    {
      arbitrary: fc.tuple(statuses, withCanaries(fc.oneof(shaped[route], shaped.error))).map((
        [status, body]
      ): Fault => ({
        kind: "status",
        status,
        body
      })),
      weight: 2
    },
    {
      arbitrary: fc.tuple(statuses, secret, fc.boolean()).map(([status, text, json]): Fault => ({
        kind: "raw",
        status,
        body: json ? JSON.stringify({ detail: text, session_id: text }) : text
      })),
      weight: 1
    }
  )

interface Plan {
  readonly http: ReadonlyArray<readonly [HttpRoute, Fault | undefined]>
  readonly identify: "own" | "refusal" | "extra members" | "canary instance"
  readonly ticket: "own" | "refusal" | "canary ticket"
  readonly identifySecret: string
  readonly ticketSecret: string
  readonly signedIn: boolean
  readonly contract: boolean
  /** The start is answered in its exact shape with a canary session id (and its control exchanges are Hermes's own). */
  readonly canaryStart: boolean
}

const plan: FastCheck.Arbitrary<Plan> = fc.record({
  http: fc.tuple(
    ...(["providers", "start", "poll", "cancel", "sign-out"] as const).map((route) =>
      httpFault(route).map((fault) => [route, fault] as const)
    )
  ),
  identify: mostly(fc.constant("own" as const), fc.constantFrom("refusal", "extra members", "canary instance")),
  ticket: mostly(fc.constant("own" as const), fc.constantFrom("refusal", "canary ticket")),
  identifySecret: secret,
  ticketSecret: secretId,
  signedIn: fc.boolean(),
  contract: mostly(fc.constant(true), fc.constant(false)),
  canaryStart: fc.boolean()
})

let fake: FakeGatewayHandle

beforeAll(async () => {
  fake = await startFakeGateway()
})

afterAll(() => fake.close())

const controlLine = (value: Json) => JSON.stringify(value)

/** Programs the fake for one run. */
const program = (run: Plan) => {
  fake.clearFaults()
  fake.setState("ready")
  fake.setContract(run.contract || run.canaryStart)
  fake.setSignedIn(run.signedIn)
  for (const [route, fault] of run.http) {
    if (fault !== undefined && !(run.canaryStart && route === "start")) fake.fault(route, fault)
  }
  if (run.canaryStart) {
    fake.fault("start", {
      kind: "reply",
      body: {
        session_id: run.ticketSecret,
        flow: "device_code",
        user_code: "ABCD-EFGHK",
        verification_url: devicePage,
        expires_in: 900,
        poll_interval: 5,
        detail: run.identifySecret,
        [run.ticketSecret]: run.identifySecret
      }
    })
    return
  }
  const identity = {
    kind: "hermes-gateway",
    runtime_protocol: 1,
    instance_id: fake.instanceId,
    state: "ready",
    api_origin: fake.origin,
    capabilities: ["session-authority-v1", ...(run.contract ? ["lazurio-oauth-cancel-contract-v1"] : [])],
    served_profiles: [{ profile_id: fake.home, home: fake.home }]
  }
  const ok = (result: Json) => controlLine({ ok: true, protocol: 1, id: 1, result })
  const refusal = controlLine({ ok: false, protocol: 1, id: 1, error: run.identifySecret })
  if (run.identify === "refusal") fake.fault("identify", { kind: "reply", line: refusal })
  if (run.identify === "extra members") {
    fake.fault("identify", {
      kind: "reply",
      line: ok({ ...identity, hermes_home: run.identifySecret, profile: run.identifySecret, [run.ticketSecret]: 1 })
    })
  }
  if (run.identify === "canary instance") {
    fake.fault("identify", { kind: "reply", line: ok({ ...identity, instance_id: run.ticketSecret }) })
  }
  if (run.ticket === "refusal") {
    fake.fault("session-ticket", {
      kind: "reply",
      line: controlLine({ ok: false, protocol: 1, id: 1, error: run.identifySecret })
    })
  }
  if (run.ticket === "canary ticket") {
    fake.fault("session-ticket", {
      kind: "reply",
      line: ok({
        ticket: run.ticketSecret,
        expires_in_seconds: 30,
        instance_id: fake.instanceId,
        profile_id: fake.home,
        runtime_protocol: 1
      })
    })
  }
}

const reasons = new Set([...gatewayReasons, ...blockedReasons])

/** One whole round: status, start, poll, cancel, another start and poll, sign-out, status. */
const round = Effect.gen(function*() {
  const signIn = yield* SignIn
  const status = yield* Status
  const exits: Array<Exit.Exit<unknown, unknown>> = []
  const step = <A, E>(effect: Effect.Effect<A, E>) => Effect.tap(Effect.exit(effect), (exit) => exits.push(exit))
  const checkStarted = (
    exit: Exit.Exit<{ readonly handle: string; readonly code: string; readonly page: string }, unknown>
  ) => {
    if (Exit.isFailure(exit)) return "00000000000000000000000000000000"
    expect(isHandle(exit.value.handle)).toBe(true)
    expect(isDeviceCode(exit.value.code)).toBe(true)
    expect(exit.value.page).toBe(devicePage)
    return exit.value.handle
  }
  yield* step(status.read)
  const handle = checkStarted(yield* step(signIn.start))
  yield* step(signIn.poll(handle))
  yield* step(signIn.cancel(handle))
  const again = checkStarted(yield* step(signIn.start))
  yield* step(signIn.poll(again))
  yield* step(signIn.signOut)
  yield* step(signIn.current)
  yield* step(status.read)
  const journal = yield* Ref.get(yield* JournalLines)
  return { exits, journal, started: [handle, again].filter((one) => one !== "00000000000000000000000000000000").length }
})

describe("fuzzing for leaks", () => {
  it("no canary Hermes puts in any answer reaches an answer, a refusal or the journal", async () => {
    const seen = tally("canary")
    await fc.assert(
      fc.asyncProperty(plan, async (run) => {
        program(run)
        const layer = BuddyServicesLive.pipe(
          Layer.provideMerge(JournalCapture),
          Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home, deadlines: testDeadlines }))
        )
        const { exits, journal, started } = await Effect.runPromise(Effect.provide(round, layer))
        if (run.canaryStart) {
          expect(started).toBeGreaterThan(0)
          seen.add("started on a canary session id")
        }
        for (const exit of exits) {
          expectClosed(exit, ["Blocked", "Unavailable"], reasons)
          seen.add(Exit.isSuccess(exit) ? "value" : "refusal")
        }
        const said = [
          ...exits.map((exit) => JSON.stringify(exit)),
          ...exits.map((exit) => inspect(exit, { depth: null })),
          ...exits.flatMap((exit) => (Exit.isFailure(exit) ? [Cause.pretty(exit.cause)] : [])),
          ...journal
        ]
        for (const text of said) expect(text).not.toContain(marker)
        for (const line of journal) {
          const parsed = JSON.parse(line) as Record<string, unknown>
          expect(Object.keys(parsed).every((key) => ["scope", "operation", "outcome", "reason"].includes(key))).toBe(
            true
          )
        }
        seen.add(`journal lines ${journal.length}`)
      }),
      params(canaryRuns)
    )
    seen.report()
    expect(seen.seen("value")).toBeGreaterThan(0)
    expect(seen.seen("refusal")).toBeGreaterThan(0)
    expect(seen.seen("started on a canary session id")).toBeGreaterThan(0)
  }, timeoutFor(canaryRuns, 60))
})
