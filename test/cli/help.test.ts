// Help, as the real executable prints it (D18): gh's shape, made from the command tree, exact to
// the character. One screen for `buddy --help` (at most 24 lines of at most 80 columns), no
// @effect/cli built-ins (--wizard, --log-level, "A true or false value."), each command's usage
// with `buddy` in front, and the same text from `buddy help COMMAND`, `buddy COMMAND --help` and
// `-h`. On a terminal the headings are bold; with NO_COLOR or to a pipe there is no escape code.
import { describe, expect, it } from "vitest"
import { tree } from "../../src/cli/commands.js"
import { nodes, title } from "../../src/cli/tree.js"
import { onPath, requires } from "../support/required.js"
import { BIN, buddy, spawnBuddy } from "./support/buddy-process.js"

const ROOT = `Sign Buddy in to ChatGPT through the local Hermes, read his state, sign him out.

USAGE
  buddy <command> [flags]

COMMANDS
  status    Read Buddy's state: works, waits, or unknown and why.
  sign-in   Sign Buddy in to ChatGPT with a code you enter in the browser.
  sign-out  Sign Buddy out of ChatGPT.
  serve     Serve the Launchpad's HTTP app on a Unix socket (journal on stdout).
  check     Ask a running buddy serve whether it and Hermes answer (monitoring).
  help      Show help for buddy or one of its commands.

FLAGS
  --version            Print buddy's version.
  --completions SHELL  Print a completion script for bash, zsh or fish.
  -h, --help           Show help for this command.

LEARN MORE
  \`buddy help <command>\` shows a command's flags; they may come before it too.
  Exit codes: 0 done or works; 1 unavailable or unknown; 2 usage; 3 waits or
  ended unsigned; 4 blocked; 130 Ctrl-C; 141 the reader has gone.
  Aliases: login (sign-in start), logout (sign-out), version (--version),
  completion (--completions).
`

const SIGN_IN = `Sign Buddy in to ChatGPT with a code you enter in the browser.

USAGE
  buddy sign-in <command>

COMMANDS
  start  Start a sign-in and hold it here until it ends; Ctrl-C cancels it.

FLAGS
  -h, --help  Show help for this command.
`

const commonFlags = `FLAGS
  --json      Print one JSON object per line instead of words.
  --home DIR  The Hermes home to use (default: $HERMES_HOME, else ~/.hermes).
  -h, --help  Show help for this command.
`

const START = `Start a sign-in and hold it here until it ends; Ctrl-C cancels it.

USAGE
  buddy sign-in start [--json] [--home DIR]

${commonFlags}`

const STATUS = `Read Buddy's state: works, waits, or unknown and why.

USAGE
  buddy status [--json] [--home DIR]

${commonFlags}`

const SIGN_OUT = `Sign Buddy out of ChatGPT.

USAGE
  buddy sign-out [--json] [--home DIR]

${commonFlags}`

const SERVE = `Serve the Launchpad's HTTP app on a Unix socket (journal on stdout).

USAGE
  buddy serve [--config FILE] [--socket PATH] [--home DIR] [--print-unit UNIT]
              [--account NAME]

FLAGS
  --config FILE      A JSON file with launchpadOrigin, environment, locale and
                     buddyOrigin: without buddyOrigin, or in an environment
                     other than hosted-personal, Buddy is absent and every route
                     answers 404 buddy-absent. Optionally hermesHome and
                     socketGroup (a proxy's group the socket is shared with).
  --socket PATH      The socket to listen on (default:
                     $RUNTIME_DIRECTORY/serve.sock under systemd, else
                     $XDG_RUNTIME_DIR/buddy/serve.sock).
  --home DIR         The Hermes home to use; overrides the config's hermesHome
                     (default: that, else $HERMES_HOME, else ~/.hermes).
  --print-unit UNIT  Print a systemd unit (user, system or socket) that runs
                     this buddy where it is, and serve nothing.
  --account NAME     The account --print-unit's system unit and socket run as
                     (default: buddy).
  -h, --help         Show help for this command.
`

const CHECK = `Ask a running buddy serve whether it and Hermes answer (monitoring).

USAGE
  buddy check [--socket PATH] [--json]

FLAGS
  --socket PATH  The socket buddy serve listens on (default: serve's,
                 $RUNTIME_DIRECTORY/serve.sock under systemd, else
                 $XDG_RUNTIME_DIR/buddy/serve.sock).
  --json         Print one JSON object per line instead of words.
  -h, --help     Show help for this command.
`

const HELP = `Show help for buddy or one of its commands.

USAGE
  buddy help [command]

FLAGS
  -h, --help  Show help for this command.
`

