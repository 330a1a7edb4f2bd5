// `buddy serve` (C6, C8): the HTTP app on an owner-only Unix socket (`--socket`, with a default in
// buddy's runtime directory) or, with `--port`, on 127.0.0.1 for this account and the config's
// allowedAccounts only (D22); configured from a JSON file with the BuddyConfig fields, the journal
// on stdout. The node server under it has our own deadlines and
// limits (./node-server.ts, D15). SIGINT/SIGTERM stop it at once, requests in flight included:
// the layers close and nothing is cancelled on Hermes (C4.9), so a sign-in the person finishes
// still saves.
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Array as Arr, Console, Data, Effect, Either, Option, ParseResult, Predicate, Schema } from "effect"
import * as fs from "node:fs/promises"
import { ConfigFile, Environment, Locale } from "../schema/config.js"
import { errnoOf } from "../services/errno.js"
import { keepServingWithoutReaders } from "./closed-pipe.js"
import { ExitCode } from "./exit.js"
import { commonOptions } from "./root.js"
import type { Place } from "./serving.js"
import { defaultSocketPath } from "./socket-place.js"
import * as words from "./words.js"

/** A config file that cannot be used: said in words, exit 2 like any usage error. */
class ConfigUnusable extends Data.TaggedError("ConfigUnusable")<{
  /** One sentence per thing wrong with it. */
  readonly lines: ReadonlyArray<string>
}> {}

const fields = "hermesHome (optional), launchpadOrigin, buddyOrigin (optional), environment, locale and " +
  "allowedAccounts (optional)"

const configWords = {
  unreadable: (file: string, why: string) => `buddy serve: the --config file ${file} cannot be read: ${why}.`,
  notJson: (file: string, line: number, column: number, message: string) =>
    `buddy serve: the --config file ${file} is not valid JSON at line ${line}, column ${column}: ${message}.`,
  notObject: (kind: string) => `buddy serve: the --config file holds ${kind}, not a JSON object with ${fields}.`,
  invalid: `buddy serve: the --config file is not a JSON object with exactly ${fields}.`,
  unknownField: (key: string) =>
    `buddy serve: the --config file has a field buddy does not know: ${key}; it takes ${fields}.`,
  sameOrigins:
    "buddy serve: the --config file's launchpadOrigin and buddyOrigin are the same origin; buddy's own origin must " +
    "differ from the Launchpad's page, or every POST from that page is refused."
}

/** An fs error as a person reads it: Node's words after the code, and the code (`no such file or directory (ENOENT)`). */
const systemError = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  return `${message.replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "")} (${errnoOf(error)})`
}

/** Where in the text a JSON.parse error is: V8 says "at position N", or nothing at the end of the input. */
const positionOf = (message: string, text: string): { readonly line: number; readonly column: number } => {
  const at = /position (\d+)/.exec(message)
  const offset = at === null ? text.length : Math.min(Number(at[1]), text.length)
  const before = text.slice(0, offset)
  const lastBreak = before.lastIndexOf("\n")
  return { line: before.split("\n").length, column: offset - lastBreak }
}

/** What a JSON value that is no object is, in words. */
const kindOfJson = (json: unknown): string =>
  Array.isArray(json) ? "an array" : json === null ? "null" : `a ${typeof json}`

/** What each field must be, in words: the Schema's own literals, never the file's values. */
const fieldMustBe: Readonly<Record<keyof ConfigFile, string>> = {
  hermesHome: "a directory path, as a string",
  launchpadOrigin: "an origin such as https://launchpad.example: scheme, host and optional port, nothing after",
  buddyOrigin: "an origin such as https://buddy.example: scheme, host and optional port, nothing after",
  allowedAccounts: "a list of account names or uids, such as [\"www-data\", 33]",
  environment: `one of ${Environment.literals.join(", ")}`,
  locale: `one of ${Locale.literals.join(", ")}`
}

const isField = (key: PropertyKey | undefined): key is keyof ConfigFile =>
  typeof key === "string" && Object.hasOwn(fieldMustBe, key)

/**
 * Each issue of the decode as a sentence naming its field, from the issue's path: a value of the
 * file could hold a secret, so none is repeated. An issue with no field of ours (a field we do not
 * know, or not an object at all) gets the sentence that lists the fields.
 */
const issueWords = (error: ParseResult.ParseError): ReadonlyArray<string> =>
  Arr.dedupe(
    ParseResult.ArrayFormatter.formatErrorSync(error).map(({ _tag, path }) => {
      const [field] = path
      if (_tag === "Unexpected" && path.length === 1 && typeof field === "string") {
        // A key is no value of the file's, but it is the file's text: quoted, and never long.
        return configWords.unknownField(JSON.stringify(field.slice(0, 40)))
      }
      if (!isField(field) || path.length > 1) return configWords.invalid
      return _tag === "Missing"
        ? `buddy serve: the --config file has no "${field}"; it must be ${fieldMustBe[field]}.`
        : `buddy serve: the --config file's "${field}" must be ${fieldMustBe[field]}.`
    })
  )

const decodeConfig = Schema.decodeUnknownEither(ConfigFile, { onExcessProperty: "error", errors: "all" })

/** Without a file, Buddy is absent here: every route answers 404 buddy-absent, and we say why. */
const noFile: ConfigFile = { launchpadOrigin: "http://127.0.0.1", environment: "local", locale: "en" }

