// `buddy serve --config FILE` (C6 "Config", C8): the file read and checked strictly, each thing
// wrong with it said as a sentence naming its field, its line and column for broken JSON, never
// repeating a value of the file's (it could hold a secret) (D30).
import { Array as Arr, Data, Effect, Either, Option, ParseResult, Predicate, Schema } from "effect"
import { constants as fsConstants } from "node:fs"
import * as fs from "node:fs/promises"
import { ConfigFile, Environment, Locale } from "../schema/config.js"
import { errnoOf } from "../services/errno.js"
import { octal, openedTo } from "../services/mode-words.js"
import { nearest } from "../services/nearest.js"
import { ownUid } from "../services/private-directory.js"
import { type Accounts, readAccounts } from "./accounts.js"
import { firstDuplicate } from "./json-duplicates.js"
import { jsonSyntaxError, lineAndColumn } from "./json-syntax.js"

/** A config file that cannot be used: said in words, exit 2 like any usage error. */
export class ConfigUnusable extends Data.TaggedError("ConfigUnusable")<{
  /** One sentence per thing wrong with it. */
  readonly lines: ReadonlyArray<string>
}> {}

const fields = "hermesHome (optional), launchpadOrigin, buddyOrigin (needed for Buddy to be present), " +
  "environment, locale and socketGroup (optional)"

const configWords = {
  unreadable: (file: string, why: string) => `buddy serve: the --config file ${file} cannot be read: ${why}.`,
  notJson: (file: string, where: { readonly line: number; readonly column: number }, ends: boolean, what: string) =>
    `buddy serve: the --config file ${file} is not valid JSON at line ${where.line}, column ${where.column}` +
    `${ends ? ", where it ends" : ""}: expected ${what}.`,
  notFile: (file: string) =>
    `buddy serve: the --config file ${file} is not a regular file; give the path of a JSON file.`,
  tooLarge: (file: string, size: number) =>
    `buddy serve: the --config file ${file} holds ${size} bytes; a config file holds at most ${configSizeLimit}.`,
  notObject: (kind: string) => `buddy serve: the --config file holds ${kind}, not a JSON object with ${fields}.`,
  allowedAccountsGone:
    "buddy serve: the --config file has \"allowedAccounts\", which went with TCP: buddy serve listens only on its " +
    "socket; name the proxy's group in \"socketGroup\" instead (docs/operator-guide.md).",
  unknownField: (key: string) =>
    `buddy serve: the --config file has a field buddy does not know: ${key}; it takes ${fields}.`,
  didYouMean: (names: ReadonlyArray<string>) =>
    `buddy serve: did you mean ${names.map((name) => `"${name}"`).join(" or ")}?`,
  foreign: (file: string, owner: string, self: string) =>
    `buddy serve: the --config file ${file} belongs to ${owner}; buddy reads only a config file of its own account ` +
    `(${self}) or root's, so that no other account can change what it serves.`,
  writable: (file: string, mode: number, root: boolean) =>
    `buddy serve: the --config file ${file} has mode ${octal(mode)}: ${openedTo(mode, 0o022)} may write to it; ` +
    `buddy reads only a config file no other account may change. Fix: ${root ? "sudo " : ""}chmod go-w ${file}`,
  duplicate: (file: string, name: string, where: { readonly line: number; readonly column: number }) =>
    `buddy serve: the --config file ${file} has ${
      JSON.stringify(name.slice(0, 40))
    } twice (again at line ${where.line}, column ${where.column}); JSON keeps only the last, so say it once.`,
  sameOrigins:
    "buddy serve: the --config file's launchpadOrigin and buddyOrigin are the same origin; buddy's own origin must " +
    "differ from the Launchpad's page, or every POST from that page is refused."
}

/** What a thrown value says: every fs rejection and JSON.parse failure is an Error; the rest is for the type. */
const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** An fs error as a person reads it: Node's words after the code, and the code (`no such file or directory (ENOENT)`). */
const systemError = (error: unknown): string =>
  `${messageOf(error).replace(/^[A-Z]+: /, "").replace(/, \w+ '.*/s, "")} (${errnoOf(error)})`

/** Where and why `text`, which JSON.parse refused, is no JSON: said without a character of it. */
const notJson = (file: string, text: string): ConfigUnusable => {
  // The scan refuses exactly what JSON.parse refuses (test/serve/json-syntax.test.ts, against JSON.parse
  // itself), so the fallback is never taken; it is there for the type.
  // Stryker disable next-line ObjectLiteral,StringLiteral,ArrowFunction: unreachable, as above
  const unreachable = () => ({ offset: text.length, expected: "JSON" })
  const { expected, offset } = Option.getOrElse(jsonSyntaxError(text), unreachable)
  return new ConfigUnusable({
    lines: [configWords.notJson(file, lineAndColumn(text, offset), offset === text.length, expected)]
  })
}

/** What a JSON value that is no object is, in words. */
const kindOfJson = (json: unknown): string =>
  Array.isArray(json) ? "an array" : json === null ? "null" : `a ${typeof json}`

/** What each field must be, in words: the Schema's own literals, never the file's values. */
const fieldMustBe: Readonly<Record<keyof ConfigFile, string>> = {
  hermesHome: "a directory path, as a string",
  launchpadOrigin: "an origin such as https://launchpad.example: scheme, host and optional port, nothing after",
  buddyOrigin: "an origin such as https://buddy.example: scheme, host and optional port, nothing after",
  socketGroup: "a group's name or gid, such as \"buddy-proxy\" or 33",
  environment: `one of ${Environment.literals.join(", ")}`,
  locale: `one of ${Locale.literals.join(", ")}`
}

