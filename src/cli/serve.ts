// `buddy serve` (C6, C8): the HTTP app on 127.0.0.1, configured from a JSON file with the
// BuddyConfig fields, the journal on stdout. SIGINT/SIGTERM stop it cleanly: the layers close
// and nothing is cancelled on Hermes (C4.9), so a sign-in the person finishes still saves.
import { Command, Options } from "@effect/cli"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Console, Data, Effect, Either, Layer, Option, Schema } from "effect"
import * as fs from "node:fs/promises"
import { createServer } from "node:http"
import { BuddyHttpApp, BuddyLive, configFrom } from "../http/app.js"
import { ConfigFile } from "../schema/config.js"
import type { BuddyConfigShape } from "../services/BuddyConfig.js"

/** A config file that cannot be used: said in words, exit 2 like any usage error. */
export class ConfigUnusable extends Data.TaggedError("ConfigUnusable")<{
  readonly reason: "unreadable" | "invalid"
}> {}

/** Without a file, Buddy is absent here: every route answers 404 buddy-absent, and we say why. */
const noFile: ConfigFile = { launchpadOrigin: "http://127.0.0.1", environment: "local", locale: "en" }

const readConfig = (path: Option.Option<string>) =>
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

/** Serves until interrupted, printing the address on stderr (stdout is the journal). */
export const serveOn = (config: BuddyConfigShape, port: number) => {
  const app = HttpServer.serve(BuddyHttpApp).pipe(Layer.provide(BuddyLive(config)))
  const announce = Layer.effectDiscard(
    Effect.flatMap(HttpServer.HttpServer, (server) =>
      server.address._tag === "TcpAddress"
        ? Console.error(`buddy serve: listening on http://127.0.0.1:${server.address.port}`)
        : Effect.void)
  )
  return Layer.mergeAll(app, announce).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port })),
    Layer.launch
  )
}

export const serveCommand = Command.make(
  "serve",
  {
    config: Options.text("config").pipe(
      Options.withDescription("JSON file with hermesHome, launchpadOrigin, buddyOrigin, environment, locale"),
      Options.optional
    ),
    port: Options.integer("port").pipe(
      Options.withDescription("port on 127.0.0.1 (default: an ephemeral port, printed on stderr)"),
      Options.withDefault(0)
    ),
    home: Options.text("home").pipe(Options.withDescription("Hermes home (overrides the config)"), Options.optional)
  },
  ({ config, home, port }) =>
    Effect.gen(function*() {
      const file = yield* readConfig(config)
      const resolved = configFrom({
        ...file,
        ...Option.match(home, { onNone: () => ({}), onSome: (dir) => ({ hermesHome: dir }) })
      })
      return yield* serveOn(resolved, port)
    })
).pipe(Command.withDescription("Serve the HTTP app the Launchpad uses, on 127.0.0.1"))
