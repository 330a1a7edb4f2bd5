// HermesApi (C3) against the fake gateway over a real Unix socket and real loopback HTTP:
// one ticket per request, spent once; the exact request lines and headers; one resend after a
// 401 and never after anything else; every answer tagged with its instance and contract.
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { buddyLayer, httpRequest, pastDeadlines, realPause, testDeadlines, untilReceived } from "../support/buddy.js"

type HttpReceived = Extract<FakeGateway["received"][number], { channel: "http" }>
type ControlReceived = Extract<FakeGateway["received"][number], { channel: "control" }>

const httpOf = (fake: FakeGateway) => fake.received.filter((entry): entry is HttpReceived => entry.channel === "http")
const controlOf = (fake: FakeGateway) =>
  fake.received.filter((entry): entry is ControlReceived => entry.channel === "control")
const verbsOf = (fake: FakeGateway) => controlOf(fake).map((entry) => (JSON.parse(entry.line) as { verb: string }).verb)

/** Runs `use` with a fresh fake gateway and the real client pointed at it. */
const withGateway = <A, E>(
  use: (fake: FakeGateway) => Effect.Effect<A, E, HermesApi>,
  options: Parameters<typeof makeFakeGateway>[0] = {}
) =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway(options)
    return yield* use(fake).pipe(Effect.provide(buddyLayer(fake).pipe(Layer.orDie)))
  }).pipe(Effect.scoped)

const api = HermesApi

describe("HermesApi requests", () => {
  it.live("a provider card read identifies, mints one ticket and sends exactly the C3 request", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const answer = yield* Effect.flatMap(api, (hermes) => hermes.providerCard)
        expect(answer.value).toStrictEqual({ loggedIn: false })
        expect(answer.instance).toStrictEqual({ instanceId: fake.instanceId, contract: true })
        const control = controlOf(fake).map((entry) => entry.line)
        expect(control).toStrictEqual([
          "{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}\n",
          `{"protocol":1,"id":1,"verb":"session-ticket","params":{"profile_id":${
            JSON.stringify(fake.home)
          },"instance_id":"${fake.instanceId}","purpose":"native-http"}}\n`
        ])
        expect(fake.ticketsMinted).toHaveLength(1)
        const ticket = fake.ticketsMinted[0] ?? ""
        const http = httpOf(fake)
        expect(http).toHaveLength(1)
        expect(http[0]?.method).toBe("GET")
        expect(http[0]?.path).toBe("/api/providers/oauth")
        expect(http[0]?.headers).toStrictEqual([
          ["Host", fake.origin.slice("http://".length)],
          ["Accept", "application/json"],
          ["X-Hermes-Gateway-Ticket", ticket],
          ["Connection", "close"]
        ])
        expect(http[0]?.body).toBe("")
        expect(fake.ticketsRedeemed).toStrictEqual([ticket])
      })
    ))

  it.live("every call mints its own ticket and spends it once", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        yield* hermes.providerCard
        yield* hermes.providerCard
        yield* hermes.signOut
        expect(fake.ticketsMinted).toHaveLength(3)
        expect(new Set(fake.ticketsMinted).size).toBe(3)
        expect(fake.ticketsRedeemed).toStrictEqual(fake.ticketsMinted)
        // The second status read mints against the first one's identify (C2); a sign-out never does.
        expect(verbsOf(fake)).toStrictEqual([
          "identify",
          "session-ticket",
          "session-ticket",
          "identify",
          "session-ticket"
        ])
      })
    ))

  it.live("POST and DELETE carry Content-Length 0 and no body, and no request carries Origin, a profile or a user agent", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        const started = yield* hermes.start
        expect(started.value._tag).toBe("Started")
        const sessionId = fake.sessions()[0]?.id ?? ""
        yield* hermes.poll(sessionId)
        yield* hermes.cancel(sessionId)
        yield* hermes.signOut
        const http = httpOf(fake)
        expect(http.map((entry) => `${entry.method} ${entry.path}`)).toStrictEqual([
          "POST /api/providers/oauth/openai-codex/start",
          `GET /api/providers/oauth/openai-codex/poll/${sessionId}`,
          `DELETE /api/providers/oauth/sessions/${sessionId}`,
          "DELETE /api/providers/oauth/openai-codex"
        ])
        for (const entry of http) {
          const names = entry.headers.map(([name]) => name)
          expect(names).toStrictEqual(
            entry.method === "GET"
              ? ["Host", "Accept", "X-Hermes-Gateway-Ticket", "Connection"]
              : ["Host", "Accept", "X-Hermes-Gateway-Ticket", "Content-Length", "Connection"]
          )
          if (entry.method !== "GET") expect(entry.headers[3]).toStrictEqual(["Content-Length", "0"])
          expect(entry.path).not.toContain("profile")
          expect(entry.body).toBe("")
        }
      })
    ))
})

