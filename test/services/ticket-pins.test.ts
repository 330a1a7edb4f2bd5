// Ticket's identify checks pinned one condition at a time (C2): each check is met by an answer
// that passes every other check, so none of them can be let through to a ticket mint unseen.
// The control socket is an in-memory one that records every request it is asked.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import type { ControlReply, ControlRequest } from "../../src/schema/control.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { GatewaySocket } from "../../src/services/GatewaySocket.js"
import { Ticket, TicketLive } from "../../src/services/Ticket.js"

const home = "/home/operator/.hermes"
const instance = "feed0002000000000000000000000000"
const allCapabilities = [
  "session-authority-v1",
  "durable-admission-v1",
  "event-replay-v1",
  "lazurio-oauth-cancel-contract-v1"
]

const identifyResult = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: "hermes-gateway",
  instance_id: instance,
  runtime_protocol: 1,
  state: "ready",
  api_origin: "http://127.0.0.1:35983",
  served_profiles: [{ profile_id: "profile-1", home }],
  capabilities: allCapabilities,
  ...overrides
})

const ok = (result: Record<string, unknown>): ControlReply => ({ ok: true, protocol: 1, id: 1, result })

const ticketReply = ok({
  ticket: "TICKETpins",
  expires_in_seconds: 30,
  instance_id: instance,
  profile_id: "profile-1",
  runtime_protocol: 1
})

/**
 * Identify with this result, then mint for the endpoint when identify gave one: the way every
 * caller uses the service. Returns the outcome and the verbs the socket was asked, in order.
 */
const identifyThenMint = (result: Record<string, unknown>) =>
  Effect.gen(function*() {
    const asked: Array<ControlRequest["verb"]> = []
    const answer = (request: ControlRequest) =>
      Effect.sync(() => {
        asked.push(request.verb)
        const reply = request.verb === "identify" ? ok(result) : ticketReply
        return { located: { home, socket: `${home}/gateway.sock` }, reply }
      })
    const socket = Layer.succeed(
      GatewaySocket,
      GatewaySocket.of({
        exchange: answer,
        exchangeAt: (_located, request) => answer(request),
        locate: Effect.die("no status read here walks C1 alone")
      })
    )
    const layer = TicketLive.pipe(Layer.provide(Layer.merge(socket, BuddyConfig.gatewayLayer({}))))
    const outcome = yield* Effect.gen(function*() {
      const ticket = yield* Ticket
      const endpoint = yield* ticket.identify
      return Redacted.value(yield* ticket.mint(endpoint))
    }).pipe(Effect.provide(layer), Effect.either)
    return {
      outcome: outcome._tag === "Right" ? `ticket ${outcome.right}` : outcome.left.reason,
      asked
    }
  })

describe("Ticket's identify checks, each alone", () => {
  it.effect("the baseline: a ready identify serving our home once, with every capability, is minted for", () =>
    Effect.gen(function*() {
      expect(yield* identifyThenMint(identifyResult())).toStrictEqual({
        outcome: "ticket TICKETpins",
        asked: ["identify", "session-ticket"]
      })
    }))

  for (const state of ["starting", "draining", "failed"]) {
    it.effect(`a gateway ${state} with every capability and our home is not ready, and no ticket is minted`, () =>
      Effect.gen(function*() {
        expect(yield* identifyThenMint(identifyResult({ state }))).toStrictEqual({
          outcome: "not-ready",
          asked: ["identify"]
        })
      }))
  }

  it.effect("a ready gateway serving our home twice is incompatible, and no ticket is minted", () =>
    Effect.gen(function*() {
      const served = [{ profile_id: "profile-1", home }, { profile_id: "profile-2", home }]
      expect(yield* identifyThenMint(identifyResult({ served_profiles: served }))).toStrictEqual({
        outcome: "incompatible",
        asked: ["identify"]
      })
    }))

  it.effect("a ready gateway serving only other homes is incompatible, and no ticket is minted", () =>
    Effect.gen(function*() {
      const served = [{ profile_id: "profile-1", home: "/srv/other" }, { profile_id: "profile-2", home: `${home}2` }]
      expect(yield* identifyThenMint(identifyResult({ served_profiles: served }))).toStrictEqual({
        outcome: "incompatible",
        asked: ["identify"]
      })
    }))

  it.effect("a ready gateway serving no profile at all is incompatible, and no ticket is minted", () =>
    Effect.gen(function*() {
      expect(yield* identifyThenMint(identifyResult({ served_profiles: [] }))).toStrictEqual({
        outcome: "incompatible",
        asked: ["identify"]
      })
    }))

  it.effect("our home served once among others is minted for with its own profile id", () =>
    Effect.gen(function*() {
      const served = [
        { profile_id: "profile-0", home: "/srv/other" },
        { profile_id: "profile-1", home },
        { profile_id: "profile-2", home: "/srv/third" }
      ]
      expect(yield* identifyThenMint(identifyResult({ served_profiles: served }))).toStrictEqual({
        outcome: "ticket TICKETpins",
        asked: ["identify", "session-ticket"]
      })
    }))

  it.effect("a ready gateway without session-authority-v1 is not ready, and no ticket is minted", () =>
    Effect.gen(function*() {
      const capabilities = allCapabilities.filter((capability) => capability !== "session-authority-v1")
      expect(yield* identifyThenMint(identifyResult({ capabilities }))).toStrictEqual({
        outcome: "not-ready",
        asked: ["identify"]
      })
    }))

  it.effect("a foreign origin is refused before the profile and readiness checks", () =>
    Effect.gen(function*() {
      expect(
        yield* identifyThenMint(
          identifyResult({ api_origin: "http://10.0.0.1:1", state: "failed", served_profiles: [] })
        )
      ).toStrictEqual({ outcome: "foreign-origin", asked: ["identify"] })
    }))

  it.effect("a missing profile is incompatible even while the gateway is not ready", () =>
    Effect.gen(function*() {
      expect(yield* identifyThenMint(identifyResult({ state: "starting", served_profiles: [] }))).toStrictEqual({
        outcome: "incompatible",
        asked: ["identify"]
      })
    }))
})
