// The `buddy` command tree. A new subcommand (such as `serve`) is one more entry in `subcommands`;
// `buddyCommand` and `cli` are built from that list and nothing else.
import * as Command from "@effect/cli/Command"
import { root } from "./root.js"
import { signIn } from "./sign-in.js"
import { signOut } from "./sign-out.js"
import { status } from "./status.js"

/** The version `buddy --version` prints; a test keeps it equal to package.json's. */
export const version = "0.1.0"

export const subcommands = [status, signIn, signOut] as const

export const buddyCommand = root.pipe(Command.withSubcommands(subcommands))

/** The CLI as an Effect of its argv (`process.argv`: node, script, arguments…). */
export const cli = Command.run(buddyCommand, { name: "buddy", version })
