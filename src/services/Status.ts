// Status (C5): Buddy's state as a pure function of one fresh reading of the openai-codex card,
// never cached: concurrent reads share a reading only if it began after each of them arrived
// (./shared-reading.ts). It never fails: `unknown` with the closed reason is a value.
import { Context, Effect, Layer } from "effect"
import type { GatewayReason } from "../schema/reasons.js"
import { HermesApi } from "./HermesApi.js"
import { sharedReading } from "./shared-reading.js"

export type BuddyStatus =
  | { readonly state: "works" }
  | { readonly state: "waits" }
  | { readonly state: "unknown"; readonly reason: GatewayReason }

export class Status extends Context.Tag("buddy/Status")<Status, {
  readonly read: Effect.Effect<BuddyStatus>
}>() {}

export const StatusLive = Layer.effect(
  Status,
  Effect.gen(function*() {
    const api = yield* HermesApi
    const reading = api.providerCard.pipe(
      Effect.map(({ value }): BuddyStatus => ({ state: value.loggedIn ? "works" : "waits" })),
      Effect.catchAll((error) => Effect.succeed({ state: "unknown" as const, reason: error.reason }))
    )
    // Concurrent reads share one reading that began after each of them arrived (C5).
    return Status.of({ read: yield* sharedReading(reading) })
  })
)
