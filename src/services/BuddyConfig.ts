// BuddyConfig: the home, origins, environment and locale (C6 "Config"), plus the deadlines and
// size limits of C2/C3. One value for the HTTP app and the CLI; tests shorten the deadlines.
// `make`, `layer` and `layerConfig` are what a Launchpad calls: they take the origins and the
// environment as required fields and check them, failing with `ConfigInvalid` rather than defaulting
// to an app where every route is absent (D31); the layers say once, on Effect's logger, when the
// config they hold has no Buddy (D43). `forGateway` is for what uses only the gateway client (the
// CLI, tests): its HTTP fields are the closed defaults, and nothing serves them.
import { Config, type ConfigError, Context, Duration, Effect, Layer, Option } from "effect"
import type { Environment, Locale } from "../schema/config.js"
import { checkFields, type ConfigInvalid } from "./ConfigInvalid.js"

export { ConfigInvalid } from "./ConfigInvalid.js"

export interface Deadlines {
  /** One control-socket exchange (C2, default 5 s). */
  readonly control: Duration.Duration
  /** One API call (C3, default 5 s). */
  readonly api: Duration.Duration
  /** The start call (C3, 15 s: Hermes waits up to 10 s for OpenAI's code). */
  readonly start: Duration.Duration
}

export interface Limits {
  /** identify reply line (C2). */
  readonly identifyLine: number
  /** session-ticket reply line (C2). */
  readonly ticketLine: number
  /** One API answer body (C3). */
  readonly answer: number
  /** One request body to our own routes (C6). */
  readonly requestBody: number
}

export interface BuddyConfigShape {
  /** `--home` / config override; otherwise `HERMES_HOME`, else `~/.hermes` (C1.1). */
  readonly hermesHome: string | undefined
  readonly launchpadOrigin: string
  readonly buddyOrigin: string | undefined
  readonly environment: Environment
  readonly locale: Locale
  readonly deadlines: Deadlines
  readonly limits: Limits
}

export const defaultDeadlines: Deadlines = {
  control: Duration.seconds(5),
  api: Duration.seconds(5),
  start: Duration.seconds(15)
}

export const defaultLimits: Limits = {
  identifyLine: 512 * 1024,
  ticketLine: 64 * 1024,
  answer: 256 * 1024,
  requestBody: 16 * 1024
}

/** Some of the deadlines; a field left out or given as `undefined` keeps its default (D51). */
export type DeadlinesGiven = { readonly [K in keyof Deadlines]?: Deadlines[K] | undefined }

/** Some of the limits; a field left out or given as `undefined` keeps its default (D51). */
export type LimitsGiven = { readonly [K in keyof Limits]?: Limits[K] | undefined }

/**
 * What a Launchpad gives: the origins and the environment required, the rest with the contract's
 * defaults. Every optional field takes an explicit `undefined` for its default (D51).
 */
export interface BuddyConfigFields {
  readonly hermesHome?: string | undefined
  readonly launchpadOrigin: string
  readonly buddyOrigin?: string | undefined
  readonly environment: Environment
  readonly locale?: Locale | undefined
  readonly deadlines?: DeadlinesGiven | undefined
  readonly limits?: LimitsGiven | undefined
}

/**
 * The fields as Effect's `Config` reads them: text, checked as `make` checks (`layerConfig`). A
 * missing required one is Effect's own `ConfigError`, naming where it was looked for.
 */
export interface BuddyConfigStrings {
  readonly hermesHome?: string | undefined
  readonly launchpadOrigin: string
  readonly buddyOrigin?: string | undefined
  readonly environment: string
  readonly locale?: string | undefined
}

const optional = (name: string) => Config.string(name).pipe(Config.option, Config.map(Option.getOrUndefined))

/**
 * Why Buddy is absent under `config` (C6 check 1): the field that makes it so, or `undefined` when
 * he is here. A missing Buddy origin is named first: it is the one a Launchpad forgets.
 */
export const absentBy = (config: Pick<BuddyConfigShape, "buddyOrigin" | "environment">) =>
  config.buddyOrigin === undefined
    ? "buddyOrigin"
    : config.environment === "hosted-personal"
    ? undefined
    : "environment"

