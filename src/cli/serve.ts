// `buddy serve` (C6, C8): the HTTP app on 127.0.0.1, configured from a JSON file with the
// BuddyConfig fields, the journal on stdout. The node server under it has our own deadlines and
// limits (./node-server.ts, D15). SIGINT/SIGTERM stop it at once, requests in flight included:
// the layers close and nothing is cancelled on Hermes (C4.9), so a sign-in the person finishes
// still saves.
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpServer from "@effect/platform/HttpServer"
import { Console, Data, Effect, Either, Layer, Option, Schema } from "effect"
import * as fs from "node:fs/promises"
import { BuddyHttpApp, BuddyLive, configFrom } from "../http/app.js"
import { ConfigFile } from "../schema/config.js"
import type { BuddyConfigShape } from "../services/BuddyConfig.js"
import { ExitCode } from "./exit.js"
import * as NodeServer from "./node-server.js"
import { commonOptions, invocation } from "./root.js"

/** A config file that cannot be used: said in words, exit 2 like any usage error. */
class ConfigUnusable extends Data.TaggedError("ConfigUnusable")<{
  readonly reason: "unreadable" | "invalid"
}> {}

const configWords: Record<ConfigUnusable["reason"], string> = {
  unreadable: "buddy serve: the --config file cannot be read.",
  invalid: "buddy serve: the --config file is not a JSON object with exactly hermesHome (optional), " +
    "launchpadOrigin, buddyOrigin (optional), environment and locale."
}

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
        catch: () => new ConfigUnusable({ reason: "unreadable" })
      })
        .pipe(
          Effect.flatMap((text) =>
            Either.try(() => JSON.parse(text) as unknown).pipe(
              Either.flatMap((json) => Schema.decodeUnknownEither(ConfigFile, { onExcessProperty: "error" })(json)),
              Either.mapLeft(() => new ConfigUnusable({ reason: "invalid" }))
            )
          )
        )
  })

/**
 * Serves until interrupted, printing the address on stderr (stdout is the journal). `limits`
 * are the server's deadlines and sizes; tests shorten them.
 */
export const serveOn = (
  config: BuddyConfigShape,
  port: number,
  limits: NodeServer.ServerLimits = NodeServer.serverLimits
) => {
  const app = HttpServer.serve(BuddyHttpApp).pipe(Layer.provide(BuddyLive(config)))
  const announce = Layer.effectDiscard(
    Effect.flatMap(HttpServer.HttpServer, (server) =>
      server.address._tag === "TcpAddress"
        ? Console.error(`buddy serve: listening on http://127.0.0.1:${server.address.port}`)
        : Effect.void)
  )
  return Layer.mergeAll(app, announce).pipe(
    Layer.provide(NodeServer.layer({ host: "127.0.0.1", port }, limits, config.limits.requestBody)),
    Layer.launch
  )
}

export const serveCommand = Command.make(
  "serve",
  {
    config: Options.text("config").pipe(
      Options.withPseudoName("FILE"),
      Options.withDescription("JSON file with hermesHome, launchpadOrigin, buddyOrigin, environment, locale."),
      Options.optional
    ),
    port: Options.integer("port").pipe(
      Options.withPseudoName("N"),
      Options.withDescription("Port on 127.0.0.1 (default: an ephemeral port, printed on stderr)."),
      Options.withDefault(0)
    ),
    home: commonOptions.home
  },
  ({ config, home, port }) =>
    Effect.gen(function*() {
      const { home: chosen } = yield* invocation({ json: false, home })
      const file = yield* readConfig(config).pipe(
        Effect.catchTag("ConfigUnusable", (unusable) =>
          Effect.zipRight(Console.error(configWords[unusable.reason]), Effect.fail(new ExitCode({ code: 2 }))))
      )
      const hermesHome = Option.getOrUndefined(chosen) ?? file.hermesHome
      return yield* serveOn(configFrom({ ...file, ...(hermesHome === undefined ? {} : { hermesHome }) }), port)
    })
).pipe(Command.withDescription("Serve the HTTP app the Launchpad uses, on 127.0.0.1 (journal on stdout)."))
