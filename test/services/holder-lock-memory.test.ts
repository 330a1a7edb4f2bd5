// HolderLockMemory, the in-memory lock the services' tests run SignIn on (src/services/HolderLock.ts):
// a home its `others` map names is held by that process, in `take`'s refusal and in `holder`'s look
// alike; without the map nothing is ever held.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HolderLock, HolderLockMemory } from "../../src/services/HolderLock.js"
import { heldByPid, said } from "./support/lock-scene.js"

const lockAt = (home: string, others?: Ref.Ref<ReadonlyMap<string, number>>) =>
  Effect.provide(
    HolderLock,
    HolderLockMemory(others).pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home })))
  )

describe("the in-memory holder lock", () => {
  it.effect("says a home the others hold is held by their process, in the take and the look alike", () =>
    Effect.gen(function*() {
      const others = yield* Ref.make<ReadonlyMap<string, number>>(new Map([["/held", 4711]]))
      const held = yield* lockAt("/held", others)
      expect(said(yield* Effect.flip(held.take))).toStrictEqual(heldByPid(4711))
      expect(yield* held.holder).toStrictEqual(Option.some({ pid: Option.some(4711) }))
      const free = yield* lockAt("/free", others)
      yield* free.take
      expect(yield* free.holder).toStrictEqual(Option.none())
    }))

  it.effect("without others, holds nothing anywhere", () =>
    Effect.gen(function*() {
      const lock = yield* lockAt("/held")
      yield* lock.take
      expect(yield* lock.holder).toStrictEqual(Option.none())
    }))
})