/** What a config without Buddy says, by the field that made him absent. */
const absenceWords: Readonly<Record<NonNullable<ReturnType<typeof absentBy>>, (config: BuddyConfigShape) => string>> = {
  buddyOrigin: () =>
    "buddy: the config has no buddyOrigin, so Buddy is absent here and every route of the app answers 404 " +
    "buddy-absent; give buddyOrigin (Buddy's own origin) where Buddy runs.",
  environment: (config) =>
    `buddy: the config's environment is ${config.environment}, not hosted-personal, so Buddy is absent here ` +
    "and every route of the app answers 404 buddy-absent."
}

/** Said once when a layer holding `config` is built, on Effect's logger: a config without Buddy serves only 404s. */
const sayAbsence = (config: BuddyConfigShape): Effect.Effect<void> => {
  const field = absentBy(config)
  return field === undefined ? Effect.void : Effect.logWarning(absenceWords[field](config))
}

/** The contract's defaults under whatever is given. */
const filled = (fields: Partial<BuddyConfigFields>): BuddyConfigShape => ({
  hermesHome: fields.hermesHome,
  launchpadOrigin: fields.launchpadOrigin ?? "http://127.0.0.1",
  buddyOrigin: fields.buddyOrigin,
  environment: fields.environment ?? "local",
  locale: fields.locale ?? "en",
  // Field by field, not spread: a field given as undefined would otherwise replace its default (D51).
  deadlines: {
    control: fields.deadlines?.control ?? defaultDeadlines.control,
    api: fields.deadlines?.api ?? defaultDeadlines.api,
    start: fields.deadlines?.start ?? defaultDeadlines.start
  },
  limits: {
    identifyLine: fields.limits?.identifyLine ?? defaultLimits.identifyLine,
    ticketLine: fields.limits?.ticketLine ?? defaultLimits.ticketLine,
    answer: fields.limits?.answer ?? defaultLimits.answer,
    requestBody: fields.limits?.requestBody ?? defaultLimits.requestBody
  }
})

export class BuddyConfig extends Context.Tag("buddy/BuddyConfig")<BuddyConfig, BuddyConfigShape>() {
  /**
   * A Launchpad's config, checked: origins of C6's form (and two different ones), an environment
   * and a locale the contract names. The values themselves are never in the error.
   */
  static readonly make = (fields: BuddyConfigFields): Effect.Effect<BuddyConfigShape, ConfigInvalid> =>
    Effect.map(checkFields(fields), filled)

  /** `make` as a layer: building it fails with `ConfigInvalid`, and says so when Buddy is absent. */
  static readonly layer = (fields: BuddyConfigFields): Layer.Layer<BuddyConfig, ConfigInvalid> =>
    Layer.effect(BuddyConfig, Effect.tap(BuddyConfig.make(fields), sayAbsence))

  /**
   * The fields from Effect's `Config`: by default `BUDDY_LAUNCHPAD_ORIGIN`, `BUDDY_ORIGIN`,
   * `BUDDY_ENVIRONMENT`, `BUDDY_LOCALE` and `BUDDY_HERMES_HOME` (under the default provider; nested
   * `BUDDY` and its names under any other).
   */
  static readonly config: Config.Config<BuddyConfigStrings> = Config.all({
    hermesHome: optional("HERMES_HOME"),
    launchpadOrigin: Config.string("LAUNCHPAD_ORIGIN"),
    buddyOrigin: optional("ORIGIN"),
    environment: Config.string("ENVIRONMENT"),
    locale: optional("LOCALE")
  }).pipe(Config.nested("BUDDY"))

  /** `layer` with the fields read from `config`: fails with `ConfigError` (missing) or `ConfigInvalid` (wrong). */
  static readonly layerConfig = (
    config: Config.Config<BuddyConfigStrings> = BuddyConfig.config
  ): Layer.Layer<BuddyConfig, ConfigInvalid | ConfigError.ConfigError> =>
    Layer.effect(
      BuddyConfig,
      config.pipe(Effect.flatMap(checkFields), Effect.map(filled), Effect.tap(sayAbsence))
    )

  /**
   * For what uses only the gateway client (the CLI, tests): the home, deadlines and limits as
   * given, the HTTP fields the closed defaults (local, so every route is absent), never served.
   */
  static readonly forGateway = (fields: Partial<BuddyConfigFields> = {}): BuddyConfigShape => filled(fields)

  static readonly gatewayLayer = (fields: Partial<BuddyConfigFields> = {}): Layer.Layer<BuddyConfig> =>
    Layer.succeed(BuddyConfig, filled(fields))
}