describe("HermesApi answers", () => {
  it.live("the start answer passes its code and page, and the session exists on Hermes", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const answer = yield* Effect.flatMap(api, (hermes) => hermes.start)
        expect(answer.value).toStrictEqual(
          expect.objectContaining({
            _tag: "Started",
            code: "ABCD-EFGHK",
            page: "https://auth.openai.com/codex/device",
            pollInterval: 5
          })
        )
        expect(fake.sessions().map((session) => session.status)).toStrictEqual(["pending"])
      })
    ))

  it.live("a start on an instance without the contract is refused by the client and never sent", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.start))
        expect(error._tag).toBe("ContractMissing")
        expect(verbsOf(fake)).toStrictEqual(["identify"])
        expect(httpOf(fake)).toStrictEqual([])
        expect(fake.sessions()).toStrictEqual([])
      }), { contract: false }))

  it.live("a start answer whose code or page is not of the exact shape is unrecognized, with its session id", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        const bodies = [
          { user_code: "abcd-efghk" },
          { user_code: "ABCD-EFGH" },
          { user_code: "ABCD-EFGHKL" },
          { verification_url: "https://auth.openai.com/codex/device?x=1" },
          { verification_url: "http://auth.openai.com/codex/device" },
          { verification_url: "https://evil.example/codex/device" },
          { flow: "pkce" },
          { poll_interval: 0 }
        ]
        for (const change of bodies) {
          fake.fault("start", {
            kind: "reply",
            body: {
              session_id: "SESSION9xxxxxxxxxxxxxx",
              flow: "device_code",
              user_code: "ABCD-EFGHK",
              verification_url: "https://auth.openai.com/codex/device",
              expires_in: 900,
              poll_interval: 5,
              ...change
            }
          }, 1)
          const answer = yield* hermes.start
          expect(answer.value, JSON.stringify(change)).toStrictEqual(
            expect.objectContaining({
              _tag: "Unrecognized",
              sessionId: expect.objectContaining({ value: "SESSION9xxxxxxxxxxxxxx" })
            })
          )
        }
        fake.fault("start", { kind: "reply", body: { nothing: true } }, 1)
        const anonymous = yield* hermes.start
        expect(anonymous.value).toStrictEqual(
          expect.objectContaining({ _tag: "Unrecognized", sessionId: expect.objectContaining({ _tag: "None" }) })
        )
      })
    ))

  it.live("poll answers: pending, each ending, 404 as not held, and an unknown status as unrecognized", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        const ids: Array<string> = []
        for (let i = 0; i < 5; i++) {
          yield* hermes.start
          ids.push(fake.sessions()[i]?.id ?? "")
        }
        const [pending = "", approved = "", expired = "", denied = "", failed = ""] = ids
        fake.approve(approved)
        fake.expire(expired)
        fake.deny(denied)
        fake.error(failed)
        const statusOf = (id: string) => Effect.map(hermes.poll(id), (answer) => answer.value)
        expect(yield* statusOf(pending)).toStrictEqual(expect.objectContaining({ _tag: "Status", status: "pending" }))
        expect(yield* statusOf(approved)).toStrictEqual(expect.objectContaining({ status: "approved" }))
        expect(yield* statusOf(expired)).toStrictEqual(expect.objectContaining({ status: "expired" }))
        expect(yield* statusOf(denied)).toStrictEqual(expect.objectContaining({ status: "denied" }))
        expect(yield* statusOf(failed)).toStrictEqual(expect.objectContaining({ status: "error" }))
        expect(yield* statusOf("SESSIONunknownxxxxxxxx")).toStrictEqual(expect.objectContaining({ _tag: "NotHeld" }))
        fake.fault("poll", { kind: "reply", body: { status: "cancelled" } }, 1)
        expect(yield* statusOf(pending)).toStrictEqual(expect.objectContaining({ _tag: "Unrecognized" }))
        fake.fault("poll", { kind: "raw", status: 200, body: "not json" }, 1)
        expect(yield* statusOf(pending)).toStrictEqual(expect.objectContaining({ _tag: "Unrecognized" }))
      })
    ))

  it.live("cancel answers: confirmed with its id, not found, and every other shape unrecognized", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        yield* hermes.start
        const id = fake.sessions()[0]?.id ?? ""
        fake.fault("cancel", { kind: "other-session" }, 1)
        const other = yield* hermes.cancel(id)
        expect(other.value._tag).toBe("Cancelled")
        expect(other.value).not.toStrictEqual(expect.objectContaining({ sessionId: id }))
        fake.fault("cancel", { kind: "ok-without-id" }, 1)
        expect((yield* hermes.cancel(id)).value._tag).toBe("Unrecognized")
        fake.fault("cancel", { kind: "reply", body: { ok: false, message: "Session not found" } }, 1)
        expect((yield* hermes.cancel(id)).value._tag).toBe("Unrecognized")
        fake.fault("cancel", { kind: "reply", body: { ok: true, session_id: id, extra: 1 } }, 1)
        expect((yield* hermes.cancel(id)).value._tag).toBe("Unrecognized")
        expect(fake.sessions()[0]?.cancelled).toBe(false)
        const confirmed = yield* hermes.cancel(id)
        expect(confirmed.value).toStrictEqual(expect.objectContaining({ _tag: "Cancelled", sessionId: id }))
        expect(fake.sessions()[0]?.cancelled).toBe(true)
        expect((yield* hermes.cancel(id)).value._tag).toBe("NotFound")
      })
    ))

  it.live("sign-out answers signed out, then nothing stored on Hermes's 409", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        expect((yield* hermes.providerCard).value).toStrictEqual({ loggedIn: true })
        expect((yield* hermes.signOut).value._tag).toBe("SignedOut")
        expect(fake.signedIn).toBe(false)
        expect((yield* hermes.providerCard).value).toStrictEqual({ loggedIn: false })
        expect((yield* hermes.signOut).value._tag).toBe("NothingStored")
      }), { signedIn: true }))

  it.live("an answer names the instance that gave it and whether it held the contract", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        const first = yield* hermes.providerCard
        const oldInstance = fake.instanceId
        fake.restart({ contract: false })
        const second = yield* hermes.providerCard
        expect(first.instance).toStrictEqual({ instanceId: oldInstance, contract: true })
        expect(second.instance).toStrictEqual({ instanceId: fake.instanceId, contract: false })
        expect(fake.instanceId).not.toBe(oldInstance)
      })
    ))
})

