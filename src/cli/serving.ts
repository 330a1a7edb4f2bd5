// What `buddy serve` runs once its command line and config file are read: the HTTP app on
// 127.0.0.1 with buddy's own server limits. A module of its own, imported by serve.ts only when
// serve runs, so no other command loads the HTTP stack at its start (issue 10, D19).
import * as HttpServer from "@effect/platform/HttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import { Console, Effect, Layer } from "effect"
import { BuddyHttpApp, BuddyLive, configFrom } from "../http/app.js"
import type { ConfigFile } from "../schema/config.js"
import type { BuddyConfigShape } from "../services/BuddyConfig.js"
import { ExitCode } from "./exit.js"
import * as NodeServer from "./node-server.js"

/** Why the server could not listen, in words (exit 1): the system's own code, never a stack. */
const listenWords = (port: number, error: ServeError): string => {
  const code = error.cause instanceof Error && "code" in error.cause ? String(error.cause.code) : "unknown"
  switch (code) {
    case "EADDRINUSE":
      return `buddy serve: port ${port} on 127.0.0.1 is in use by another program; stop it or choose another --port.`
    case "EACCES":
      return `buddy serve: this account may not listen on port ${port} of 127.0.0.1; choose a port above 1023.`
    default:
      return `buddy serve: it could not listen on port ${port} of 127.0.0.1 (${code}).`
  }
}

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

/** Serves the config file's Buddy until interrupted; a port it cannot listen on is said in words, exit 1. */
export const serveFile = (file: ConfigFile, port: number) =>
  serveOn(configFrom(file), port).pipe(
    Effect.catchTag("ServeError", (error) =>
      Effect.zipRight(Console.error(listenWords(port, error)), Effect.fail(new ExitCode({ code: 1 }))))
  )
