// Which server the app answers behind, for what its own OpenAPI document lists (D54). A host that
// mounts the app (mountApp, HttpLayerRouter, node:http, a web handler) gives only the app's answers;
// `buddy serve`'s own server (src/serve/node-server.ts) answers some requests itself before the app
// sees them (408, 417, 431, host-mismatch, …), and its layer says so here. The default is the mount,
// so a Launchpad provides nothing.
import { Context } from "effect"

/** The app mounted in a host's server, or behind `buddy serve`'s own. */
export type Server = "mounted" | "buddy-serve"

export class ServedBy extends Context.Reference<ServedBy>()("buddy/ServedBy", {
  // Stryker disable next-line StringLiteral: the app tells only "buddy-serve" apart; any other value is the mounted app
  defaultValue: (): Server => "mounted"
}) {}