const readConfig = (path: Option.Option<string>): Effect.Effect<ConfigFile, ConfigUnusable> =>
  Option.match(path, {
    onNone: () =>
      Effect.as(
        Console.error("buddy serve: no --config given; Buddy is absent here and every route answers buddy-absent."),
        noFile
      ),
    onSome: (file) =>
      Effect.tryPromise({
        try: () => fs.readFile(file, "utf8"),
        catch: (error) => new ConfigUnusable({ lines: [configWords.unreadable(file, systemError(error))] })
      })
        .pipe(
          Effect.flatMap((text) =>
            Either.try({
              try: () => JSON.parse(text) as unknown,
              catch: (error) => {
                const message = error instanceof Error ? error.message.replace(/ in JSON at position \d+.*$/, "") : ""
                const { column, line } = positionOf(error instanceof Error ? error.message : "", text)
                return new ConfigUnusable({ lines: [configWords.notJson(file, line, column, message)] })
              }
            }).pipe(
              Either.flatMap((json) =>
                Predicate.isRecord(json) && !Array.isArray(json)
                  ? Either.mapLeft(decodeConfig(json), (error) => new ConfigUnusable({ lines: issueWords(error) }))
                  : Either.left(new ConfigUnusable({ lines: [configWords.notObject(kindOfJson(json))] }))
              ),
              // An origin the Launchpad's page and buddy share makes every POST from that page cross-origin
              // to buddy's own rule: refused at start, not at every POST (issue 18.3).
              Either.filterOrLeft(
                (config) => config.buddyOrigin === undefined || config.buddyOrigin !== config.launchpadOrigin,
                () => new ConfigUnusable({ lines: [configWords.sameOrigins] })
              )
            )
          )
        )
  })

/** A port is a whole number from 0 to 65535; 0 asks the system for a free one. */
const Port = Schema.Int.pipe(Schema.between(0, 65535))

/**
 * Why `--port`'s value is no port, in words, or nothing when it is one; checked with the rest of
 * the command line (usage, exit 2) before anything starts, so @effect/cli's own words never show.
 */
export const portProblem = (text: string): Option.Option<string> => {
  if (!/^-?[0-9]+$/.test(text)) {
    return Option.some(`--port ${JSON.stringify(text)} is not a port number: ${portRange}`)
  }
  return Schema.is(Port)(Number(text)) ? Option.none() : Option.some(`--port ${text} is out of range: ${portRange}`)
}
const portRange = "a port is a whole number from 0 to 65535 (0 picks a free one)."

const bothPlaces = "buddy serve: --socket and --port choose where to listen; give one of them."

/** `--port` is TCP for this account and the allowed ones; otherwise the owner-only socket (D22). */
const placeOf = (
  port: Option.Option<number>,
  socket: Option.Option<string>,
  file: ConfigFile
): Effect.Effect<Place, ExitCode> => {
  const allowedAccounts = file.allowedAccounts ?? []
  if (Option.isSome(port) && Option.isSome(socket)) {
    return Effect.zipRight(Console.error(bothPlaces), Effect.fail(new ExitCode({ code: 2 })))
  }
  if (Option.isSome(port)) return Effect.succeed({ _tag: "Tcp", port: port.value, allowedAccounts })
  const path = Option.getOrElse(socket, () => defaultSocketPath())
  const note = allowedAccounts.length > 0
    ? Console.error("buddy serve: allowedAccounts apply to --port only; on the socket only this account connects.")
    : Effect.void
  return Effect.as(note, { _tag: "Socket", path })
}

export const serveCommand = Command.make(
  "serve",
  {
    config: Options.text("config").pipe(
      Options.withPseudoName("FILE"),
      Options.withDescription(words.flagHelp("buddy serve", "--config")),
      Options.optional
    ),
    socket: Options.text("socket").pipe(
      Options.withPseudoName("PATH"),
      Options.withDescription(words.flagHelp("buddy serve", "--socket")),
      Options.optional
    ),
    port: Options.integer("port").pipe(
      Options.withPseudoName("N"),
      Options.withDescription(words.flagHelp("buddy serve", "--port")),
      Options.withSchema(Port),
      Options.optional
    ),
    home: commonOptions.home.pipe(Options.withDescription(words.flagHelp("buddy serve", "--home")))
  },
  ({ config, home, port, socket }) =>
    Effect.gen(function*() {
      const file = yield* readConfig(config).pipe(
        Effect.catchTag("ConfigUnusable", (unusable) =>
          Effect.zipRight(Console.error(unusable.lines.join("\n")), Effect.fail(new ExitCode({ code: 2 }))))
      )
      const place = yield* placeOf(port, socket, file)
      yield* keepServingWithoutReaders
      // --home overrides the file's hermesHome; without either, BuddyConfig's default (C1.1).
      const hermesHome = Option.getOrUndefined(home) ?? file.hermesHome
      // The HTTP stack is loaded only here: every other command starts without it (issue 10, D19).
      const serving = yield* Effect.promise(() =>
        import("./serving.js")
      )
      return yield* serving.serveFile({ ...file, ...(hermesHome === undefined ? {} : { hermesHome }) }, place)
    })
).pipe(
  Command.withDescription("Serve the Launchpad's HTTP app to this account (journal on stdout).")
)
