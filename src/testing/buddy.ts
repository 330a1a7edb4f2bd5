// buddy's own services on the fake gateway, for a Launchpad's tests: `BuddyLive` of the Launchpad's
// fields with the fake's home as `hermesHome` (the machine-wide holder lock and real deadlines
// included), the journal captured. What `BuddyHttpApp` and the services answer is then real buddy
// talking to a fake Hermes over its real socket and loopback port.
import { Effect, Layer } from "effect"
import { BuddyLive, type BuddyServices } from "../http/live.js"
import type { BuddyConfigFields, ConfigInvalid } from "../services/BuddyConfig.js"
import { type Journal, JournalCapture, type JournalLines } from "../services/Journal.js"
import { FakeGateway, type FakeGatewaySetup } from "./gateway.js"

/** A Launchpad's config fields without `hermesHome`: the home is the fake's. */
export type LaunchpadFields = Omit<BuddyConfigFields, "hermesHome">

/**
 * `BuddyLive(fields)` on a fake gateway started as `setup` says, the journal captured: the layer
 * gives what `BuddyHttpApp` needs (`BuddyServices`), the fake's controls (`FakeGateway`) and the
 * journal's lines (`JournalLines`). Building it fails with `ConfigInvalid` as `BuddyLive` does.
 */
export const BuddyOnFakeGateway = (
  fields: LaunchpadFields,
  setup: FakeGatewaySetup = {}
): Layer.Layer<BuddyServices | FakeGateway | JournalLines, ConfigInvalid> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const { home } = yield* FakeGateway
      const journal = yield* Effect.context<Journal>()
      return BuddyLive({ ...fields, hermesHome: home }, Layer.succeedContext(journal))
    })
  ).pipe(Layer.provideMerge(Layer.merge(FakeGateway.layer(setup), JournalCapture)))
