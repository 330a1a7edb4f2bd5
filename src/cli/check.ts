// `buddy check` (issue 39, D58): the health check a monitor runs against a running `buddy serve`.
// It connects to serve's socket (`--socket`, else serve's own default place) and reads
// `GET /api/buddy` once, as the Launchpad's page does; it asks Hermes nothing itself, and what
// serve's status read asks of it is all Hermes is asked. One line on stdout says what answered,
// and the exit code says it for a script: 0 serve and Hermes answer (Buddy works or waits), 1 serve
// does not answer (C8's unavailable: no socket, refused, nothing in time, not buddy), 4 serve
// answers but Hermes stands in the way (C8's blocked: its reason said; Buddy absent there too).
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Console, Effect, Either, Option, Schema } from "effect"
import { GatewayReason } from "../schema/reasons.js"
import { BuddyAnswer, ErrorAnswer } from "../schema/routes.js"
import { defaultSocketPath } from "../serve/default-place.js"
import { askStatus, type Exchange, type NoAnswer } from "./check-exchange.js"
import { ExitCode } from "./exit.js"
import * as words from "./words.js"

/** The check's answer, C8's way: one closed JSON object, encoded through its Schema. */
const CheckLine = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("check"),
    socket: Schema.String,
    serve: Schema.Literal("answers"),
    hermes: Schema.Literal("answers"),
    state: Schema.Literal("works", "waits")
  }),
  Schema.Struct({
    kind: Schema.Literal("check"),
    socket: Schema.String,
    serve: Schema.Literal("answers"),
    hermes: Schema.Literal("unusable"),
    reason: Schema.Union(GatewayReason, Schema.Literal("buddy-absent"))
  }),
  Schema.Struct({
    kind: Schema.Literal("check"),
    socket: Schema.String,
    serve: Schema.Literal("silent"),
    // A connect's system code (ENOENT, ECONNREFUSED), or why what came back is no answer.
    reason: Schema.String.pipe(Schema.pattern(/^(?:[A-Z][A-Z0-9_]{0,39}|timeout|too-large|not-buddy)$/))
  })
)
export type CheckLine = typeof CheckLine.Type

const decodeStatus = Schema.decodeUnknownEither(Schema.parseJson(BuddyAnswer))
const decodeError = Schema.decodeUnknownEither(Schema.parseJson(ErrorAnswer))

/** What an exchange with serve says: Hermes answered through it, or did not, or this is not buddy. */
export const verdictOf = (socket: string, exchange: Exchange): CheckLine => {
  const answer = exchange.status === 200 ? Either.getRight(decodeStatus(exchange.body)) : Option.none()
  if (Option.isSome(answer)) {
    const { reason, state } = answer.value
    return state === "unknown"
      ? { kind: "check", socket, serve: "answers", hermes: "unusable", reason: reason ?? "lost" }
      : { kind: "check", socket, serve: "answers", hermes: "answers", state }
  }
  // serve without a usable config answers every route 404 buddy-absent: it runs, and asks nobody.
  const absent = exchange.status === 404 &&
    Either.getOrUndefined(decodeError(exchange.body))?.error === "buddy-absent"
  return absent
    ? { kind: "check", socket, serve: "answers", hermes: "unusable", reason: "buddy-absent" }
    : { kind: "check", socket, serve: "silent", reason: "not-buddy" }
}

/** Nothing came back: the connect's code, or why not. */
export const silentOf = (socket: string, failure: NoAnswer): CheckLine => ({
  kind: "check",
  socket,
  serve: "silent",
  reason: failure.reason === "connect" ? failure.code ?? "unknown" : failure.reason
})

/** The exit code of a check's answer (C8). */
export const checkExitCode = (line: CheckLine): 0 | 1 | 4 =>
  line.serve === "silent" ? 1 : line.hermes === "unusable" ? 4 : 0

const encodeLine = Schema.encode(Schema.parseJson(CheckLine))

export const check = Command.make(
  "check",
  {
    socket: Options.text("socket").pipe(
      Options.withPseudoName("PATH"),
      Options.withDescription(words.flagHelp("buddy check", "--socket")),
      Options.optional
    ),
    json: Options.boolean("json").pipe(Options.withDescription(words.flagHelp("", "--json")))
  },
  ({ json, socket }) =>
    Effect.gen(function*() {
      // serve's own place when it is not named: systemd's RUNTIME_DIRECTORY, else buddy's runtime directory.
      // Where serve has no default place (D56: never /tmp), neither has the check: it must be told (exit 2).
      const found = Option.orElse(socket, () => defaultSocketPath())
      if (Option.isNone(found)) {
        yield* Console.error(
          "buddy check: serve has no default place for its socket here (no RUNTIME_DIRECTORY, no runtime directory " +
            "of this account's own); give --socket PATH."
        )
        return yield* Effect.fail(new ExitCode({ code: 2 }))
      }
      const place = found.value
      const line = yield* askStatus(place).pipe(
        Effect.map((exchange) => verdictOf(place, exchange)),
        Effect.catchTag("NoAnswer", (failure) => Effect.succeed(silentOf(place, failure)))
      )
      // A line outside the Schema is a bug of ours, not something to print half of.
      yield* Console.log(json ? yield* Effect.orDie(encodeLine(line)) : words.checked(line))
      const code = checkExitCode(line)
      if (code !== 0) return yield* Effect.fail(new ExitCode({ code }))
    })
).pipe(Command.withDescription("Ask a running buddy serve whether it and Hermes answer (monitoring)."))
