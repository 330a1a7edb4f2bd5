// What a Launchpad's config must be, as a Schema, and the one error it fails with (D31, D43). The
// fields arrive from code (`BuddyLive(fields)`), from Effect's `Config` (strings) or from JavaScript
// that no compiler checked, so they are decoded as unknown bytes are: exactly the known fields, no
// other. The error names the field in words and never holds a value (an origin or a path could
// name a customer).
import { Data, Effect, ParseResult, Schema } from "effect"
import * as path from "node:path"
import { Environment, Locale, Origin } from "../schema/config.js"

/** A home given by a Launchpad: absolute, since a relative one moves with the process's working directory. */
const AbsolutePath = Schema.String.pipe(Schema.filter((text) => path.isAbsolute(text)))

/** A size limit: a whole number of bytes, at least one. */
const Bytes = Schema.Int.pipe(Schema.positive())

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
  deadlines: Schema.optional(
    Schema.Struct({
      control: Schema.optional(Schema.DurationFromSelf),
      api: Schema.optional(Schema.DurationFromSelf),
      start: Schema.optional(Schema.DurationFromSelf)
    })
  ),
  limits: Schema.optional(
    Schema.Struct({
      identifyLine: Schema.optional(Bytes),
      ticketLine: Schema.optional(Bytes),
      answer: Schema.optional(Bytes),
      requestBody: Schema.optional(Bytes)
    })
  )
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

/** A config a Launchpad gave that cannot serve, and which field is why; its message says it in words. */
export class ConfigInvalid extends Data.TaggedError("ConfigInvalid")<{ readonly reason: Reason }> {
  override get message(): string {
    return `buddy's config cannot serve: ${reasonWords[this.reason]}.`
  }
}

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
const reasonOf = (error: ParseResult.ParseError): Reason => {
  const [field] = ParseResult.ArrayFormatter.formatErrorSync(error).flatMap((issue) => issue.path)
  return field === undefined ? "not-an-object" : fieldReasons[String(field)] ?? "unknown-field"
}

const decodeFields = Schema.decodeUnknown(ConfigFields, { onExcessProperty: "error" })

/** `input` as a Launchpad's fields, exactly, or the reason it cannot serve. */
export const checkFields = (input: unknown) =>
  decodeFields(input).pipe(
    Effect.mapError((error) => new ConfigInvalid({ reason: reasonOf(error) })),
    Effect.filterOrFail(
      (fields) => fields.buddyOrigin !== fields.launchpadOrigin,
      () => new ConfigInvalid({ reason: "same-origins" })
    )
  )
