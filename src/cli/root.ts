// The root command and the flags every command takes. `--json` and `--home DIR` belong to each
// subcommand (C8); they may also be typed before it (`buddy --home DIR status`): our reading of the
// command line (./command-line.ts, D18) hands @effect/cli every flag after the command it belongs
// to, so the root has none of its own and a command without `--json` (serve) refuses it wherever
// it is typed.
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { makeOutput, type Output } from "./output.js"
import { CliServices } from "./services.js"
import * as words from "./words.js"

const json = Options.boolean("json").pipe(Options.withDescription(words.flagHelp("", "--json")))
const home = Options.text("home").pipe(
  Options.withPseudoName("DIR"),
  Options.withDescription(words.flagHelp("", "--home")),
  Options.optional
)

/** The options of every subcommand. */
export const commonOptions = { json, home }

export interface CommonOptions {
  readonly json: boolean
  readonly home: Option.Option<string>
}

export const root = Command.make("buddy").pipe(
  Command.withDescription("Sign Buddy in to ChatGPT through the local Hermes, read his state, sign him out.")
)

/** Runs a command's body with its output and the services for its home. */
export const withServices = <A, E, R>(
  { home, json }: CommonOptions,
  body: (output: Output) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const services = yield* CliServices
    return yield* body(makeOutput(json, home)).pipe(Effect.provide(services.forHome(Option.getOrUndefined(home))))
  })
