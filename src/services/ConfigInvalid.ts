// What a Launchpad's config must be, as a Schema, and the one error it fails with (D31, D43). The
// fields arrive from code (`BuddyLive(fields)`), from Effect's `Config` (strings) or from JavaScript
// that no compiler checked, so they are decoded as unknown bytes are: exactly the known fields, no
// other. The error names the field in words and never holds a value (an origin or a path could
// name a customer).
import { Data, Effect, ParseResult, Schema } from "effect"
import * as path from "node:path"
import { Environment, Locale, Origin } from "../schema/config.js"
import { nearest } from "./nearest.js"
import { shown } from "./shown.js"

/** A home given by a Launchpad: absolute, since a relative one moves with the process's working directory. */
const AbsolutePath = Schema.String.pipe(Schema.filter((text) => path.isAbsolute(text)))

/** A size limit: a whole number of bytes, at least one. */
const Bytes = Schema.Int.pipe(Schema.positive())

const deadlineFields = {
  control: Schema.optional(Schema.DurationFromSelf),
  api: Schema.optional(Schema.DurationFromSelf),
  start: Schema.optional(Schema.DurationFromSelf)
}

const limitFields = {
  identifyLine: Schema.optional(Bytes),
  ticketLine: Schema.optional(Bytes),
  answer: Schema.optional(Bytes),
  requestBody: Schema.optional(Bytes)
}

/** What `BuddyConfig.make` accepts: the required origin and environment, the rest optional, nothing else. */
export const ConfigFields = Schema.Struct({
  hermesHome: Schema.optional(AbsolutePath),
  launchpadOrigin: Origin,
  buddyOrigin: Schema.optional(Origin),
  environment: Environment,
  locale: Schema.optional(Locale),
  // Every optional field, nested ones included, takes an explicit undefined for its default (D51):
  // a Launchpad under exactOptionalPropertyTypes writes `deadlines: undefined`, and plain JavaScript
  // spreads an options object whose fields may be undefined.
  deadlines: Schema.optional(Schema.Struct(deadlineFields)),
  limits: Schema.optional(Schema.Struct(limitFields))
})

type Reason =
  | "launchpad-origin"
  | "buddy-origin"
  | "same-origins"
  | "environment"
  | "locale"
  | "hermes-home"
  | "deadlines"
  | "limits"
  | "unknown-field"
  | "not-an-object"

/** Each reason in words: what the field must be, never what it was. */
const reasonWords: Readonly<Record<Reason, string>> = {
  "launchpad-origin":
    "launchpadOrigin must be the Launchpad's origin as a browser sends it: scheme, host and optional port, nothing " +
    "after (https://launchpad.example)",
  "buddy-origin": "buddyOrigin must be Buddy's origin as a browser sends it: scheme, host and optional port, nothing " +
    "after (https://buddy.example)",
  "same-origins": "launchpadOrigin and buddyOrigin must differ: Buddy's own page may not drive his sign-in",
  environment: `environment must be one of ${Environment.literals.join(", ")}`,
  locale: `locale must be one of ${Locale.literals.join(", ")}`,
  "hermes-home": "hermesHome must be an absolute path: a relative one would move with the working directory",
  deadlines: "deadlines may name only control, api and start, each a Duration",
  limits: "limits may name only identifyLine, ticketLine, answer and requestBody, each a whole number of bytes above 0",
  "unknown-field": `the config has a field buddy does not know; it takes ${
    Object.keys(ConfigFields.fields).join(", ")
  }`,
  "not-an-object": "the config must be an object with launchpadOrigin and environment"
}

/** The longest part of a key of the config's repeated: it is the Launchpad's text, if no value. */
const keyLength = 40

/**
 * A config a Launchpad gave that cannot serve, and which field is why; its message says it in words.
 * A key buddy does not know (at the top, or in `deadlines` or `limits`) is named with the known ones
 * near it, as `buddy serve`'s config file names them: a key is no value, and a misspelt one is the
 * commonest mistake (`buddyorigin`).
 */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{
  readonly reason: Reason
  /** The key buddy does not know, as given (bounded when said). */
  readonly unknownKey?: string
  /** The known keys near it (`nearest`), perhaps none. */
  readonly nearest?: ReadonlyArray<string>
}> {
  override get message(): string {
    return `buddy's config cannot serve: ${reasonWords[this.reason]}${
      this.unknownKey === undefined ? "" : keyWords(this.unknownKey, this.nearest ?? [])
    }.`
  }
}

/** What is said of an unknown key: its name, and the known ones near it. */
const keyWords = (key: string, near: ReadonlyArray<string>) =>
  `; ${shown(key, keyLength)} is none of them${
    near.length === 0 ? "" : ` (did you mean ${near.map((name) => `"${name}"`).join(" or ")}?)`
  }`

/** The field a decoding issue is about, as its reason. */
const fieldReasons: Readonly<Record<string, Reason>> = {
  hermesHome: "hermes-home",
  launchpadOrigin: "launchpad-origin",
  buddyOrigin: "buddy-origin",
  environment: "environment",
  locale: "locale",
  deadlines: "deadlines",
  limits: "limits"
}

/**
 * The first issue's field (the first key of the issues' paths: an issue without one, the fields being
 * no object, names none): a known one (whatever is wrong beneath it), a key of its own that no
 * field has, or none at all when the fields are no object. A decoding error has at least one issue.
 */
const reasonOf = (path: ReadonlyArray<PropertyKey>): Reason => {
  const [field] = path
  return field === undefined ? "not-an-object" : fieldReasons[String(field)] ?? "unknown-field"
}

/** The keys each level of the fields knows: the fields themselves, and those of `deadlines` and `limits`. */
const knownKeys = (path: ReadonlyArray<PropertyKey>): ReadonlyArray<string> =>
  path.length === 1
    ? Object.keys(ConfigFields.fields)
    : path[0] === "deadlines"
    ? Object.keys(deadlineFields)
    : Object.keys(limitFields)

/**
 * The error for the decode's first issue. Schema reports a key a struct does not name before anything
 * else of it, so a misspelt required field (`launchpadorigin`) is named as such, not as missing.
 */
const invalidOf = (error: ParseResult.ParseError): ConfigInvalid => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  // A decoding error has at least one issue; the fallback is for the type.
  // Stryker disable next-line OptionalChaining,ArrayDeclaration: unreachable, as above
  const path = issue?.path ?? []
  const reason = reasonOf(path)
  // Stryker disable next-line OptionalChaining: unreachable, as above
  if (issue?._tag !== "Unexpected") return new ConfigInvalid({ reason })
  const key = String(path[path.length - 1])
  return new ConfigInvalid({ reason, unknownKey: key, nearest: nearest(key, knownKeys(path)) })
}

const decodeFields = Schema.decodeUnknown(ConfigFields, { onExcessProperty: "error" })

/** `input` as a Launchpad's fields, exactly, or the reason it cannot serve. */
export const checkFields = (input: unknown) =>
  decodeFields(input).pipe(
    Effect.mapError(invalidOf),
    Effect.filterOrFail(
      (fields) => fields.buddyOrigin !== fields.launchpadOrigin,
      () => new ConfigInvalid({ reason: "same-origins" })
    )
  )
