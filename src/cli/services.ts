// The services a command runs on, built from its `--home`. By default they are the live layers
// (the same graph the HTTP app uses) with a silent journal: in a terminal the answer itself is the
// record, and no journal line may mix into stdout. Tests put their own layer here, e.g. one whose
// SignIn already holds a sign-in, which a fresh CLI process never has.
import { Context, Layer } from "effect"
import { BuddyConfig } from "../services/BuddyConfig.js"
import type { HolderLock } from "../services/HolderLock.js"
import { JournalSilent } from "../services/Journal.js"
import { BuddyServicesLive } from "../services/layers.js"
import type { SignIn } from "../services/SignIn.js"
import type { Status } from "../services/Status.js"

export const liveServices = (hermesHome: string | undefined): Layer.Layer<SignIn | Status | HolderLock> =>
  BuddyServicesLive.pipe(Layer.provide(Layer.merge(BuddyConfig.gatewayLayer({ hermesHome }), JournalSilent)))

export class CliServices extends Context.Reference<CliServices>()("buddy/cli/CliServices", {
  defaultValue: () => ({ forHome: liveServices })
}) {}
