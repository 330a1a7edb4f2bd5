// What the CLI writes: the answer on stdout (one JSON object per line with --json, words
// otherwise), diagnostics on stderr in words. Every JSON line is encoded through its Schema, so a
// member that is not in C8's shapes (a handle, a session id, Hermes text) cannot reach stdout.
import { Console, Effect, Option, Schema } from "effect"
import { format } from "node:util"
import { BlockedReason, BuddyState, GatewayReason, SignInState } from "../schema/reasons.js"
import type { Refusal } from "../services/SignIn.js"
import { diagnose, homeUsed } from "./diagnose.js"
import { ExitCode } from "./exit.js"
import * as words from "./words.js"

const StatusLine = Schema.Struct({
  kind: Schema.Literal("buddy"),
  state: BuddyState,
  reason: Schema.optionalWith(GatewayReason, { exact: true }),
  /** Only while this or another buddy process holds a sign-in for the home (C8). */
  signIn: Schema.optionalWith(Schema.Struct({ state: Schema.Literal("pending") }), { exact: true })
})
/** The sign-in's first line: the code and page, never the handle. */
const PendingLine = Schema.Struct({
  kind: Schema.Literal("sign-in"),
  state: Schema.Literal("pending"),
  code: Schema.String,
  page: Schema.String
})
const ChangeLine = Schema.Struct({
  kind: Schema.Literal("sign-in"),
  state: SignInState.pipe(Schema.filter((state) => state !== "pending"))
})
const SignOutLine = Schema.Struct({ kind: Schema.Literal("sign-out"), state: Schema.Literal("signed-out") })
const BlockedLine = Schema.Struct({ kind: Schema.Literal("blocked"), reason: BlockedReason })
const UnavailableLine = Schema.Struct({ error: Schema.Literal("buddy-unavailable"), reason: GatewayReason })

/** C8's JSON lines. */
export const Line = Schema.Union(StatusLine, PendingLine, ChangeLine, SignOutLine, BlockedLine, UnavailableLine)
export type Line = typeof Line.Type

const encodeLine = Schema.encode(Schema.parseJson(Line))

// A line outside the Schemas is a bug of ours, not something to print half of.
const printLine = (line: Line) => Effect.flatMap(Effect.orDie(encodeLine(line)), Console.log)

export interface Output {
  readonly json: boolean
  /** The Hermes home the command was given (`--home`), for the diagnostics of a refusal. */
  readonly home: Option.Option<string>
  /** The command's answer (or a change of it) on stdout: the line with --json, the words otherwise. */
  readonly answer: (line: Line, words: string) => Effect.Effect<void>
  /**
   * Words only a person needs ("Waiting…", "Press Enter…"), on stderr as gh says them, and nothing
   * with --json: stdout holds only answers, so `sign-in start | head -1` takes the code and page
   * and buddy writes nothing more there until the sign-in changes (D46).
   */
  readonly tell: (words: string) => Effect.Effect<void>
  /** A line on stdout with --json; nothing otherwise (the words go to stderr as a note). */
  readonly emit: (line: Line) => Effect.Effect<void>
  /** A diagnostic on stderr, in words, whatever the mode. */
  readonly note: (words: string) => Effect.Effect<void>
  /** A refusal or an error: the line on stdout with --json, the words on stderr otherwise. */
  readonly fail: (line: Line, words: string) => Effect.Effect<void>
}

export const makeOutput = (json: boolean, home: Option.Option<string> = Option.none()): Output => ({
  json,
  home,
  answer: (line, text) => (json ? printLine(line) : Console.log(text)),
  tell: (text) => (json ? Effect.void : Console.error(text)),
  emit: (line) => (json ? printLine(line) : Effect.void),
  note: (text) => Console.error(text),
  fail: (line, text) => (json ? printLine(line) : Console.error(text))
})

/** A refusal as the command's answer (in words on stderr), then its exit code: 4 blocked, 1 unavailable (C8). */
export const refuse = (output: Output, refusal: Refusal): Effect.Effect<never, ExitCode> =>
  refusal._tag === "Blocked"
    ? Effect.zipRight(
      output.fail(
        { kind: "blocked", reason: refusal.reason },
        refusal.lock === undefined ? words.blockedReason[refusal.reason] : words.lockRefusal(refusal.lock)
      ),
      Effect.fail(new ExitCode({ code: 4 }))
    )
    : Effect.zipRight(
      output.fail({ error: "buddy-unavailable", reason: refusal.reason }, words.unavailable(refusal.reason)),
      Effect.zipRight(explain(output, refusal.reason), Effect.fail(new ExitCode({ code: 1 })))
    )

/** In words only: where the trouble is and how to fix it, on stderr after the answer (C8, D29). */
export const explain = (output: Output, reason: GatewayReason): Effect.Effect<void> =>
  output.json
    ? Effect.void
    : Effect.flatMap(diagnose(reason, homeUsed(output.home)), (lines) =>
      Effect.forEach(lines, output.note, { discard: true }))

// CSI sequences (colours, cursor moves) and OSC sequences (titles, links) as terminals read them.
const escapes = new RegExp(String.raw`\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\))`, "g")

/** Text without terminal escape sequences. */
export const stripEscapes = (text: string): string => text.replace(escapes, "")

/**
 * Colour only for a terminal that can show it (C8): never when NO_COLOR is set to anything but ""
 * (no-color.org), nor when FORCE_COLOR says "0" or "false" (its other spelling, as supports-color
 * and Node's own tty read it; D46), nor on a terminal that says it is dumb (`TERM=dumb`), nor on
 * anything that is no terminal. No variable forces colour onto a pipe: C8 keeps pipes plain.
 */
export const colourAllowed = (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean =>
  stream.isTTY === true && (env["NO_COLOR"] === undefined || env["NO_COLOR"] === "") &&
  env["FORCE_COLOR"] !== "0" && env["FORCE_COLOR"] !== "false" && env["TERM"] !== "dumb"

/**
 * The console the CLI runs with: `log` to stdout, `error` to stderr, each stripped of escape
 * sequences unless its stream may have colour. @effect/cli styles its help and usage errors with
 * ANSI codes whatever the stream is; this is where they go away.
 */
export const terminalConsole = (base: Console.Console, env: NodeJS.ProcessEnv = process.env): Console.Console => {
  const write = (stream: NodeJS.WriteStream) => {
    const colour = colourAllowed(stream, env)
    return (...args: ReadonlyArray<unknown>) =>
      Effect.sync(() => {
        const text = format(...args)
        stream.write(`${colour ? text : stripEscapes(text)}\n`)
      })
  }
  return { ...base, log: write(process.stdout), error: write(process.stderr) }
}