describe("HermesApi failures", () => {
  it.live("a refused ticket is replaced exactly once with a fresh ticket and the same request", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "refuse-ticket" }, 1)
        const answer = yield* Effect.flatMap(api, (hermes) => hermes.providerCard)
        expect(answer.value).toStrictEqual({ loggedIn: false })
        const http = httpOf(fake)
        expect(http).toHaveLength(2)
        expect(http[0]?.path).toBe(http[1]?.path)
        expect(fake.ticketsMinted).toHaveLength(2)
        expect(http[0]?.headers[2]?.[1]).toBe(fake.ticketsMinted[0])
        expect(http[1]?.headers[2]?.[1]).toBe(fake.ticketsMinted[1])
      })
    ))

  it.live("a ticket refused twice is refused, and the request is not sent a third time", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "refuse-ticket" })
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.start))
        expect(error).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "refused", mayHaveRun: false })
        )
        expect(httpOf(fake)).toHaveLength(2)
        expect(fake.sessions()).toStrictEqual([])
      })
    ))

  it.live("a refused mint is refused and nothing is sent over HTTP", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("session-ticket", { kind: "refuse-ticket" })
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.providerCard))
        expect(error).toStrictEqual(expect.objectContaining({ _tag: "GatewayError", reason: "refused" }))
        expect(httpOf(fake)).toStrictEqual([])
      })
    ))

  it.live("a reused read whose resend after a 401 finds the API origin closed answers not-ready: the GET left once, no identify", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        yield* hermes.providerCard
        fake.clearReceived()
        fake.fault("providers", { kind: "refuse-ticket" }, 1)
        // The reused mint passes at once; the one after the 401 waits, and meanwhile the listener closes.
        fake.fault("session-ticket", { kind: "late", ms: 1 }, 1)
        fake.fault("session-ticket", { kind: "late", ms: 300 }, 1)
        const read = yield* Effect.fork(Effect.flip(hermes.providerCard))
        yield* untilReceived(fake, httpRequest("GET", "/api/providers/oauth"), "the reused GET")
        fake.setState("failed")
        const error = yield* Fiber.join(read)
        expect(error).toStrictEqual(expect.objectContaining({ _tag: "CallError", reason: "not-ready" }))
        // The refused connection was the resend's: the GET had left, so the read does not identify afresh.
        expect(verbsOf(fake)).toStrictEqual(["session-ticket", "session-ticket"])
        expect(httpOf(fake)).toHaveLength(1)
      })
    ))

  const neverResent: Array<[string, Parameters<FakeGateway["fault"]>[1], string]> = [
    ["a timeout", { kind: "timeout" }, "timeout"],
    ["a reset", { kind: "reset" }, "lost"],
    ["a 500", { kind: "status", status: 500 }, "http-error"],
    ["a 502", { kind: "status", status: 502 }, "http-error"],
    ["an oversized answer", { kind: "oversize" }, "too-large"],
    ["an endless answer", { kind: "flood" }, "too-large"],
    ["a redirect", { kind: "status", status: 302, body: { location: "http://127.0.0.1:1/" } }, "http-error"]
  ]
  for (const [name, fault, reason] of neverResent) {
    // On the TestClock: the timeout passes at once (pastDeadlines).
    it.effect(`${name} on sign-out is ${reason} and the request is never sent again`, () =>
      withGateway((fake) =>
        Effect.gen(function*() {
          fake.fault("sign-out", fault)
          const error = yield* Effect.flip(pastDeadlines(fake)(Effect.flatMap(api, (hermes) => hermes.signOut)))
          expect(error).toStrictEqual(expect.objectContaining({ _tag: "CallError", reason }))
          expect(httpOf(fake)).toHaveLength(1)
          expect(fake.ticketsMinted).toHaveLength(1)
        })
      ))
  }

  it.live("a start whose answer is lost may have run, and Hermes did create its session", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "reset" }, 1)
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.start))
        expect(error).toStrictEqual(expect.objectContaining({ _tag: "CallError", reason: "lost", mayHaveRun: true }))
        expect(fake.sessions().map((session) => session.status)).toStrictEqual(["pending"])
        expect(httpOf(fake)).toHaveLength(1)
      })
    ))

  it.live("a 503 gateway_not_ready answer is not ready and did not run", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "status", status: 503, body: { error: "gateway_not_ready", state: "draining" } })
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.start))
        expect(error).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "not-ready", mayHaveRun: false })
        )
      })
    ))

  it.live("a gateway that is not ready is refused at identify: no ticket, no HTTP", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.providerCard))
        expect(error).toStrictEqual(expect.objectContaining({ _tag: "GatewayError", reason: "not-ready" }))
        expect(verbsOf(fake)).toStrictEqual(["identify"])
        expect(httpOf(fake)).toStrictEqual([])
      }), { state: "starting" }))

  it.live("a foreign API origin in identify is refused before a ticket is minted", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("identify", {
          kind: "reply",
          line:
            `{"ok": true, "protocol": 1, "result": {"kind": "hermes-gateway", "instance_id": "${fake.instanceId}", "runtime_protocol": 1, "state": "ready", "api_origin": "http://localhost:${
              fake.origin.split(":")[2]
            }", "served_profiles": [{"profile_id": ${JSON.stringify(fake.home)}, "home": ${
              JSON.stringify(fake.home)
            }}], "capabilities": ["session-authority-v1"]}, "id": 1}\n`
        })
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.providerCard))
        expect(error).toStrictEqual(expect.objectContaining({ _tag: "GatewayError", reason: "foreign-origin" }))
        expect(verbsOf(fake)).toStrictEqual(["identify"])
        expect(fake.ticketsMinted).toStrictEqual([])
        expect(httpOf(fake)).toStrictEqual([])
      })
    ))

  it.live("a malformed identify line is refused before a ticket is minted", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("identify", { kind: "reply", line: "{\"ok\": true, \"protocol\": 1, \"result\": [], \"id\": 1}\n" })
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.providerCard))
        expect(error).toStrictEqual(expect.objectContaining({ _tag: "GatewayError", reason: "malformed" }))
        expect(verbsOf(fake)).toStrictEqual(["identify"])
        expect(httpOf(fake)).toStrictEqual([])
      })
    ))

  it.live("a malformed ticket answer is refused and nothing is sent over HTTP", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("session-ticket", {
          kind: "reply",
          line:
            `{"ok": true, "protocol": 1, "result": {"ticket": "has space", "expires_in_seconds": 30, "instance_id": "${fake.instanceId}", "profile_id": ${
              JSON.stringify(fake.home)
            }, "runtime_protocol": 1}, "id": 1}\n`
        })
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.providerCard))
        expect(error).toStrictEqual(expect.objectContaining({ _tag: "GatewayError", reason: "malformed" }))
        expect(httpOf(fake)).toStrictEqual([])
      })
    ))

  it.live("Hermes's error text never reaches an error value", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("sign-out", { kind: "status", status: 500, body: { detail: "CANARY-hermes-text secret /home/x" } })
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.signOut))
        const rendered = `${JSON.stringify(error)} ${String(error)}`
        expect(rendered).not.toContain("CANARY")
        expect(rendered).not.toContain(fake.ticketsMinted[0] ?? "never")
      })
    ))
})

