// What `buddy serve` runs once its command line and config file are read: the HTTP app with buddy's
// own server limits, on an owner-only Unix socket by default or on TCP loopback where each peer's
// account can be proven (C6 "Who may reach it", D22). A module of its own, imported by serve.ts
// only when serve runs, so no other command loads the HTTP stack at its start (issue 10, D19).
import * as HttpServer from "@effect/platform/HttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import { Console, Effect, Either, Layer, Runtime } from "effect"
import { BuddyHttpApp, BuddyLive, configFrom } from "../http/app.js"
import type { ConfigFile } from "../schema/config.js"
import type { BuddyConfigShape } from "../services/BuddyConfig.js"
import { type Accounts, readAccounts, resolveAccounts } from "./accounts.js"
import { ExitCode } from "./exit.js"
import { type Admission, peerAdmission, socketAdmission } from "./listener-trust.js"
import * as NodeServer from "./node-server.js"
import { peersProvable, type PeerUnprovable } from "./peer-account.js"
import { placeWords, prepareSocket, restrictSocket, type SocketPlaceUnsafe } from "./socket-place.js"

/** Where `buddy serve` listens, as its command line says. */
export type Place =
  | { readonly _tag: "Socket"; readonly path: string }
  | { readonly _tag: "Tcp"; readonly port: number; readonly allowedAccounts: ReadonlyArray<string | number> }

/** Why the server could not listen, in words (exit 1): the system's own code, never a stack. */
const listenWords = (place: Place, error: ServeError): string => {
  const code = error.cause instanceof Error && "code" in error.cause ? String(error.cause.code) : "unknown"
  if (place._tag === "Socket") {
    return code === "EADDRINUSE"
      ? `buddy serve: ${place.path} appeared while buddy was starting; stop whatever made it and start again.`
      : `buddy serve: it could not listen on the socket ${place.path} (${code}).`
  }
  const { port } = place
  switch (code) {
    case "EADDRINUSE":
      return `buddy serve: port ${port} on 127.0.0.1 is in use by another program; stop it or choose another --port.`
    case "EACCES":
      return `buddy serve: this account may not listen on port ${port} of 127.0.0.1; choose a port above 1023.`
    default:
      return `buddy serve: it could not listen on port ${port} of 127.0.0.1 (${code}).`
  }
}

const peerWords = (error: PeerUnprovable): string =>
  error.reason === "not-linux"
    ? "buddy serve: on this system buddy cannot tell which account is on the other end of a TCP " +
      "connection, so it does not listen on TCP; run it without --port (on its owner-only socket)."
    : `buddy serve: ${error.path ?? "the kernel's TCP table"} cannot be read (${error.code ?? "EUNKNOWN"}), ` +
      "so buddy cannot tell which account is on the other end of a TCP connection and does not listen " +
      "on TCP; run it without --port (on its owner-only socket)."

const unknownAccountWords = (names: ReadonlyArray<string>): string =>
  `buddy serve: the --config file's "allowedAccounts" names ${
    names.map((name) => JSON.stringify(name)).join(", ")
  }, which no account of this machine has (/etc/passwd); give an existing name or a uid.`

// Stryker disable next-line OptionalChaining: Linux always has getuid; the fallback (no uid matches) is for the type
const ownUid = () => process.getuid?.() ?? -1

/** Says `line` on stderr and stops with `code`. */
const stopWith = (code: 1 | 2) => (line: string) =>
  Effect.zipRight(Console.error(line), Effect.fail(new ExitCode({ code })))

/** TCP's admission: this account and the allowed ones, each peer proven from the kernel's tables. */
const tcpAdmission = (allowedAccounts: ReadonlyArray<string | number>, accounts: Accounts) =>
  Effect.gen(function*() {
    yield* peersProvable().pipe(Effect.catchTag("PeerUnprovable", (error) => stopWith(1)(peerWords(error))))
    const uids = yield* Either.match(resolveAccounts(accounts, allowedAccounts), {
      onLeft: (names) => stopWith(2)(unknownAccountWords(names)),
      onRight: Effect.succeed
    })
    const runtime = yield* Effect.runtime<never>()
    return peerAdmission({
      allowed: new Set([ownUid(), ...uids]),
      describe: accounts.describe,
      report: (line) => Runtime.runFork(runtime)(Console.error(line))
    })
  })

/** The listener for a place, with the place made ready first (the socket's directory checked). */
const listenerFor = (place: Place, config: BuddyConfigShape, accounts: Accounts) =>
  Effect.gen(function*() {
    if (place._tag === "Tcp") {
      const admission: Admission = yield* tcpAdmission(place.allowedAccounts, accounts)
      return { listen: { _tag: "Tcp", port: place.port }, admission, launchpadOrigin: config.launchpadOrigin } as const
    }
    const path = yield* prepareSocket(place.path).pipe(
      Effect.catchTag("SocketPlaceUnsafe", (error) => stopWith(1)(placeWords(error, accounts.describe)))
    )
    return {
      listen: { _tag: "Socket", path },
      admission: socketAdmission,
      launchpadOrigin: config.launchpadOrigin
    } as const
  })

/** Once listening: the socket made 0600 and checked, then the address said on stderr (stdout is the journal). */
const announce = (accounts: Accounts) =>
  Layer.effectDiscard(
    Effect.flatMap(HttpServer.HttpServer, (server) =>
      server.address._tag === "TcpAddress"
        ? Console.error(`buddy serve: listening on http://127.0.0.1:${server.address.port}`)
        : restrictSocket(server.address.path).pipe(
          Effect.catchTag(
            "SocketPlaceUnsafe",
            (error: SocketPlaceUnsafe) => stopWith(1)(placeWords(error, accounts.describe))
          ),
          Effect.zipRight(Console.error(`buddy serve: listening on unix:${server.address.path}`))
        ))
  )

/**
 * Serves until interrupted. `limits` are the server's deadlines and sizes; tests shorten them.
 * A place it cannot listen on is said in words (exit 1; an unknown account, exit 2).
 */
export const serveOn = (
  config: BuddyConfigShape,
  place: Place,
  limits: NodeServer.ServerLimits = NodeServer.serverLimits
) =>
  Effect.gen(function*() {
    const accounts = yield* readAccounts()
    const listener = yield* listenerFor(place, config, accounts)
    const app = HttpServer.serve(BuddyHttpApp).pipe(Layer.provide(BuddyLive(config)))
    return yield* Layer.mergeAll(app, announce(accounts)).pipe(
      Layer.provide(NodeServer.layer(listener, limits, config.limits.requestBody)),
      Layer.launch,
      Effect.catchTag("ServeError", (error) => stopWith(1)(listenWords(place, error)))
    )
  })

/** Serves the config file's Buddy until interrupted. */
// The file passed ConfigFile's Schema and serve's own check of its origins (D30): it cannot be invalid here.
export const serveFile = (file: ConfigFile, place: Place) =>
  Effect.flatMap(Effect.orDie(configFrom(file)), (config) => serveOn(config, place))