const cases: Array<[string, string, ReadonlyArray<ReadonlyArray<string>>]> = [
  ["buddy", ROOT, [["--help"], ["-h"], ["help"], []]],
  ["buddy sign-in", SIGN_IN, [["sign-in", "--help"], ["help", "sign-in"], ["sign-in"], ["--help", "sign-in"]]],
  ["buddy sign-in start", START, [["sign-in", "start", "--help"], ["help", "sign-in", "start"], [
    "sign-in",
    "start",
    "-h"
  ]]],
  ["buddy status", STATUS, [["status", "--help"], ["help", "status"], ["status", "--json", "-h"]]],
  ["buddy sign-out", SIGN_OUT, [["sign-out", "--help"], ["help", "sign-out"]]],
  ["buddy serve", SERVE, [["serve", "--help"], ["help", "serve"], ["serve", "--socket", "/nowhere", "--help"]]],
  ["buddy check", CHECK, [["check", "--help"], ["help", "check"], ["check", "--json", "-h"]]],
  ["buddy help", HELP, [["help", "--help"], ["help", "help"]]]
]

describe("buddy's help", { timeout: 60_000 }, () => {
  for (const [command, text, lines] of cases) {
    it(
      `for ${command} is exact, the same however it is asked for, and fits one screen`,
      { timeout: 90_000 },
      async () => {
        for (
          const [args, env] of [...lines.map((args) => [args, {}] as const), [lines[0]!, { NO_COLOR: "1" }] as const]
        ) {
          const ran = await buddy(args, { env })
          expect({ args, code: ran.code, stderr: ran.rawStderr }).toStrictEqual({ args, code: 0, stderr: "" })
          expect(ran.rawStdout, args.join(" ")).toBe(text)
        }
        const shown = text.trimEnd().split("\n")
        expect(shown.length).toBeLessThanOrEqual(24)
        for (const line of shown) expect(line.length, line).toBeLessThanOrEqual(80)
      }
    )
  }

  it("is made from a tree where every command and every flag has its words", () => {
    expect(nodes(tree).map(title)).toStrictEqual([
      "buddy",
      "buddy status",
      "buddy sign-in",
      "buddy sign-in start",
      "buddy sign-out",
      "buddy serve",
      "buddy check",
      "buddy help",
      "buddy login",
      "buddy logout",
      "buddy version",
      "buddy completion"
    ])
    for (const node of nodes(tree)) {
      expect(node.description, title(node)).toMatch(/^[A-Z].*\.$/)
      for (const flag of node.flags) expect(flag.description, `${title(node)} ${flag.name}`).toMatch(/^[A-Z].*\.$/)
    }
  })

  it("shows none of @effect/cli's built-ins and none of its boilerplate", async () => {
    const ran = await buddy(["--help"])
    for (const gone of ["--wizard", "--log-level", "A true or false value", "This setting is optional", "$ "]) {
      expect(ran.rawStdout).not.toContain(gone)
    }
    expect(ran.rawStdout).not.toContain("buddy 0.")
  })

  it("after a mistake, shows the help of the command named so far when --help is on the line", async () => {
    const ran = await buddy(["sign-in", "stat", "--help"])
    expect(ran).toMatchObject({ code: 0, rawStdout: SIGN_IN, rawStderr: "" })
  })

  const hasScript = requires(onPath("script"), "script (util-linux)", "apt-get install bsdutils")

  it.skipIf(!hasScript)("has bold headings on a terminal, and no escape code there when NO_COLOR is set", async () => {
    // util-linux `script` runs a command on a pseudo-terminal: the one case where colour is allowed.
    const onTerminal = (env: Record<string, string>) =>
      spawnBuddy([], { env, command: ["script", "-qec", `"${process.execPath}" "${BIN}" --help`, "/dev/null"] })
        .finished
    const coloured = await onTerminal({})
    expect(coloured.code).toBe(0)
    expect(coloured.rawStdout).toContain("\u001b[1mUSAGE\u001b[22m")
    const plain = await onTerminal({ NO_COLOR: "1" })
    expect(plain.code).toBe(0)
    expect(plain.rawStdout.replaceAll("\r\n", "\n")).toBe(ROOT)
    const dumb = await onTerminal({ TERM: "dumb" })
    expect(dumb.code).toBe(0)
    expect(dumb.rawStdout.replaceAll("\r\n", "\n")).toBe(ROOT)
    // FORCE_COLOR=0 is NO_COLOR's other spelling (issue 26): it printed bold.
    for (const off of ["0", "false"]) {
      const forcedOff = await onTerminal({ FORCE_COLOR: off })
      expect(forcedOff.rawStdout.replaceAll("\r\n", "\n")).toBe(ROOT)
    }
  })

  it("has no escape code on a pipe whatever FORCE_COLOR says (C8 keeps pipes plain)", async () => {
    for (const value of ["1", "3", "true"]) {
      const forced = await spawnBuddy(["--help"], { env: { FORCE_COLOR: value } }).finished
      expect(forced.code).toBe(0)
      expect(forced.rawStdout).toBe(ROOT)
    }
  })
})