describe("HermesApi answers that mean nothing", () => {
  it.live("a cancel answered with a status other than 200 is an http-error, never a confirmation", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        for (const status of [500, 404, 400]) {
          fake.fault("cancel", { kind: "status", status, body: { ok: true, session_id: "SESSION1xxxxxxxxxxxxxx" } }, 1)
          const error = yield* Effect.flip(hermes.cancel("SESSION1xxxxxxxxxxxxxx"))
          expect(error, String(status)).toStrictEqual(
            expect.objectContaining({ _tag: "CallError", reason: "http-error", mayHaveRun: false })
          )
        }
      })
    ))

  it.live("poll and start answered 500 are http-errors that did not run", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        fake.fault("poll", { kind: "status", status: 500 }, 1)
        expect(yield* Effect.flip(hermes.poll("SESSION1xxxxxxxxxxxxxx"))).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "http-error", mayHaveRun: false })
        )
        fake.fault("start", { kind: "status", status: 500, body: { detail: "device-auth failed" } }, 1)
        expect(yield* Effect.flip(hermes.start)).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "http-error", mayHaveRun: false })
        )
      })
    ))

  it.effect("a start that times out may have run", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "timeout" }, 1)
        expect(yield* Effect.flip(pastDeadlines(fake)(Effect.flatMap(api, (hermes) => hermes.start)))).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "timeout", mayHaveRun: true })
        )
      })
    ))

  it.live("Hermes's not-ready body on another status than 503 is an http-error, not not-ready", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault(
          "providers",
          { kind: "status", status: 500, body: { error: "gateway_not_ready", state: "ready" } },
          1
        )
        expect(yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.providerCard))).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "http-error" })
        )
      })
    ))

  it.live("a 503 that is not Hermes's not-ready answer is an http-error", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("providers", { kind: "status", status: 503, body: { error: "overloaded" } }, 1)
        expect(yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.providerCard))).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "http-error" })
        )
      })
    ))

  it.live("a sign-out 200 of no known shape is malformed and did not run on our side's account", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("sign-out", { kind: "reply", body: { cleared: true } }, 1)
        expect(yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.signOut))).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "malformed", mayHaveRun: false })
        )
      })
    ))

  it.live("an answer that starts with a byte-order mark is malformed, not silently stripped", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        const card = "{\"providers\":[{\"id\":\"openai-codex\",\"status\":{\"logged_in\":true}}]}"
        fake.fault("providers", { kind: "raw", status: 200, body: `\uFEFF${card}` }, 1)
        expect(yield* Effect.flip(hermes.providerCard)).toStrictEqual(
          expect.objectContaining({ reason: "malformed" })
        )
        fake.fault("providers", { kind: "raw", status: 200, body: card }, 1)
        expect((yield* hermes.providerCard).value).toStrictEqual({ loggedIn: true })
      })
    ))

  it.live("an answer of exactly 256 KiB is read; one byte more is too large", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        const card = "{\"providers\":[{\"id\":\"openai-codex\",\"status\":{\"logged_in\":true}}]}"
        fake.fault("providers", { kind: "raw", status: 200, body: card.padEnd(256 * 1024, " ") }, 1)
        expect((yield* hermes.providerCard).value).toStrictEqual({ loggedIn: true })
        // Once: the read with the recent identify meets it after its GET left, and answers it (C2, D47.3).
        fake.fault("providers", { kind: "raw", status: 200, body: card.padEnd(256 * 1024 + 1, " ") }, 1)
        expect(yield* Effect.flip(hermes.providerCard)).toStrictEqual(expect.objectContaining({ reason: "too-large" }))
        expect(httpOf(fake)).toHaveLength(2)
      })
    ))

  it.live("the client's refusal to start names the instance that lacked the contract", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Effect.flatMap(api, (hermes) => hermes.start))
        expect(error).toStrictEqual(
          expect.objectContaining({
            _tag: "ContractMissing",
            instance: { instanceId: fake.instanceId, contract: false }
          })
        )
      }), { contract: false }))
})

