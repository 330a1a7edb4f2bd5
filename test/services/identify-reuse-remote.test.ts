// C2's one saving through the real layers (D47): a status read mints against the last identify of
// the same socket while it is at most 10 s old and nothing has dropped it. It identifies afresh, once,
// only where nothing of its GET was sent (the mint declined, the API origin refusing the connection);
// a failure after the GET may have left is its answer, and nothing is sent twice but a 401's resend. The gateway runs in another process; what it received is the proof
// of what was sent. A sign-in operation always identifies afresh. Here, not in test/boundary, so that
// the mutation run has it (vitest.mutation.config.ts); through `buddy serve`:
// test/boundary/identify-reuse.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import { promises as fsp } from "node:fs"
import type { Received } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { HolderLockMemory } from "../../src/services/HolderLock.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { buddyServices } from "../../src/services/layers.js"
import { Status } from "../../src/services/Status.js"
import { testDeadlines } from "../support/buddy.js"
import { gatewayProcess, type RemoteGateway } from "../support/gateway-process.js"

/** The real services for this home, built afresh for each test: the recent identify is per process. */
const services = (home: string) =>
  buddyServices(HolderLockMemory()).pipe(
    Layer.provideMerge(JournalCapture),
    Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home, deadlines: testDeadlines }))
  )

/** What the gateway received, one word each: a control verb, or an HTTP method and path. */
const seen = (received: ReadonlyArray<Received>) =>
  received.map((entry) =>
    entry.channel === "control"
      ? (JSON.parse(entry.line) as { readonly verb: string }).verb
      : `${entry.method} ${entry.path}`
  )
const PROVIDERS = "GET /api/providers/oauth"

/** The gateway's record since the last call, cleared. */
const sinceLast = (gateway: RemoteGateway) =>
  Effect.promise(async () => {
    const received = seen(await gateway.received())
    await gateway.clearReceived()
    return received
  })

const act = <A>(run: () => Promise<A>) => Effect.promise(run)
const read = Effect.flatMap(Status, (status) => status.read)

/** A status read's answer, and what the gateway received for it. */
const readAndSeen = (gateway: RemoteGateway) =>
  Effect.gen(function*() {
    const answer = yield* read
    return { answer, received: yield* sinceLast(gateway) }
  })

/** A gateway (signed in unless told) in another process, and the real services pointed at its home. */
const withGateway = <A, E>(
  use: (gateway: RemoteGateway) => Effect.Effect<A, E, Status | HermesApi>,
  options: { readonly signedIn?: boolean } = {}
) =>
  Effect.flatMap(
    act(() => gatewayProcess({ signedIn: options.signedIn ?? true })),
    (gateway) => Effect.provide(use(gateway), services(gateway.home))
  )

/** One status read whose identify is kept, and the gateway's record cleared after it. */
const firstRead = (gateway: RemoteGateway) =>
  Effect.gen(function*() {
    expect(yield* readAndSeen(gateway)).toStrictEqual({
      answer: { state: "works" },
      received: ["identify", "session-ticket", PROVIDERS]
    })
  })

/** A ticket answer of the right shape that echoes another instance. */
const otherEcho = (home: string) =>
  JSON.stringify({
    ok: true,
    protocol: 1,
    id: 1,
    result: {
      ticket: "T".repeat(43),
      expires_in_seconds: 30,
      instance_id: "0123456789abcdef0123456789abcdef",
      profile_id: home,
      runtime_protocol: 1
    }
  })

