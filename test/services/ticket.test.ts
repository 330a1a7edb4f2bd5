// Ticket (C2): identify validation, the contract read exactly, the mint's exact params and echo
// checks. The control socket is replaced by an in-memory one that records every request.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import type { ControlReply, ControlRequest } from "../../src/schema/control.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import type { Located } from "../../src/services/gateway-path.js"
import type { GatewayError } from "../../src/services/GatewayError.js"
import { GatewaySocket } from "../../src/services/GatewaySocket.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { Ticket, TicketLive } from "../../src/services/Ticket.js"
import { buddyLayer, untilReceived } from "../support/buddy.js"

const home = "/home/operator/.hermes"
const located: Located = { home, socket: `${home}/gateway.sock` }
const instance = "feed0002000000000000000000000000"
const contract = "lazurio-oauth-cancel-contract-v1"

const identifyResult = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  protocol: 1,
  kind: "hermes-gateway",
  pid: 16735,
  start_time: 172887,
  hermes_home: home,
  profile: "default",
  supervisor: "none",
  instance_id: instance,
  runtime_protocol: 1,
  authority_epoch: 1,
  state: "ready",
  api_origin: "http://127.0.0.1:35983",
  served_profiles: [{ profile_id: home, home }],
  capabilities: ["session-authority-v1", "durable-admission-v1", "event-replay-v1", contract],
  ...overrides
})

const ok = (result: Record<string, unknown>): ControlReply => ({ ok: true, protocol: 1, id: 1, result })

const ticketResult = (overrides: Record<string, unknown> = {}) => ({
  ticket: "TICKET2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
  expires_in_seconds: 30,
  instance_id: instance,
  profile_id: home,
  runtime_protocol: 1,
  ...overrides
})

/** A control socket answering identify and session-ticket with the given replies, recording requests. */
const fakeSocket = (replies: { identify?: ControlReply; ticket?: ControlReply }) => {
  const sent: Array<{ request: ControlRequest; maxLine: number; at?: Located }> = []
  const answer = (request: ControlRequest, maxLine: number, at?: Located) =>
    Effect.suspend(() => {
      sent.push({ request, maxLine, ...(at === undefined ? {} : { at }) })
      const reply = request.verb === "identify" ? replies.identify : replies.ticket
      return reply === undefined
        ? Effect.die(`unexpected ${request.verb}`)
        : Effect.succeed({ located: at ?? located, reply })
    })
  const layer = Layer.succeed(
    GatewaySocket,
    GatewaySocket.of({
      exchange: (request, maxLine) => answer(request, maxLine),
      exchangeAt: (at, request, maxLine) => answer(request, maxLine, at),
      // Only a status read's reuse walks C1 alone (test/services/identify-reuse.test.ts).
      locate: Effect.die("unexpected walk")
    })
  )
  return { sent, layer: TicketLive.pipe(Layer.provide(Layer.merge(layer, BuddyConfig.gatewayLayer({})))) }
}

const identifyWith = (reply: ControlReply) => {
  const socket = fakeSocket({ identify: reply })
  return Effect.flatMap(Ticket, (ticket) => ticket.identify).pipe(Effect.provide(socket.layer))
}