/** A start answer of exactly the shape C3 allows, with this session id. */
const startBody = (sessionId: string, change: Record<string, unknown> = {}) => ({
  session_id: sessionId,
  flow: "device_code",
  user_code: "ABCD-EFGHK",
  verification_url: "https://auth.openai.com/codex/device",
  expires_in: 900,
  poll_interval: 5,
  ...change
})

/** Session ids Hermes's `secrets.token_urlsafe` can never produce, each of which could bend a URL. */
const foreignIds: Array<[string, string]> = [
  ["empty", ""],
  ["with a slash", "SESSION1/xxxxxxxxxxxxx"],
  ["with a percent escape", "SESSION1%2Fxxxxxxxxxxx"],
  ["with a space", "SESSION1 xxxxxxxxxxxxx"],
  ["a dot segment", ".."],
  ["with a dot", "SESSION1.xxxxxxxxxxxxx"],
  ["with a trailing newline", "SESSION1xxxxxxxxxxxxxx\n"],
  ["with a non-ASCII letter", "SESSION1éxxxxxxxxxxxx"],
  ["longer than 128", "x".repeat(129)]
]

describe("what Hermes's answer must look like before we act on it", () => {
  it.live("a start's session id outside Hermes's URL-safe alphabet is no id: the answer is unrecognized with none", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        for (const [name, id] of foreignIds) {
          // Whole and well formed otherwise, and with another member off too: neither yields the id.
          for (const change of [{}, { user_code: "abcd-efghk" }]) {
            fake.fault("start", { kind: "reply", body: startBody(id, change) }, 1)
            const answer = yield* hermes.start
            expect(answer.value, `${name} ${JSON.stringify(change)}`).toStrictEqual(
              expect.objectContaining({ _tag: "Unrecognized", sessionId: Option.none() })
            )
          }
        }
      })
    ))

  it.live("a start's session id of 1 to 128 URL-safe characters is taken as Hermes gave it", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        for (const id of ["x", "Az09_-", "SESSION1xxxxxxxxxxxxxx", "y".repeat(128)]) {
          fake.fault("start", { kind: "reply", body: startBody(id) }, 1)
          expect((yield* hermes.start).value, id).toStrictEqual(
            expect.objectContaining({ _tag: "Started", sessionId: id })
          )
          fake.fault("start", { kind: "reply", body: startBody(id, { flow: "pkce" }) }, 1)
          expect((yield* hermes.start).value, id).toStrictEqual(
            expect.objectContaining({ _tag: "Unrecognized", sessionId: Option.some(id) })
          )
        }
      })
    ))

  it.live("a poll 404 means not held only with Hermes's own not-found answer; any other 404 is an http-error", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        const id = "SESSION1xxxxxxxxxxxxxx"
        // The poll route's own answer for a session it does not hold (recorded "poll after cancel").
        expect((yield* hermes.poll(id)).value).toStrictEqual(expect.objectContaining({ _tag: "NotHeld" }))
        fake.fault("poll", { kind: "raw", status: 404, body: "{\"detail\":\"Session not found or expired\"}" }, 1)
        expect((yield* hermes.poll(id)).value).toStrictEqual(expect.objectContaining({ _tag: "NotHeld" }))
        const otherNotFounds: Array<Parameters<FakeGateway["fault"]>[1]> = [
          { kind: "status", status: 404, body: { detail: "Not Found" } },
          { kind: "status", status: 404, body: { detail: "session not found or expired" } },
          { kind: "status", status: 404, body: { detail: "Session not found or expired", hint: "x" } },
          { kind: "status", status: 404, body: { error: "Session not found or expired" } },
          { kind: "raw", status: 404, body: "Session not found or expired" },
          { kind: "raw", status: 404, body: "" },
          // The status counts as much as the body: Hermes's text under another status proves nothing.
          { kind: "status", status: 400, body: { detail: "Session not found or expired" } },
          { kind: "status", status: 410, body: { detail: "Session not found or expired" } }
        ]
        for (const fault of otherNotFounds) {
          fake.fault("poll", fault, 1)
          expect(yield* Effect.flip(hermes.poll(id)), JSON.stringify(fault)).toStrictEqual(
            expect.objectContaining({ _tag: "CallError", reason: "http-error", mayHaveRun: false })
          )
        }
      })
    ))

  it.live("a poll answered 400 (Hermes's provider or profile mismatch) is an http-error, not a session let go", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        const hermes = yield* api
        yield* hermes.start
        const id = fake.sessions()[0]?.id ?? ""
        for (const detail of ["OAuth session profile mismatch", "Provider mismatch for session"]) {
          fake.fault("poll", { kind: "status", status: 400, body: { detail } }, 1)
          expect(yield* Effect.flip(hermes.poll(id)), detail).toStrictEqual(
            expect.objectContaining({ _tag: "CallError", reason: "http-error", mayHaveRun: false })
          )
        }
        expect((yield* hermes.poll(id)).value).toStrictEqual(expect.objectContaining({ status: "pending" }))
      })
    ))
})

describe("the start's own deadline", () => {
  // TestClock: the deadlines are moved past by hand, never waited for. Fork, then adjust, then join
  // (effect-guide P11); the request is on the wire before the clock moves.
  it.effect("a start whose answer never comes is still pending past the API deadline and times out at the start deadline", () =>
    withGateway((fake) =>
      Effect.gen(function*() {
        fake.fault("start", { kind: "timeout" })
        const hermes = yield* api
        const fiber = yield* Effect.fork(hermes.start)
        const start = "/api/providers/oauth/openai-codex/start"
        yield* untilReceived(fake, httpRequest("POST", start), `POST ${start}`)
        yield* TestClock.adjust(testDeadlines.api)
        yield* realPause(50)
        expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
        yield* TestClock.adjust(
          Duration.subtract(Duration.subtract(testDeadlines.start, testDeadlines.api), "1 millis")
        )
        yield* realPause(50)
        expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
        yield* TestClock.adjust("1 millis")
        expect(yield* Effect.flip(Fiber.join(fiber))).toStrictEqual(
          expect.objectContaining({ _tag: "CallError", reason: "timeout", mayHaveRun: true })
        )
        expect(httpOf(fake)).toHaveLength(1)
      })
    ))
})
