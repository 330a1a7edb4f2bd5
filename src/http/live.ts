// The layers a Launchpad builds (D43): from the fields it names (`BuddyLive`) or from Effect's
// `Config` (`BuddyLiveConfig`), checked, each providing exactly what a Launchpad uses: SignIn and
// Status, the journal, and the config. Their types are written out over exported tags only, so a
// Launchpad that emits declarations can name them (the gateway client, tickets and the holder lock
// are provided inside and hidden).
import { type Config, type ConfigError, Layer } from "effect"
import {
  BuddyConfig,
  type BuddyConfigFields,
  type BuddyConfigShape,
  type BuddyConfigStrings,
  type ConfigInvalid
} from "../services/BuddyConfig.js"
import { type Journal, JournalLive } from "../services/Journal.js"
import { BuddyServicesLive as services } from "../services/layers.js"
import { SetupReportLive } from "../services/SetupReport.js"
import type { SignIn } from "../services/SignIn.js"
import type { Status } from "../services/Status.js"

/** What the layers provide: what `BuddyHttpApp` and a Launchpad that asks the services itself use. */
export type BuddyServices = SignIn | Status | Journal | BuddyConfig

/**
 * The gateway client's services with a setup report of their own (D50): a home that does not exist
 * or is no directory is said as they are built and by the first read that meets it, and the app
 * says each cause of a same-origin refusal once, all on Effect's logger.
 */
const reported = services.pipe(Layer.provideMerge(SetupReportLive))

/** SignIn and Status on the gateway client, given a BuddyConfig and a Journal. */
export const BuddyServicesLive: Layer.Layer<SignIn | Status, never, BuddyConfig | Journal> = reported

/** The services on a config layer and a journal layer, the internal tags hidden. */
const on = <E>(config: Layer.Layer<BuddyConfig, E>, journal: Layer.Layer<Journal>): Layer.Layer<BuddyServices, E> =>
  reported.pipe(Layer.provideMerge(journal), Layer.provideMerge(config))

/**
 * Everything `BuddyHttpApp` needs, from a Launchpad's fields, checked (`BuddyConfig.make`), with
 * the journal on stdout unless another is given (`Journal.layer`, `JournalSilent`). Building it
 * fails with `ConfigInvalid`, and says on Effect's logger when the config has no Buddy.
 */
export const BuddyLive = (
  fields: BuddyConfigFields,
  journal: Layer.Layer<Journal> = JournalLive
): Layer.Layer<BuddyServices, ConfigInvalid> => on(BuddyConfig.layer(fields), journal)

/**
 * `BuddyLive` with its fields read by Effect's `Config`: `BuddyConfig.config` (the `BUDDY_*`
 * variables) unless another is given. A missing field fails with Effect's `ConfigError`.
 */
export const BuddyLiveConfig = (
  config: Config.Config<BuddyConfigStrings> = BuddyConfig.config,
  journal: Layer.Layer<Journal> = JournalLive
): Layer.Layer<BuddyServices, ConfigInvalid | ConfigError.ConfigError> => on(BuddyConfig.layerConfig(config), journal)

/** For `buddy serve`, whose config is checked already and whose absence it says itself. */
export const servedLayer = (config: BuddyConfigShape): Layer.Layer<BuddyServices> =>
  on(Layer.succeed(BuddyConfig, config), JournalLive)