const fieldNames: ReadonlyArray<string> = Object.keys(fieldMustBe)

const isField = (key: PropertyKey | undefined): key is keyof ConfigFile => fieldNames.some((name) => name === key)

/**
 * Each issue of the decode as a sentence naming its field, from the issue's path: a value of the
 * file could hold a secret, so none is repeated. The file is an object and each field a scalar, so
 * an issue outside the fields is a key the file has and ConfigFile does not name.
 */
const issueWords = (error: ParseResult.ParseError): ReadonlyArray<string> =>
  Arr.dedupe(
    ParseResult.ArrayFormatter.formatErrorSync(error).map(({ _tag, path: [field] }) => {
      if (isField(field)) {
        return [
          _tag === "Missing"
            ? `buddy serve: the --config file has no "${field}"; it must be ${fieldMustBe[field]}.`
            : `buddy serve: the --config file's "${field}" must be ${fieldMustBe[field]}.`
        ]
      }
      // A key is no value of the file's, but it is the file's text: quoted, and never long.
      if (field === "allowedAccounts") return [configWords.allowedAccountsGone]
      const key = String(field)
      const near = nearest(key, fieldNames)
      return [
        configWords.unknownField(JSON.stringify(key.slice(0, 40))),
        ...(near.length === 0 ? [] : [configWords.didYouMean(near)])
      ]
    }).flat()
  )

// Every issue, not the first: ConfigFile refuses members it does not name itself (its parseOptions).
const decodeConfig = Schema.decodeUnknownEither(ConfigFile, { errors: "all" })

/** The most a config file may hold: a few hundred bytes are all it needs. */
export const configSizeLimit = 64 * 1024

/**
 * The file's text, read only if it is a regular file of at most `configSizeLimit` bytes, owned by
 * this account or root and writable by no one else (C8, as C1 asks of Hermes's pointer): opened
 * without blocking (a FIFO with no writer would hold the start forever), checked on the open
 * descriptor (nothing can be swapped in between), then read to its stated size and no further.
 */
const readBounded = (file: string, accounts: Accounts): Effect.Effect<string, ConfigUnusable> => {
  const unreadable = (error: unknown) =>
    new ConfigUnusable({ lines: [configWords.unreadable(file, systemError(error))] })
  const refused = (line: string) => Effect.fail(new ConfigUnusable({ lines: [line] }))
  return Effect.acquireUseRelease(
    Effect.tryPromise({ try: () => fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK), catch: unreadable }),
    (handle) =>
      Effect.gen(function*() {
        const stats = yield* Effect.tryPromise({ try: () => handle.stat(), catch: unreadable })
        if (!stats.isFile()) return yield* refused(configWords.notFile(file))
        if (stats.uid !== ownUid() && stats.uid !== 0) {
          return yield* refused(configWords.foreign(file, accounts.describe(stats.uid), accounts.nameOf(ownUid())))
        }
        if ((stats.mode & 0o022) !== 0) {
          return yield* refused(configWords.writable(file, stats.mode & 0o7777, stats.uid !== ownUid()))
        }
        if (stats.size > configSizeLimit) return yield* refused(configWords.tooLarge(file, stats.size))
        const { buffer, bytesRead } = yield* Effect.tryPromise({
          try: () => handle.read(Buffer.alloc(stats.size), 0, stats.size, 0),
          catch: unreadable
        })
        return buffer.subarray(0, bytesRead).toString("utf8")
      }),
    (handle) => Effect.ignore(Effect.tryPromise(() => handle.close()))
  )
}

/** A member named twice, refused by its name and where it comes again (JSON.parse would keep the last). */
const noDuplicate = (file: string, text: string) => (json: unknown): Either.Either<unknown, ConfigUnusable> =>
  Option.match(firstDuplicate(text), {
    onNone: () => Either.right(json),
    onSome: ({ name, offset }) =>
      Either.left(new ConfigUnusable({ lines: [configWords.duplicate(file, name, lineAndColumn(text, offset))] }))
  })

/** Without a file, Buddy is absent here: every route answers 404 buddy-absent. */
const noFile: ConfigFile = { launchpadOrigin: "http://127.0.0.1", environment: "local", locale: "en" }

export const readConfig = (path: Option.Option<string>): Effect.Effect<ConfigFile, ConfigUnusable> =>
  Option.match(path, {
    // Said once the server starts, with any other config's absence (./serving.ts).
    onNone: () => Effect.succeed(noFile),
    onSome: (file) =>
      readAccounts().pipe(
        Effect.flatMap((accounts) => readBounded(file, accounts)),
        // A byte order mark is no part of the JSON (RFC 8259 §8.1), but editors on Windows write one.
        Effect.map((text) => text.startsWith("\uFEFF") ? text.slice(1) : text),
        Effect.flatMap((text) =>
          Either.try({
            try: () => JSON.parse(text) as unknown,
            // V8's own words quote the file around the error and often name no position: the scan says where.
            catch: () => notJson(file, text)
          }).pipe(
            Either.flatMap(noDuplicate(file, text)),
            Either.flatMap((json) =>
              Predicate.isRecord(json)
                ? Either.mapLeft(decodeConfig(json), (error) => new ConfigUnusable({ lines: issueWords(error) }))
                : Either.left(new ConfigUnusable({ lines: [configWords.notObject(kindOfJson(json))] }))
            ),
            // An origin the Launchpad's page and buddy share makes every POST from that page cross-origin
            // to buddy's own rule: refused at start, not at every POST (issue 18.3).
            Either.filterOrLeft(
              (config) => config.buddyOrigin !== config.launchpadOrigin,
              () => new ConfigUnusable({ lines: [configWords.sameOrigins] })
            )
          )
        )
      )
  })
