// BuddyConfig's file form (C6 "Config"): what `buddy serve --config FILE` reads, strictly.
import * as Schema from "effect/Schema"

export const Environment = Schema.Literal(
  "hosted-personal",
  "hosted-organization-personal",
  "hosted-organization-team",
  "local"
)
export type Environment = typeof Environment.Type

export const Locale = Schema.Literal("cs", "en")
export type Locale = typeof Locale.Type

/** An origin exactly as a browser sends it: scheme, host, optional port; nothing else. */
export const Origin = Schema.String.pipe(
  Schema.pattern(/^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:]+\])(?::[1-9][0-9]{0,4})?$/)
)

export const ConfigFile = Schema.Struct({
  hermesHome: Schema.optionalWith(Schema.String, { exact: true }),
  launchpadOrigin: Origin,
  buddyOrigin: Schema.optionalWith(Origin, { exact: true }),
  environment: Environment,
  locale: Locale
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type ConfigFile = typeof ConfigFile.Type