const reasonOf = (effect: Effect.Effect<unknown, GatewayError>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

describe("Ticket.identify", () => {
  it.effect("a ready identify serving our home becomes an endpoint with its instance, origin, profile and contract", () =>
    Effect.gen(function*() {
      const endpoint = yield* identifyWith(ok(identifyResult()))
      expect(endpoint).toStrictEqual({
        instanceId: instance,
        origin: { origin: "http://127.0.0.1:35983", address: "127.0.0.1", port: 35983, host: "127.0.0.1:35983" },
        profileId: home,
        state: "ready",
        contract: true,
        located
      })
    }))

  it.effect("identify is asked with the exact request and the 512 KiB line limit", () =>
    Effect.gen(function*() {
      const socket = fakeSocket({ identify: ok(identifyResult()) })
      yield* Effect.flatMap(Ticket, (ticket) => ticket.identify).pipe(Effect.provide(socket.layer))
      expect(socket.sent).toStrictEqual([{ request: { protocol: 1, id: 1, verb: "identify" }, maxLine: 512 * 1024 }])
      expect(JSON.stringify(socket.sent[0]?.request)).toBe("{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}")
    }))

  it.effect("an IPv6 loopback origin is accepted with a bracketed Host", () =>
    Effect.gen(function*() {
      const endpoint = yield* identifyWith(ok(identifyResult({ api_origin: "http://[::1]:8080" })))
      expect(endpoint.origin).toStrictEqual({
        origin: "http://[::1]:8080",
        address: "::1",
        port: 8080,
        host: "[::1]:8080"
      })
    }))

  it.effect("the contract holds only with exactly the advertised string in the capabilities array", () =>
    Effect.gen(function*() {
      const base = ["session-authority-v1", "durable-admission-v1", "event-replay-v1"]
      const without = yield* identifyWith(ok(identifyResult({ capabilities: base })))
      expect(without.contract).toBe(false)
      for (
        const nearMiss of [
          "lazurio-oauth-cancel-contract-v2",
          "lazurio-oauth-cancel-contract",
          "lazurio-oauth-cancel-contract-v1 ",
          "LAZURIO-OAUTH-CANCEL-CONTRACT-V1",
          "lazurio-oauth-cancel-contract-v10"
        ]
      ) {
        const endpoint = yield* identifyWith(ok(identifyResult({ capabilities: [...base, nearMiss] })))
        expect(endpoint.contract, nearMiss).toBe(false)
      }
      const withIt = yield* identifyWith(ok(identifyResult({ capabilities: [...base, contract] })))
      expect(withIt.contract).toBe(true)
    }))

  it.effect("the contract advertised as a string instead of an array is an incompatible answer", () =>
    Effect.gen(function*() {
      expect(yield* reasonOf(identifyWith(ok(identifyResult({ capabilities: contract }))))).toBe("incompatible")
    }))

  it.effect("a gateway that is starting, draining or failed is not ready", () =>
    Effect.gen(function*() {
      for (const state of ["starting", "draining", "failed"]) {
        expect(yield* reasonOf(identifyWith(ok(identifyResult({ state, capabilities: [] })))), state).toBe(
          "not-ready"
        )
      }
    }))

  it.effect("ready without session-authority-v1 is not ready, even with the contract", () =>
    Effect.gen(function*() {
      const reason = yield* reasonOf(identifyWith(ok(identifyResult({ capabilities: [contract] }))))
      expect(reason).toBe("not-ready")
    }))

  it.effect("every origin that is not exactly loopback http with a port is refused as foreign", () =>
    Effect.gen(function*() {
      for (
        const origin of [
          "http://localhost:35983",
          "http://127.0.0.2:35983",
          "https://127.0.0.1:35983",
          "http://[::1]",
          "http://127.0.0.1",
          "http://127.0.0.1:35983/",
          "http://127.0.0.1:35983/api",
          "http://user@127.0.0.1:35983",
          "http://user:pw@127.0.0.1:35983",
          "http://127.0.0.1:35983?x=1",
          "http://127.0.0.1:35983#x",
          "http://127.0.0.1:0",
          "http://127.0.0.1:65536",
          "http://127.0.0.1:035983",
          "http://0.0.0.0:35983",
          "http://[::ffff:127.0.0.1]:35983",
          "HTTP://127.0.0.1:35983",
          " http://127.0.0.1:35983",
          "http://127.0.0.1:35983 ",
          "http://10.0.0.1:35983",
          ""
        ]
      ) {
        expect(yield* reasonOf(identifyWith(ok(identifyResult({ api_origin: origin })))), origin).toBe(
          "foreign-origin"
        )
      }
    }))

  it.effect("the highest port is accepted", () =>
    Effect.gen(function*() {
      const endpoint = yield* identifyWith(ok(identifyResult({ api_origin: "http://127.0.0.1:65535" })))
      expect(endpoint.origin.port).toBe(65535)
    }))

  it.effect("our home must be served by exactly one profile entry", () =>
    Effect.gen(function*() {
      for (
        const served of [
          [],
          [{ profile_id: "/other", home: "/other" }],
          [{ profile_id: home, home }, { profile_id: `${home}/x`, home }],
          [{ profile_id: home, home: `${home}/` }]
        ]
      ) {
        expect(yield* reasonOf(identifyWith(ok(identifyResult({ served_profiles: served })))), JSON.stringify(served))
          .toBe("incompatible")
      }
    }))

  it.effect("the profile id tickets are minted for is the served entry's, not the home", () =>
    Effect.gen(function*() {
      const endpoint = yield* identifyWith(
        ok(identifyResult({ served_profiles: [{ profile_id: "profile-7", home }, { profile_id: "o", home: "/o" }] }))
      )
      expect(endpoint.profileId).toBe("profile-7")
    }))

  it.effect("every malformed identify answer is incompatible", () =>
    Effect.gen(function*() {
      const cases: Array<[string, Record<string, unknown>]> = [
        ["another kind", identifyResult({ kind: "hermes-dashboard" })],
        ["no runtime protocol (Gen A)", identifyResult({ runtime_protocol: undefined })],
        ["runtime protocol 2", identifyResult({ runtime_protocol: 2 })],
        ["empty instance id", identifyResult({ instance_id: "" })],
        ["numeric instance id", identifyResult({ instance_id: 7 })],
        ["unknown state", identifyResult({ state: "conflict" })],
        ["origin not a string", identifyResult({ api_origin: 35983 })],
        ["capabilities with a number", identifyResult({ capabilities: ["session-authority-v1", 1] })],
        ["served profiles not an array", identifyResult({ served_profiles: { profile_id: home, home } })],
        ["served profile without home", identifyResult({ served_profiles: [{ profile_id: home }] })]
      ]
      for (const [name, result] of cases) {
        const cleaned = Object.fromEntries(Object.entries(result).filter(([, value]) => value !== undefined))
        expect(yield* reasonOf(identifyWith(ok(cleaned))), name).toBe("incompatible")
      }
    }))

  it.effect("a refused identify (a gateway that does not know the verb) is incompatible", () =>
    Effect.gen(function*() {
      const reason = yield* reasonOf(
        identifyWith({ ok: false, protocol: 1, id: 1, error: "unknown verb: 'identify'" })
      )
      expect(reason).toBe("incompatible")
    }))
})

const endpointFor = (result: Record<string, unknown> = identifyResult()) =>
  Effect.flatMap(Ticket, (ticket) => ticket.identify)
    .pipe(Effect.provide(fakeSocket({ identify: ok(result) }).layer))

const mintWith = (reply: ControlReply) =>
  Effect.gen(function*() {
    const endpoint = yield* endpointFor()
    const socket = fakeSocket({ ticket: reply })
    const ticket = yield* Effect.flatMap(Ticket, (service) => service.mint(endpoint)).pipe(
      Effect.provide(socket.layer)
    )
    return { ticket, sent: socket.sent }
  })

describe("Ticket.mint", () => {
  it.effect("mints with exactly profile_id, instance_id and purpose native-http, under the 64 KiB limit", () =>
    Effect.gen(function*() {
      const { sent, ticket } = yield* mintWith(ok(ticketResult()))
      expect(Redacted.value(ticket)).toBe("TICKET2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
      expect(sent).toHaveLength(1)
      expect(JSON.stringify(sent[0]?.request)).toBe(
        `{"protocol":1,"id":1,"verb":"session-ticket","params":{"profile_id":"${home}","instance_id":"${instance}","purpose":"native-http"}}`
      )
      expect(sent[0]?.maxLine).toBe(64 * 1024)
      // At the socket the identify found, with no second C1 walk.
      expect(sent[0]?.at).toStrictEqual(located)
    }))

  it.effect("each identify's mints carry that identify's instance and profile, however they alternate", () =>
    Effect.gen(function*() {
      // The request is made once per endpoint and kept (D47.11): what is kept must be that endpoint's.
      const other = "feed0009000000000000000000000000"
      const sent: Array<string> = []
      let identified = 0
      const socket = GatewaySocket.of({
        exchange: () =>
          Effect.sync(() => {
            identified += 1
            const served = identified === 1 ? {} : { instance_id: other, served_profiles: [{ profile_id: "p2", home }] }
            return { located, reply: ok(identifyResult(served)) }
          }),
        exchangeAt: (_at, request) =>
          Effect.sync(() => {
            sent.push(JSON.stringify(request))
            const echo = request.verb === "session-ticket"
              ? { instance_id: request.params.instance_id, profile_id: request.params.profile_id }
              : {}
            return { located, reply: ok(ticketResult(echo)) }
          }),
        locate: Effect.die("unexpected walk")
      })
      const ticket = yield* Effect.provide(
        Ticket,
        TicketLive.pipe(Layer.provide(Layer.merge(Layer.succeed(GatewaySocket, socket), BuddyConfig.gatewayLayer({}))))
      )
      const first = yield* ticket.identify
      const second = yield* ticket.identify
      for (const endpoint of [first, second, first, second]) yield* ticket.mint(endpoint)
      const line = (instanceId: string, profileId: string) =>
        `{"protocol":1,"id":1,"verb":"session-ticket","params":{"profile_id":"${profileId}","instance_id":"${instanceId}","purpose":"native-http"}}`
      expect(sent).toStrictEqual([line(instance, home), line(other, "p2"), line(instance, home), line(other, "p2")])
    }))

  it.effect("the ticket is redacted when printed or serialized", () =>
    Effect.gen(function*() {
      const { ticket } = yield* mintWith(ok(ticketResult()))
      expect(String(ticket)).not.toContain("TICKET2")
      expect(JSON.stringify({ ticket })).not.toContain("TICKET2")
    }))

  it.effect("a refused mint is refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        mintWith({ ok: false, protocol: 1, id: 1, error: "PermissionError: stale runtime instance" })
      )
      expect(error.reason).toBe("refused")
    }))

  it.effect("every malformed ticket answer is refused as malformed", () =>
    Effect.gen(function*() {
      const cases: Array<[string, Record<string, unknown>]> = [
        ["another instance echoed", ticketResult({ instance_id: "feed0003000000000000000000000000" })],
        ["another profile echoed", ticketResult({ profile_id: "/elsewhere" })],
        ["runtime protocol 2", ticketResult({ runtime_protocol: 2 })],
        ["empty ticket", ticketResult({ ticket: "" })],
        ["ticket over 256 chars", ticketResult({ ticket: "a".repeat(257) })],
        ["ticket with a space", ticketResult({ ticket: "abc def" })],
        ["ticket with a slash", ticketResult({ ticket: "abc/def" })],
        ["ticket with a newline", ticketResult({ ticket: "abc\n" })],
        ["ticket a number", ticketResult({ ticket: 42 })],
        ["an extra member", ticketResult({ scope: "profile" })],
        ["no expiry", { ticket: "abc", instance_id: instance, profile_id: home, runtime_protocol: 1 }]
      ]
      for (const [name, result] of cases) {
        const error = yield* Effect.flip(mintWith(ok(result)))
        expect(error.reason, name).toBe("malformed")
      }
    }))

  it.effect("a ticket of exactly 256 URL-safe characters is accepted", () =>
    Effect.gen(function*() {
      const long = "A-_z".repeat(64)
      const { ticket } = yield* mintWith(ok(ticketResult({ ticket: long })))
      expect(Redacted.value(ticket)).toBe(long)
    }))
})

describe("the ticket comes from the gateway the identify found", () => {
  // Over real sockets: the first gateway listens behind the pointer; while its identify answer is on
  // its way a second gateway starts at <home>/gateway.sock, which C1.2 would now find first.
  it.scopedLive("a gateway that appears between identify and mint is not asked: the mint goes where the identify went", () =>
    Effect.gen(function*() {
      const first = yield* makeFakeGateway({ socket: "pointer", signedIn: true })
      first.fault("identify", { kind: "late", ms: 150 }, 1)
      const api = yield* HermesApi.pipe(Effect.provide(buddyLayer(first)))
      const reading = yield* Effect.fork(api.providerCard)
      yield* untilReceived(first, (entry) => entry.channel === "control", "the identify")
      const second = yield* makeFakeGateway({ socket: "direct", home: first.home, signedIn: false })
      const card = yield* Fiber.join(reading)
      expect(card.value.loggedIn).toBe(true)
      expect(card.instance.instanceId).toBe(first.instanceId)
      expect(first.ticketsMinted).toHaveLength(1)
      expect(second.received).toStrictEqual([])
    }))
})