describe("a status read reuses a recent identify, and sends nothing twice (C2)", { timeout: 60_000 }, () => {
  it.live("within 10 s each read after the first is one mint and one GET", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        const answers = yield* Effect.all([read, read, read])
        expect(answers).toStrictEqual([{ state: "works" }, { state: "works" }, { state: "works" }])
        expect(yield* sinceLast(gateway)).toStrictEqual([
          "identify",
          "session-ticket",
          PROVIDERS,
          "session-ticket",
          PROVIDERS,
          "session-ticket",
          PROVIDERS
        ])
        const minted = yield* act(() => gateway.ticketsMinted())
        expect(new Set(minted).size).toBe(3)
        expect(yield* act(() => gateway.ticketsRedeemed())).toStrictEqual(minted)
      })
    ))

  it.live("C1 is walked at every reuse: a socket opened to others since is refused and nothing is sent", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => fsp.chmod(gateway.socketPath, 0o660))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "unsafe-socket" },
          received: []
        })
        // Refused, not forgotten for good: the same socket made private again is identified afresh.
        yield* act(() => fsp.chmod(gateway.socketPath, 0o600))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["identify", "session-ticket", PROVIDERS]
        })
      })
    ))

  it.live("a restarted gateway (another instance on the same socket): the stale mint is refused, a fresh identify answers", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.restart())
        const card = yield* Effect.flatMap(HermesApi, (api) => api.providerCard)
        expect(card.instance.instanceId).toBe(yield* act(() => gateway.instanceId()))
        expect(card.value).toStrictEqual({ loggedIn: true })
        expect(yield* sinceLast(gateway)).toStrictEqual([
          "session-ticket",
          "identify",
          "session-ticket",
          PROVIDERS
        ])
        // The refused mint named the old instance; the one after it, the new.
        expect(yield* act(() => gateway.ticketsMinted())).toHaveLength(2)
      })
    ))

  it.live("a gateway started anew in another process, on another api_origin: the read goes to the new origin only", () =>
    withGateway((first) =>
      Effect.gen(function*() {
        yield* firstRead(first)
        // Killed outright: its stale socket stays, and the new process replaces it on the same path.
        yield* act(() => first.kill())
        const second = yield* act(() => gatewayProcess({ home: first.home, signedIn: false }))
        expect(second.origin).not.toBe(first.origin)
        const card = yield* Effect.flatMap(HermesApi, (api) => api.providerCard)
        expect(card.instance.instanceId).toBe(yield* act(() => second.instanceId()))
        expect(card.value).toStrictEqual({ loggedIn: false })
        expect(yield* sinceLast(second)).toStrictEqual(["session-ticket", "identify", "session-ticket", PROVIDERS])
        expect(yield* act(() => second.ticketsRedeemed())).toHaveLength(1)
      })
    ))

  it.live("a refused mint, or one echoing another instance, drops it: the same read identifies afresh", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.fault("session-ticket", { kind: "refuse-ticket" }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["session-ticket", "identify", "session-ticket", PROVIDERS]
        })
        yield* act(() => gateway.fault("session-ticket", { kind: "reply", line: otherEcho(gateway.home) }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["session-ticket", "identify", "session-ticket", PROVIDERS]
        })
        // The echo's ticket was never spent: nothing but Hermes's own tickets reached the API.
        const redeemed = yield* act(() => gateway.ticketsRedeemed())
        expect(redeemed).not.toContain("T".repeat(43))
        expect(redeemed).toHaveLength(3)
      })
    ))

  it.live("a gateway turned draining answers not-ready to the reused GET itself; a failed one, its listener closed, after one fresh identify", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.setState("draining"))
        // Hermes's own 503 answered the GET: that is the read's answer, with nothing sent again.
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "not-ready" },
          received: ["session-ticket", PROVIDERS]
        })
        // The failed call left nothing to reuse: the next read identifies first.
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "not-ready" },
          received: ["identify"]
        })
        yield* act(() => gateway.setState("ready"))
        yield* firstRead(gateway)
        // Failed: the API listener is closed, so the reused mint's GET is refused its connection and
        // nothing of it is sent; the read identifies afresh, and the identify says failed.
        yield* act(() => gateway.setState("failed"))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "not-ready" },
          received: ["session-ticket", "identify"]
        })
      })
    ))

  it.live("a failure after the GET was written is the read's answer and drops it, whichever operation made it", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.fault("providers", { kind: "reset" }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "lost" },
          received: ["session-ticket", PROVIDERS]
        })
        // Dropped: the next read identifies afresh.
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["identify", "session-ticket", PROVIDERS]
        })
        // A sign-out whose call fails: its identify is the last one, and it is dropped.
        yield* act(() => gateway.fault("sign-out", { kind: "reset" }, 1))
        expect((yield* Effect.flip(Effect.flatMap(HermesApi, (api) => api.signOut))).reason).toBe("lost")
        yield* sinceLast(gateway)
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["identify", "session-ticket", PROVIDERS]
        })
      })
    ))

  it.live("a provider list of another status, programmed once, is the reused read's answer, sent once, and drops it", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.fault("providers", { kind: "status", status: 500 }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "http-error" },
          received: ["session-ticket", PROVIDERS]
        })
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["identify", "session-ticket", PROVIDERS]
        })
      })
    ))

  it.live("a provider list it cannot read, programmed once, is the reused read's answer, sent once, and drops it", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.fault("providers", { kind: "raw", status: 200, body: "{\"providers\":" }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "malformed" },
          received: ["session-ticket", PROVIDERS]
        })
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["identify", "session-ticket", PROVIDERS]
        })
      })
    ))

  it.live("a ticket the API refuses: once, one new mint and one resend; twice, refused, with the GET sent twice and no identify", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.fault("providers", { kind: "refuse-ticket" }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["session-ticket", PROVIDERS, "session-ticket", PROVIDERS]
        })
        yield* act(() => gateway.fault("providers", { kind: "refuse-ticket" }, 2))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "refused" },
          received: ["session-ticket", PROVIDERS, "session-ticket", PROVIDERS]
        })
      })
    ))

  it.live("a mint declined after the GET met a 401 is the read's answer, with no identify; declined before any GET, afresh once", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* act(() => gateway.fault("providers", { kind: "refuse-ticket" }, 1))
        // The reused mint is answered (a fault that only waits a millisecond); the one after the 401 is refused.
        yield* act(() => gateway.fault("session-ticket", { kind: "late", ms: 1 }, 1))
        yield* act(() => gateway.fault("session-ticket", { kind: "refuse-ticket" }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "unknown", reason: "refused" },
          received: ["session-ticket", PROVIDERS, "session-ticket"]
        })
        // The first mint refused, nothing of the GET sent yet: afresh, once.
        yield* firstRead(gateway)
        yield* act(() => gateway.fault("session-ticket", { kind: "refuse-ticket" }, 1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["session-ticket", "identify", "session-ticket", PROVIDERS]
        })
      })
    ))

  it.live("a sign-in operation never reuses: start, poll, cancel and sign-out each identify afresh", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        const api = yield* HermesApi
        yield* api.start
        const [session] = yield* act(() => gateway.sessions())
        yield* api.poll(session?.id ?? "")
        yield* api.cancel(session?.id ?? "")
        yield* api.signOut
        const ticketed = ["identify", "session-ticket"]
        expect(yield* sinceLast(gateway)).toStrictEqual([
          ...ticketed,
          "POST /api/providers/oauth/openai-codex/start",
          ...ticketed,
          `GET /api/providers/oauth/openai-codex/poll/${session?.id}`,
          ...ticketed,
          `DELETE /api/providers/oauth/sessions/${session?.id}`,
          ...ticketed,
          "DELETE /api/providers/oauth/openai-codex"
        ])
        // …and its identify is the recent one a status read then reuses.
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "waits" },
          received: ["session-ticket", PROVIDERS]
        })
      })
    ))

  it.effect("the 10 s bound, on the TestClock: at 10 s the identify is reused, a millisecond later it is not", () =>
    withGateway((gateway) =>
      Effect.gen(function*() {
        yield* firstRead(gateway)
        yield* TestClock.adjust(Duration.seconds(10))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["session-ticket", PROVIDERS]
        })
        yield* TestClock.adjust(Duration.millis(1))
        expect(yield* readAndSeen(gateway)).toStrictEqual({
          answer: { state: "works" },
          received: ["identify", "session-ticket", PROVIDERS]
        })
      })
    ))
})
