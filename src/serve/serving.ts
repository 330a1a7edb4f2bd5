// What `buddy serve` runs once its command line and config file are read: the HTTP app with buddy's
// own server limits, on a Unix socket for this account, or for this account and one named group (a
// reverse proxy's), never on TCP (C6 "Who may reach it", D22, D40); or on the socket a service
// manager handed over. A module of its own, imported by the CLI only when serve runs, so no other
// command loads the HTTP stack at its start (issue 10, D19).
import * as HttpServer from "@effect/platform/HttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import { Console, Effect, Layer, Logger, Option, Runtime } from "effect"
import * as nodePath from "node:path"
import { buddyPresent } from "../http/admission.js"
import { BuddyHttpApp, configFrom } from "../http/app.js"
import { servedLayer } from "../http/live.js"
import type { ConfigFile } from "../schema/config.js"
import type { BuddyConfigShape } from "../services/BuddyConfig.js"
import { errnoOf } from "../services/errno.js"
import { ownUid } from "../services/private-directory.js"
import { type Accounts, readAccounts } from "./accounts.js"
import { handedPath } from "./activation.js"
import { admissionWarning } from "./group-admission.js"
import * as NodeServer from "./node-server.js"
import { type Naming, placeWords } from "./place-words.js"
import { checkHandedSocket, prepareSocket, restrictSocket, type SocketPlaceUnsafe } from "./socket-place.js"
import { ServeStop } from "./stop.js"
import type { Sharing } from "./who-may-reach.js"

/** Where `buddy serve` listens: a socket path of its own, or the socket a service manager handed over. */
export type Place =
  | {
    readonly _tag: "Socket"
    readonly path: string
    /** Whether the path is buddy's default place, whose directory buddy makes itself (a fix may remove it). */
    readonly own?: boolean
  }
  | { readonly _tag: "Handed"; readonly fd: number }

/** Why the server could not listen, in words (exit 1): the system's own code, never a stack. */
const listenWords = (listen: NodeServer.Listen, error: ServeError): string => {
  const code = errnoOf(error.cause)
  if (listen._tag === "Handed") {
    return `buddy serve: it could not listen on the socket the service manager handed over (fd ${listen.fd}, ${code}).`
  }
  return code === "EADDRINUSE"
    ? `buddy serve: ${listen.path} appeared while buddy was starting; stop whatever made it and start again.`
    : `buddy serve: it could not listen on the socket ${listen.path} (${code}).`
}

/** Says `line` on stderr and stops with `code`. */
const stopWith = (code: 1 | 2) => (line: string) => Effect.fail(new ServeStop({ code, line }))

/** The config's `socketGroup` as the sharing it asks for: a name the group file lists, or a gid; never root's. */
const sharingOf = (group: ConfigFile["socketGroup"], accounts: Accounts): Effect.Effect<Sharing, ServeStop> => {
  if (group === undefined) return Effect.succeed({ _tag: "Owner" })
  // The file's text is never repeated (it could be a secret put in the wrong field): the field is named instead.
  const gid = typeof group === "number" ? Option.some(group) : accounts.gidOf(group)
  return Option.match(gid, {
    onSome: (gid) =>
      gid === 0
        ? stopWith(2)(
          "buddy serve: the --config file's \"socketGroup\" names root's group (gid 0); root needs no group to reach " +
            "the socket, and sharing it there admits every account in that group. Name the proxy's own group."
        )
        : Effect.succeed({ _tag: "Group", gid } as const),
    onNone: () =>
      stopWith(2)(
        "buddy serve: the --config file's \"socketGroup\" names a group this machine does not have (/etc/group); " +
          "give an existing group or its gid."
      )
  })
}

/** Where the server will listen, with the place made ready first (the socket's directory checked). */
const listenFor = (
  place: Place,
  sharing: Sharing,
  say: (error: SocketPlaceUnsafe) => Effect.Effect<never, ServeStop>
) =>
  place._tag === "Socket"
    ? Effect.map(
      prepareSocket(place.path, sharing).pipe(Effect.catchTag("SocketPlaceUnsafe", say)),
      (path): NodeServer.Listen => ({ _tag: "Socket", path })
    )
    : Effect.flatMap(handedPath(place.fd), (path) =>
      Option.match(path, {
        onNone: () =>
          stopWith(1)(
            `buddy serve: the socket the service manager handed over (fd ${place.fd}) has no path buddy can check; ` +
              "give its .socket unit a ListenStream= path."
          ),
        onSome: (path) =>
          checkHandedSocket(path, sharing).pipe(
            Effect.catchTag("SocketPlaceUnsafe", say),
            Effect.as<NodeServer.Listen>({ _tag: "Handed", fd: place.fd, path })
          )
      }))

