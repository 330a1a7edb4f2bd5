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

/**
 * An origin exactly as a browser sends it: scheme, host, optional port; nothing else. C6's same-origin
 * check compares strings, so the pattern alone is not enough: the WHATWG URL parser must give back
 * the same text (no default port written out, no port past 65535, IPv4 and IPv6 in their canonical
 * forms), or a `launchpadOrigin` would refuse every POST and a `buddyOrigin` would let Buddy's page in.
 */
export const Origin = Schema.String.pipe(
  // The anchors are the filter's too: only a text the parser gives back whole as an origin passes it,
  // and an origin begins with its scheme and ends with its host or port, so no text can pass with
  // anything before or after what the pattern matches.
  // Stryker disable next-line Regex: see above; the pattern's own classes are pinned (test/schema/wire.test.ts)
  Schema.pattern(/^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:]+\])(?::[1-9][0-9]{0,4})?$/),
  // Stryker disable next-line ObjectLiteral: the message is for Schema's own formatters; buddy serve words each field itself (serve.ts)
  Schema.filter((text) => URL.canParse(text) && new URL(text).origin === text, {
    // Stryker disable next-line StringLiteral,ArrowFunction: as above
    message: () => "an origin as a browser sends it"
  })
)

/**
 * An origin as an operator may write it in the file: the scheme's default port written out
 * (`https://launchpad.example:443`) is the origin a browser sends without it, so it is taken and
 * dropped; anything else is `Origin`'s.
 */
export const FileOrigin = Schema.transform(
  Schema.String,
  Origin,
  {
    // Stryker disable next-line BooleanLiteral: `strict` is for the types only
    strict: true,
    // Stryker disable next-line Regex: without `^`, a text with anything before its scheme still fails Origin's anchored pattern
    decode: (text) => text.replace(/^(https:\/\/[^/]*):443$/, "$1").replace(/^(http:\/\/[^/]*):80$/, "$1"),
    // Stryker disable next-line ArrowFunction: nothing encodes a config file
    encode: (origin) => origin
  }
)

/** A local group's name as `groupadd` allows it. */
export const GroupName = Schema.String.pipe(Schema.pattern(/^[a-z_][a-z0-9_.-]{0,31}$/i))

/** A gid: the kernel's 32-bit ids, without -1 (which means "no change" to chown). */
export const Gid = Schema.Int.pipe(Schema.between(0, 4_294_967_294))

export const ConfigFile = Schema.Struct({
  hermesHome: Schema.optionalWith(Schema.String, { exact: true }),
  launchpadOrigin: FileOrigin,
  buddyOrigin: Schema.optionalWith(FileOrigin, { exact: true }),
  environment: Environment,
  /** The words' language: optional, `en` when left out (C6 "Config"). */
  // Stryker disable next-line BooleanLiteral: without `exact` an undefined locale is taken too, which no JSON text can hold
  locale: Schema.optionalWith(Locale, { exact: true, default: () => "en" as const }),
  /**
   * The one group, besides buddy's own account, that `buddy serve`'s socket is shared with (a
   * reverse proxy's), by name or gid (C6 "Who may reach it", D40); without it only this account.
   */
  socketGroup: Schema.optionalWith(Schema.Union(Gid, GroupName), { exact: true })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type ConfigFile = typeof ConfigFile.Type
