// The `buddy` command tree. A new subcommand (such as `serve`) is one more entry in `subcommands`;
// `buddyCommand` and `cli` are built from that list and nothing else.
import * as Command from "@effect/cli/Command"
import { buddyVersion } from "../version.js"
import { root } from "./root.js"
import { serveCommand } from "./serve.js"
import { signIn } from "./sign-in.js"
import { signOut } from "./sign-out.js"
import { status } from "./status.js"

export const subcommands = [status, signIn, signOut, serveCommand] as const

export const buddyCommand = root.pipe(Command.withSubcommands(subcommands))

/** The CLI as an Effect of its argv (`process.argv`: node, script, arguments…). */
export const cli = Command.run(buddyCommand, { name: "buddy", version: buddyVersion })
