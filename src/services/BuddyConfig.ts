// BuddyConfig: the home, origins, environment and locale (C6 "Config"), plus the deadlines and
// size limits of C2/C3. One value for the HTTP app and the CLI; tests shorten the deadlines.
// `make` and `layer` are what a Launchpad calls: they take the origins and the environment as
// required fields and check them, failing with `ConfigInvalid` rather than defaulting to an app
// where every route is absent (D31). `forGateway` is for what uses only the gateway client (the CLI,
// tests): its HTTP fields are the closed defaults, and nothing serves them.
import { Context, Data, Duration, Effect, Layer, Schema } from "effect"
import { Environment, Locale, Origin } from "../schema/config.js"

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

/** What a Launchpad gives: the origins and the environment required, the rest with the contract's defaults. */
export interface BuddyConfigFields {
  readonly hermesHome?: string | undefined
  readonly launchpadOrigin: string
  readonly buddyOrigin?: string | undefined
  readonly environment: Environment
  readonly locale?: Locale
  readonly deadlines?: Partial<Deadlines>
  readonly limits?: Partial<Limits>
}

/** A config a Launchpad gave that cannot serve, and which field is why. */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{
  readonly reason: "launchpad-origin" | "buddy-origin" | "same-origins" | "environment" | "locale"
}> {}

const isOrigin = Schema.is(Origin)
const isEnvironment = Schema.is(Environment)
const isLocale = Schema.is(Locale)

/** The contract's defaults under whatever is given. */
const filled = (fields: Partial<BuddyConfigFields>): BuddyConfigShape => ({
  hermesHome: fields.hermesHome,
  launchpadOrigin: fields.launchpadOrigin ?? "http://127.0.0.1",
  buddyOrigin: fields.buddyOrigin,
  environment: fields.environment ?? "local",
  locale: fields.locale ?? "en",
  deadlines: { ...defaultDeadlines, ...fields.deadlines },
  limits: { ...defaultLimits, ...fields.limits }
})

export class BuddyConfig extends Context.Tag("buddy/BuddyConfig")<BuddyConfig, BuddyConfigShape>() {
  /**
   * A Launchpad's config, checked: origins of C6's form (and two different ones), an environment
   * and a locale the contract names. The values themselves are never in the error.
   */
  static readonly make = (fields: BuddyConfigFields): Effect.Effect<BuddyConfigShape, ConfigInvalid> =>
    Effect.suspend(() => {
      const invalid = (reason: ConfigInvalid["reason"]) => Effect.fail(new ConfigInvalid({ reason }))
      if (!isOrigin(fields.launchpadOrigin)) return invalid("launchpad-origin")
      if (fields.buddyOrigin !== undefined && !isOrigin(fields.buddyOrigin)) return invalid("buddy-origin")
      if (fields.buddyOrigin === fields.launchpadOrigin) return invalid("same-origins")
      if (!isEnvironment(fields.environment)) return invalid("environment")
      if (fields.locale !== undefined && !isLocale(fields.locale)) return invalid("locale")
      return Effect.succeed(filled(fields))
    })

  /** `make` as a layer: building it fails with `ConfigInvalid`. */
  static readonly layer = (fields: BuddyConfigFields): Layer.Layer<BuddyConfig, ConfigInvalid> =>
    Layer.effect(BuddyConfig, BuddyConfig.make(fields))

  /**
   * For what uses only the gateway client (the CLI, tests): the home, deadlines and limits as
   * given, the HTTP fields the closed defaults (local, so every route is absent), never served.
   */
  static readonly forGateway = (fields: Partial<BuddyConfigFields> = {}): BuddyConfigShape => filled(fields)

  static readonly gatewayLayer = (fields: Partial<BuddyConfigFields> = {}): Layer.Layer<BuddyConfig> =>
    Layer.succeed(BuddyConfig, filled(fields))
}