/** Once listening: a socket of ours given its modes and checked, then the address said on stderr (stdout is the journal). */
const announce = (
  listen: NodeServer.Listen,
  sharing: Sharing,
  say: (error: SocketPlaceUnsafe) => Effect.Effect<never, ServeStop>
) =>
  Layer.effectDiscard(
    (listen._tag === "Socket" ? restrictSocket(listen.path, sharing) : Effect.void).pipe(
      // Stryker disable next-line StringLiteral: a socket this account has just bound, in a directory just checked its own, takes its chown and chmod; the refusal is for the type
      Effect.catchTag("SocketPlaceUnsafe", say),
      Effect.zipRight(Console.error(`buddy serve: listening on unix:${listen.path}`))
    )
  )

/** A config without Buddy serves only 404 buddy-absent: said at start, naming the field (C8). */
const absence = (config: BuddyConfigShape): Effect.Effect<void> =>
  buddyPresent(config)
    ? Effect.void
    : Console.error(
      config.buddyOrigin === undefined
        ? "buddy serve: the config has no buddyOrigin (or no --config was given), so Buddy is absent here and every " +
          "route answers 404 buddy-absent."
        : `buddy serve: the config's environment is ${config.environment}, not hosted-personal, so Buddy is absent ` +
          "here and every route answers 404 buddy-absent."
    )

/** Effect's logger on stderr: stdout is the journal's, a line of JSON each, and nothing else (C6, C8). */
const logOnStderr = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

export interface ServeOptions {
  /** The config file's `socketGroup`: the group the socket is shared with, if any. */
  readonly socketGroup?: ConfigFile["socketGroup"]
  /** The server's deadlines and sizes; tests shorten them. */
  readonly limits?: NodeServer.ServerLimits
}

/**
 * Serves until interrupted. A place it cannot listen on is said in words (exit 1; a group no
 * account file names, exit 2) as a `ServeStop`.
 */
export const serveOn = (config: BuddyConfigShape, place: Place, options: ServeOptions = {}) =>
  Effect.gen(function*() {
    const accounts = yield* readAccounts()
    const sharing = yield* sharingOf(options.socketGroup, accounts)
    const self = accounts.nameOf(ownUid())
    const naming: Naming = {
      account: accounts.describe,
      self,
      group: sharing._tag === "Group"
        ? Option.some(Option.getOrElse(accounts.groupName(sharing.gid), () => String(sharing.gid)))
        : Option.none(),
      // Stryker disable next-line ConditionalExpression: a handed place has no `own`; the tag is for the type
      ownDirectory: place._tag === "Socket" && place.own === true
        ? Option.some(nodePath.dirname(place.path))
        : Option.none()
    }
    const say = (error: SocketPlaceUnsafe) => stopWith(1)(placeWords(error, naming))
    const listen = yield* listenFor(place, sharing, say)
    yield* absence(config)
    // Stryker disable next-line ConditionalExpression: the owner alone has no gid, and no group admits accounts under none
    if (sharing._tag === "Group") {
      yield* Option.match(admissionWarning(accounts, sharing.gid, self), {
        onNone: () => Effect.void,
        onSome: Console.error
      })
    }
    const runtime = yield* Effect.runtime<never>()
    const listener: NodeServer.Listener = {
      listen,
      launchpadOrigin: config.launchpadOrigin,
      say: (line) => Runtime.runFork(runtime)(Console.error(line))
    }
    const app = HttpServer.serve(BuddyHttpApp).pipe(Layer.provide(servedLayer(config)))
    return yield* Layer.mergeAll(app, announce(listen, sharing, say)).pipe(
      Layer.provide(logOnStderr),
      Layer.provide(NodeServer.layer(listener, options.limits ?? NodeServer.serverLimits, config.limits.requestBody)),
      Layer.launch,
      Effect.catchTag("ServeError", (error) => stopWith(1)(listenWords(listen, error)))
    )
  })

/** Serves the config file's Buddy until interrupted. */
// The file passed ConfigFile's Schema and serve's own check of its origins (D30): it cannot be invalid here.
export const serveFile = ({ socketGroup, ...fields }: ConfigFile, place: Place) =>
  Effect.flatMap(
    Effect.orDie(configFrom(fields)),
    (config) => serveOn(config, place, { socketGroup })
  )
