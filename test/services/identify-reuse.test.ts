// C2's one saving (D47), in Ticket itself: a status read may mint against the last identify this
// process made of the same socket, while it is at most 10 s old and nothing has dropped it. The
// control socket is an in-memory one that counts what it is asked; time is the TestClock's. The same
// rules through the real layers, against a gateway in another process: test/services/identify-reuse-remote.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"
import type { ControlReply, ControlRequest } from "../../src/schema/control.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import type { Located } from "../../src/services/gateway-path.js"
import { type GatewayError, gatewayError } from "../../src/services/GatewayError.js"
import { GatewaySocket } from "../../src/services/GatewaySocket.js"
import { reusedFor, Ticket, TicketLive } from "../../src/services/Ticket.js"

const home = "/home/operator/.hermes"
const here: Located = { home, socket: `${home}/gateway.sock` }
const instance = "feed0002000000000000000000000000"

const identifyReply = (state = "ready"): ControlReply => ({
  ok: true,
  protocol: 1,
  id: 1,
  result: {
    kind: "hermes-gateway",
    instance_id: instance,
    runtime_protocol: 1,
    state,
    api_origin: "http://127.0.0.1:35983",
    served_profiles: [{ profile_id: home, home }],
    capabilities: ["session-authority-v1"]
  }
})

const ticketReply = (echo: { instance_id?: string; profile_id?: string } = {}): ControlReply => ({
  ok: true,
  protocol: 1,
  id: 1,
  result: {
    ticket: "TICKETxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    expires_in_seconds: 30,
    instance_id: instance,
    profile_id: home,
    runtime_protocol: 1,
    ...echo
  }
})

/** What the in-memory socket answers next; tests change it between calls. */
interface Script {
  identify: ControlReply
  /** How long the identify's answer takes, on the fiber's clock. */
  identifyTakes: Duration.Duration
  ticket: ControlReply
  /** What C1's walk finds now. */
  found: Effect.Effect<Located, GatewayError>
}

const setUp = Effect.gen(function*() {
  const script: Script = {
    identify: identifyReply(),
    identifyTakes: Duration.zero,
    ticket: ticketReply(),
    found: Effect.succeed(here)
  }
  const asked: Array<ControlRequest["verb"] | "walk"> = []
  const answer = (request: ControlRequest) =>
    Effect.suspend(() => {
      asked.push(request.verb)
      return request.verb === "identify"
        ? Effect.as(Effect.sleep(script.identifyTakes), { located: here, reply: script.identify })
        : Effect.succeed({ located: here, reply: script.ticket })
    })
  const socket = GatewaySocket.of({
    exchange: (request) => answer(request),
    exchangeAt: (_located, request) => answer(request),
    locate: Effect.suspend(() => {
      asked.push("walk")
      return script.found
    })
  })
  const ticket = yield* Effect.provide(
    Ticket,
    TicketLive.pipe(Layer.provide(Layer.merge(Layer.succeed(GatewaySocket, socket), BuddyConfig.gatewayLayer({}))))
  )
  /** The instance `recent` offers, or "none". */
  const recent = Effect.map(ticket.recent, Option.match({ onNone: () => "none", onSome: (found) => found.instanceId }))
  return { script, asked, ticket, recent }
})

describe("Ticket.recent: what a status read may reuse (C2)", () => {
  it.effect("nothing before the first identify, and nothing is walked for it", () =>
    Effect.gen(function*() {
      const { asked, recent } = yield* setUp
      expect(yield* recent).toBe("none")
      expect(asked).toStrictEqual([])
    }))

  it.effect("the last identify, for 10 s after it was asked and not a millisecond longer, C1 walked at each reuse", () =>
    Effect.gen(function*() {
      const { asked, recent, ticket } = yield* setUp
      expect(Duration.toMillis(reusedFor)).toBe(10_000)
      yield* ticket.identify
      expect(yield* recent).toBe(instance)
      yield* TestClock.adjust(Duration.seconds(10))
      expect(yield* recent).toBe(instance)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* recent).toBe("none")
      // The expired one is not walked for: nothing to reuse is known before the walk.
      expect(asked).toStrictEqual(["identify", "walk", "walk"])
    }))

  it.effect("its age counts from when the identify was asked, not from its answer", () =>
    Effect.gen(function*() {
      const { recent, script, ticket } = yield* setUp
      script.identifyTakes = Duration.seconds(4)
      const identifying = yield* Effect.fork(ticket.identify)
      yield* TestClock.adjust(Duration.seconds(4))
      yield* Fiber.join(identifying)
      yield* TestClock.adjust(Duration.seconds(6))
      expect(yield* recent).toBe(instance)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* recent).toBe("none")
    }))

  it.effect("none when C1 now finds another socket, another home, or refuses the path", () =>
    Effect.gen(function*() {
      const { recent, script, ticket } = yield* setUp
      yield* ticket.identify
      script.found = Effect.succeed({ home, socket: "/run/user/1000/hermes-gw-0123456789abcdef/control.sock" })
      expect(yield* recent).toBe("none")
      script.found = Effect.succeed({ home: "/home/operator/other", socket: here.socket })
      expect(yield* recent).toBe("none")
      script.found = Effect.fail(gatewayError("unsafe-socket"))
      expect(yield* recent).toBe("none")
      // Each is the walk's verdict of now, not a drop: the same socket found again is reused.
      script.found = Effect.succeed({ ...here })
      expect(yield* recent).toBe(instance)
    }))

  it.effect("an accepted mint that echoes the instance and profile keeps it", () =>
    Effect.gen(function*() {
      const { recent, ticket } = yield* setUp
      const endpoint = yield* ticket.identify
      yield* ticket.mint(endpoint)
      yield* ticket.mint(endpoint)
      expect(yield* recent).toBe(instance)
    }))

  it.effect("a refused mint, another instance or profile echoed, each drops it", () =>
    Effect.gen(function*() {
      const { recent, script, ticket } = yield* setUp
      const replies: Array<[string, ControlReply]> = [
        ["refused", { ok: false, protocol: 1, id: 1, error: "PermissionError: stale runtime instance" }],
        ["another instance", ticketReply({ instance_id: "feed0003000000000000000000000000" })],
        ["another profile", ticketReply({ profile_id: "/elsewhere" })]
      ]
      for (const [name, reply] of replies) {
        const endpoint = yield* ticket.identify
        expect(yield* recent, name).toBe(instance)
        script.ticket = reply
        yield* Effect.flip(ticket.mint(endpoint))
        expect(yield* recent, name).toBe("none")
      }
    }))

  it.effect("a failed identify drops the one before it", () =>
    Effect.gen(function*() {
      const { recent, script, ticket } = yield* setUp
      yield* ticket.identify
      script.identify = identifyReply("draining")
      expect((yield* Effect.flip(ticket.identify)).reason).toBe("not-ready")
      expect(yield* recent).toBe("none")
    }))

  it.effect("forget drops it, and the next identify is the one reused", () =>
    Effect.gen(function*() {
      const { recent, ticket } = yield* setUp
      yield* ticket.identify
      yield* ticket.forget
      expect(yield* recent).toBe("none")
      yield* ticket.identify
      expect(yield* recent).toBe(instance)
    }))
})
