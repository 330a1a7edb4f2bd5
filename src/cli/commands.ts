// The `buddy` command tree. A new subcommand (such as `serve`) is one more entry in `subcommands`;
// `buddyCommand`, the tree that help and completions are made from, and `cli` are built from that
// list and nothing else.
import * as Command from "@effect/cli/Command"
import { Console, Effect } from "effect"
import { buddyVersion } from "../version.js"
import { check } from "./check.js"
import { CommandLine, parse } from "./command-line.js"
import { completionScript } from "./completions.js"
import { ExitCode } from "./exit.js"
import { helpText, usageLine } from "./help.js"
import { printUnitChecks } from "./print-unit.js"
import { root } from "./root.js"
import { serveCommand } from "./serve.js"
import { signIn } from "./sign-in.js"
import { signOut } from "./sign-out.js"
import { status } from "./status.js"
import { commandTree } from "./tree.js"

export const subcommands = [status, signIn, signOut, serveCommand, check] as const

export const buddyCommand = root.pipe(Command.withSubcommands(subcommands))

/** What a person sees of the commands: help, usage errors and completions are made from it (D18). */
export const tree = commandTree(root, subcommands, { checks: printUnitChecks })

const run = Command.run(buddyCommand, { name: "buddy", version: buddyVersion })

/**
 * The CLI as an Effect of its argv (`process.argv`: node, script, arguments…). The command line
 * is read against `tree` first; only a line that names a command and its flags rightly reaches
 * @effect/cli, in canonical form. A usage error is said on stderr and ends with exit 2 (C8).
 */
export const cli = (argv: ReadonlyArray<string>) =>
  Effect.suspend(() =>
    CommandLine.$match(parse(tree, argv.slice(2)), {
      Run: ({ args }) => run([...argv.slice(0, 2), ...args]),
      Help: ({ node }) => Console.log(helpText(node)),
      Version: () => Console.log(buddyVersion),
      Completions: ({ shell }) => Console.log(completionScript(tree, shell)),
      Wrong: ({ complaint, node }) =>
        Effect.zipRight(
          Console.error([...complaint, usageLine(node)].join("\n")),
          Effect.fail(new ExitCode({ code: 2 }))
        )
    })
  )
