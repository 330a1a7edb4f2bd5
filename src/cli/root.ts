// The root command and the flags every command takes. `--json` and `--home DIR` are accepted on
// each subcommand (C8) and also before it (`buddy --home DIR status`); the subcommand's own wins.
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { makeOutput, type Output } from "./output.js"
import { CliServices } from "./services.js"

const json = Options.boolean("json").pipe(
  Options.withDescription("Print one JSON object per line instead of words.")
)
const home = Options.text("home").pipe(
  Options.withPseudoName("DIR"),
  Options.withDescription("The Hermes home to use (default: $HERMES_HOME, else ~/.hermes)."),
  Options.optional
)

/** The options of every subcommand. */
export const commonOptions = { json, home }

export interface CommonOptions {
  readonly json: boolean
  readonly home: Option.Option<string>
}

export const root = Command.make("buddy", commonOptions).pipe(
  Command.withDescription("Sign Buddy in to ChatGPT through the local Hermes gateway, read his state, sign him out.")
)

/** A subcommand's flags completed by those given before it. */
export const invocation = (own: CommonOptions): Effect.Effect<CommonOptions, never, Command.Command.Context<"buddy">> =>
  Effect.map(root, (parent) => ({
    json: own.json || parent.json,
    home: Option.orElse(own.home, () => parent.home)
  }))

/** Runs a command's body with its output and the services for its home. */
export const withServices = <A, E, R>(own: CommonOptions, body: (output: Output) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const { home, json } = yield* invocation(own)
    const services = yield* CliServices
    return yield* body(makeOutput(json)).pipe(Effect.provide(services.forHome(Option.getOrUndefined(home))))
  })
