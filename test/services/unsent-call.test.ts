// A sign-in operation whose API origin refuses the connection (nothing of its request sent) fails with
// that refusal, closed and whole: HermesApi's `NothingSent` (C2, D47.3) is the reused status read's
// alone, and every other caller meets the CallError it carries.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { buddyLayer, untilReceived } from "../support/buddy.js"

describe("a call whose connection is refused, nothing of it sent", () => {
  it.live("a sign-out meets the closed CallError not-ready, with its instance, and nothing reached the API", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const hermes = yield* Effect.provide(HermesApi, buddyLayer(fake).pipe(Layer.orDie))
      // The mint waits; meanwhile the instance's API listener closes (identify already said ready).
      fake.fault("session-ticket", { kind: "late", ms: 300 }, 1)
      const signOut = yield* Effect.fork(Effect.flip(hermes.signOut))
      yield* untilReceived(
        fake,
        (entry) => entry.channel === "control" && entry.line.includes("session-ticket"),
        "the mint"
      )
      fake.setState("failed")
      const error = yield* Fiber.join(signOut)
      expect(error).toStrictEqual(
        expect.objectContaining({
          _tag: "CallError",
          reason: "not-ready",
          mayHaveRun: false,
          instance: { instanceId: fake.instanceId, contract: true }
        })
      )
      expect(fake.received.filter((entry) => entry.channel === "http")).toStrictEqual([])
    }).pipe(Effect.scoped))
})
