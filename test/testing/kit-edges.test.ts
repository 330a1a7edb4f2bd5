// The test kit's own edges, each a promise a Launchpad's suite leans on (D53): a setup's defaults and
// its explicit values, the simulator's hand approval, and the names a
// Launchpad's logs and `Effect.catchTag` see.
import { describe, expect, it } from "@effect/vitest"
import { BuddyLive, JournalSilent, SignIn, Status } from "@lazurio/buddy"
import { FakeGateway, FakeGatewayError, startSimulator } from "@lazurio/buddy/testing"
import { Effect } from "effect"
import { optionsOf } from "../../src/testing/gateway.js"

const fields = {
  launchpadOrigin: "https://launchpad.example",
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal"
} as const

describe("a fake gateway's setup", () => {
  it("is the contract's usual Hermes wherever it says nothing, explicit undefined included", () => {
    const usual = { contract: true, signedIn: false, state: "ready", socket: "direct" }
    expect(optionsOf({})).toStrictEqual(usual)
    expect(optionsOf({ contract: undefined, signedIn: undefined, state: undefined, socket: undefined }))
      .toStrictEqual(usual)
  })

  it("keeps every value it is given", () => {
    const given = { contract: false, signedIn: true, state: "starting", socket: "pointer" } as const
    expect(optionsOf(given)).toStrictEqual(given)
  })
})

describe("the simulator approved by hand", () => {
  it.live("says true when it approved a pending sign-in, and Buddy then works", () =>
    Effect.gen(function*() {
      const simulator = yield* Effect.promise(() => startSimulator())
      const layer = BuddyLive({ ...fields, hermesHome: simulator.home }, JournalSilent)
      const read = Effect.provide(Effect.flatMap(Status, (status) => status.read), layer)
      const { handle } = yield* Effect.provide(Effect.flatMap(SignIn, (signIn) => signIn.start), layer)
      expect(handle.length).toBeGreaterThan(0)
      expect(simulator.approve()).toBe(true)
      expect(simulator.approve()).toBe(false)
      expect(yield* read).toStrictEqual({ state: "works" })
      yield* Effect.promise(simulator.stop)
    }))
})

describe("the names a Launchpad's logs and catchTag see", () => {
  it("are the kit's own", () => {
    expect(new FakeGatewayError({ reason: "no-pending-sign-in" })._tag).toBe("FakeGatewayError")
    expect(FakeGateway.key).toBe("buddy/testing/FakeGateway")
  })
})
