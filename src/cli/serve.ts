// `buddy serve` (C6, C8) as the terminal starts it: its flags, its config file, and the socket a
// service manager may have handed over; the host itself (the server, its socket, who may reach
// it) is src/serve/, loaded only when serve runs. Only a Unix socket: TCP went with D40. SIGINT and
// SIGTERM stop it at once, requests in flight included: the layers close and nothing is cancelled
// on Hermes (C4.9), so a sign-in the person finishes still saves.
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Console, Effect, Option } from "effect"
import * as path from "node:path"
import { handedSockets } from "../serve/activation.js"
import { readConfig } from "../serve/config-file.js"
import { defaultSocketPath, noRuntimeDirectory } from "../serve/default-place.js"
import type { Place } from "../serve/serving.js"
import type { ServeStop } from "../serve/stop.js"
import { keepServingWithoutReaders } from "./closed-pipe.js"
import { ExitCode } from "./exit.js"
import { printUnit } from "./print-unit.js"
import { commonOptions } from "./root.js"
import * as words from "./words.js"

/** A stop of the host's: its line on stderr, its code as the exit code. */
const stopped = (stop: ServeStop) =>
  Effect.zipRight(Console.error(stop.line), Effect.fail(new ExitCode({ code: stop.code })))

const usage = (line: string) => Effect.zipRight(Console.error(line), Effect.fail(new ExitCode({ code: 2 })))

/** The socket a service manager handed over, else `--socket`, else the default place, if there is one (D56). */
const placeOf = (socket: Option.Option<string>): Effect.Effect<Place, ExitCode> => {
  const handed = handedSockets()
  switch (handed._tag) {
    case "Several":
      return usage(
        `buddy serve: the service manager handed over ${handed.count} sockets; buddy serves on one (one ListenStream= in its .socket unit).`
      )
    case "One":
      return Option.isSome(socket)
        ? usage("buddy serve: the service manager handed over a socket, so --socket has no use; leave it out.")
        : Effect.succeed({ _tag: "Handed", fd: handed.fd })
    case "None":
      return Option.match(socket, {
        onSome: (path) => Effect.succeed({ _tag: "Socket", path, own: false }),
        onNone: () =>
          Option.match(defaultSocketPath(), {
            onSome: (path) => Effect.succeed({ _tag: "Socket", path, own: true }),
            onNone: () => Effect.zipRight(Console.error(noRuntimeDirectory()), Effect.fail(new ExitCode({ code: 1 })))
          })
      })
  }
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
    home: commonOptions.home.pipe(Options.withDescription(words.flagHelp("buddy serve", "--home"))),
    unit: Options.text("print-unit").pipe(
      Options.withPseudoName("UNIT"),
      Options.withDescription(words.flagHelp("buddy serve", "--print-unit")),
      Options.optional
    ),
    account: Options.text("account").pipe(
      Options.withPseudoName("NAME"),
      Options.withDescription(words.flagHelp("buddy serve", "--account")),
      Options.optional
    )
  },
  ({ account, config, home, socket, unit }) =>
    Effect.gen(function*() {
      // A unit for this buddy instead of serving (./print-unit.ts): nothing is read, nothing listens.
      if (Option.isSome(unit) || Option.isSome(account)) {
        return yield* printUnit({ unit, account, config, home, socket })
      }
      const file = yield* readConfig(config).pipe(
        Effect.catchTag("ConfigUnusable", (unusable) => usage(unusable.lines.join("\n")))
      )
      const place = yield* placeOf(socket)
      yield* keepServingWithoutReaders
      // --home overrides the file's hermesHome; without either, BuddyConfig's default (C1.1). A relative
      // one is this command's working directory's, resolved here: the app's config takes only absolute homes.
      const given = Option.getOrUndefined(home) ?? file.hermesHome
      const hermesHome = given === undefined ? undefined : path.resolve(given)
      // The HTTP stack is loaded only here: every other command starts without it (issue 10, D19).
      const serving = yield* Effect.promise(() => import("../serve/serving.js"))
      return yield* serving.serveFile({ ...file, ...(hermesHome === undefined ? {} : { hermesHome }) }, place).pipe(
        Effect.catchTag("ServeStop", stopped)
      )
    })
).pipe(
  Command.withDescription(
    "Serve the Launchpad's HTTP app on a Unix socket (journal on stdout)."
  )
)
