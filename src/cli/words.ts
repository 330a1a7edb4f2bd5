// Every sentence the `buddy` CLI says, in one table: each closed reason (C7), each sign-in state
// (C4.10) and each Buddy state (C5) has exactly one sentence of plain English. The records are
// typed by the closed unions, so a new reason does not compile without its words, and a test walks
// the Schema literals so one cannot ship without them either. No Hermes text, no internals.
import { Option } from "effect"
import * as nodePath from "node:path"
import type { BlockedReason, BuddyState, GatewayReason, SignInState } from "../schema/reasons.js"
import type { HolderBusy, LockPlace } from "../services/HolderBusy.js"
import { octal, openedTo } from "../services/mode-words.js"
import { ownUid } from "../services/private-directory.js"

/** Why the gateway could not be used. Each is a whole sentence; some follow a colon. */
export const gatewayReason: Readonly<Record<GatewayReason, string>> = {
  "not-running": "Hermes is not running.",
  "not-ready": "Hermes is starting up or shutting down and is not ready yet.",
  incompatible: "Hermes answered in a way this version of buddy does not understand.",
  "unsafe-home": "Hermes's home directory is not private to you, so buddy will not use it.",
  "unsafe-socket": "Hermes's control socket is not private to you, so buddy will not use it.",
  "unsafe-pointer": "Hermes's pointer to its control socket is not safe, so buddy will not use it.",
  "foreign-origin": "Hermes named an address that is not on this machine, so buddy will not call it.",
  timeout: "Hermes did not answer in time.",
  "too-large": "Hermes sent an answer too large to accept.",
  malformed: "Hermes sent an answer buddy could not read.",
  refused: "Hermes refused buddy's access ticket.",
  "http-error": "Hermes answered with an error.",
  lost: "The connection to Hermes closed before its answer was complete."
}

/** Another buddy process holds the sign-in for this Hermes (C4.1): its process id when it wrote it. */
export const heldElsewhere = (holder: Option.Option<number>): string =>
  `Another buddy${
    Option.match(holder, { onNone: () => "", onSome: (pid) => ` (process ${pid})` })
  } holds a sign-in for this Hermes, so nothing was changed. ` +
  "Its lock goes when that sign-in ends or that buddy stops."

/** `buddy status` while another buddy holds a sign-in for this Hermes (C8): who, as `heldElsewhere` says it. */
export const signInHeld = (holder: Option.Option<number>): string =>
  `A sign-in is in progress: another buddy${
    Option.match(holder, { onNone: () => "", onSome: (pid) => ` (process ${pid})` })
  } holds it until it is finished in the browser or that buddy stops.`

/** What is in the lock's way (D39), in words, then the fix: each names the path. */
const inTheWay = (place: LockPlace): ReadonlyArray<string> => {
  const { path } = place
  switch (place.problem) {
    case "link":
      return [`${path} is a symbolic link.`, `Fix: rm ${path} (buddy makes its own there)`]
    case "not-directory":
      return [`${path} is not a directory.`, `Fix: rm ${path} (buddy makes its own there)`]
    case "not-file":
      return [`${path} is not a regular file.`, `Fix: rm -r ${path} (buddy makes its own there)`]
    case "hard-link":
      return [
        `${path} has ${place.found} names (a hard link): another name could be someone else's.`,
        `Fix: rm ${path} (buddy makes its own there)`
      ]
    case "foreign":
      return [
        `${path} belongs to uid ${place.found}, not to you (uid ${ownUid()}).`,
        `Fix: while no buddy runs, remove buddy's own entry: sudo rm -r ${path} (buddy makes it again)`
      ]
    case "open":
      return [
        `${path} has mode ${octal(place.found ?? 0)}: ${openedTo(place.found ?? 0, 0o077)} may use it.`,
        `Fix: chmod go= ${path}`
      ]
    case "unknown-entries":
      return [
        `${path} holds files buddy did not put there, so it cannot be cleared.`,
        `Fix: look at them (ls -la ${path}), then, while no buddy runs: rm -r ${path}`
      ]
    case "system":
      return [
        `${path}: the system refused (${place.code}).`,
        place.code === "EROFS"
          ? "Hermes's home is on a read-only filesystem; buddy keeps its lock beside it and needs to write there."
          : `Check that you can write there: ls -ld ${nodePath.dirname(path)}`
      ]
    case "no-proc":
      return [
        `${path} is missing: buddy reaches its lock through it on Linux.`,
        "Fix: mount /proc (in a container, do not mask /proc/self/fd)"
      ]
    case "unsupported":
      return [`buddy has no sign-in lock on this system (${place.code}); it has one on Linux, macOS and the BSDs.`]
  }
}

/**
 * Why the holder lock (C4.1) was not taken, on the terminal only: another buddy holds it (its process
 * id when it wrote it), or what is in its way, where, and the command that fixes it.
 */
export const lockRefusal = (busy: HolderBusy): string =>
  Option.match(busy.place, {
    onNone: () => heldElsewhere(busy.holder),
    onSome: (place) =>
      ["buddy could not take its sign-in lock for this Hermes, so nothing was changed.", ...inTheWay(place)].join("\n")
  })

/** Why an operation changed nothing. */
export const blockedReason: Readonly<Record<BlockedReason, string>> = {
  "hermes-outdated": "Buddy needs an update before he can be signed in here.",
  "sign-in-running": "A sign-in is still running on Hermes and could not be ended, so nothing was changed.",
  "sign-in-unknown": "That sign-in is not the one this buddy is holding.",
  "lock-unavailable": "Buddy's sign-in lock for this Hermes could not be taken, so nothing was changed."
}

/** Each sign-in state, as the line that reports a change to it. */
export const signInState: Readonly<Record<SignInState, string>> = {
  none: "No sign-in is running.",
  pending: "The sign-in is waiting for you to finish in the browser.",
  "signed-in": "Buddy is signed in.",
  expired: "The code expired before the sign-in was finished; Buddy is not signed in.",
  refused: "The sign-in was refused in the browser; Buddy is not signed in.",
  lost: "Hermes no longer holds this sign-in; Buddy is not signed in.",
  failed: "Hermes could not finish the sign-in; Buddy is not signed in.",
  cancelled: "The sign-in was cancelled; Buddy is not signed in."
}

/** Buddy's state (C8's exact sentences); `unknown` is followed by the gateway reason's sentence. */
export const buddyState: Readonly<Record<BuddyState, string>> = {
  works: "Buddy works.",
  waits: "Buddy is waiting to be signed in.",
  unknown: "Buddy's state is unknown:"
}

export const status = (reading: { readonly state: BuddyState; readonly reason?: GatewayReason }): string =>
  reading.reason === undefined
    ? buddyState[reading.state]
    : `${buddyState[reading.state]} ${gatewayReason[reading.reason]}`

export const unavailable = (reason: GatewayReason): string => `Buddy cannot be reached: ${gatewayReason[reason]}`

export const signedOut = "Buddy is signed out."

/** The held sign-in's first lines: the page and code, then how to stop. */
export const openPage = (page: string, code: string): string => `Open ${page} and enter the code ${code}.`
/** Said on stderr before a sign-in starts while Buddy already works. */
export const alreadyWorks =
  "Buddy already works: he is signed in to ChatGPT. Finishing this sign-in replaces his sign-in; Ctrl-C leaves it as it is."

export const waiting = "Waiting for you to finish in the browser. Ctrl-C cancels."

/** On a terminal only: the offer to open the page (D28). */
export const pressEnterToOpen = "Press Enter to open the page in your browser."
export const opening = (page: string) => `Opening ${page} in your browser.`
export const noBrowser = "No browser could be opened here: open the page on another device and enter the code there."

/** Said once (on stderr) each time the hold's trouble changes; the sign-in stays held meanwhile. */
export const stillWaiting = "Still waiting; Ctrl-C cancels."
export const pollTrouble = {
  unavailable: (reason: GatewayReason) => `Hermes is not answering about the sign-in: ${gatewayReason[reason]}`,
  "hermes-outdated": "Hermes no longer lists this sign-in but, until it is updated, cannot prove that it has ended.",
  "sign-in-running": "Hermes answered in a way that does not show whether this sign-in has ended."
} as const
export const pollRecovered = "Hermes is answering again. Waiting for you to finish in the browser."

/** Ctrl-C: the cancel is sent to Hermes; then either the cancelled state, or why it is not confirmed. */
export const cancelling = "Cancelling the sign-in on Hermes…"
export const cancelUnconfirmed = {
  unavailable: (reason: GatewayReason) =>
    `The sign-in could not be cancelled, Hermes was not reached: ${gatewayReason[reason]}`,
  "hermes-outdated": "The sign-in could not be cancelled: this Hermes cannot confirm a cancel until it is updated.",
  "sign-in-running": "The sign-in could not be cancelled: Hermes did not confirm the cancel."
} as const
/** SIGTERM or SIGHUP while a sign-in may be held: the process stops, the sign-in is left to Hermes (C4.9). */
export const stoppedWithoutCancel =
  "buddy was stopped without cancelling the sign-in on Hermes; it may still complete if you finish it in the " +
  "browser. Run `buddy status` to see whether Buddy is signed in."
/** Ctrl-C during a start that Hermes then refused: nothing was started, so nothing needs cancelling. */
export const nothingStarted = "No sign-in was started on Hermes, so there is nothing to cancel."
export const mayStillComplete =
  "It may still complete if you finish it in the browser; run `buddy status` to see whether Buddy is signed in."

/** A failure nobody planned for: said without its internals. */
export const unexpected = "buddy stopped on an error it did not expect; nothing more can be said safely."

/**
 * After @effect/cli's own complaint about the command line. Our own check of the command line
 * (./command-line.ts) comes first and says each command's usage itself, so this is said only if
 * @effect/cli refuses a line that check let through.
 */
export const usage = "Usage: buddy <command> [flags]; `buddy --help` lists the commands."

// Help and usage (D18). What a person reads in `buddy --help`, `buddy help COMMAND` and after a
// mistake on the command line: gh's shape, our words, nothing of @effect/cli's own.

/** Each flag's line in help; a command may say more about a flag of its own (`buddy serve --home`). */
const flagWords: Readonly<Record<string, string>> = {
  "--json": "Print one JSON object per line instead of words.",
  "--home": "The Hermes home to use (default: $HERMES_HOME, else ~/.hermes).",
  "--config": "A JSON file with launchpadOrigin, environment, locale and buddyOrigin: without buddyOrigin, or in an " +
    "environment other than hosted-personal, Buddy is absent and every route answers 404 buddy-absent. Optionally " +
    "hermesHome and socketGroup (a proxy's group the socket is shared with).",
  "--socket":
    "The socket to listen on (default: $RUNTIME_DIRECTORY/serve.sock under systemd, else $XDG_RUNTIME_DIR/buddy/serve.sock).",
  "buddy check --socket": "The socket buddy serve listens on (default: serve's, $RUNTIME_DIRECTORY/serve.sock under " +
    "systemd, else $XDG_RUNTIME_DIR/buddy/serve.sock).",
  "buddy serve --home":
    "The Hermes home to use; overrides the config's hermesHome (default: that, else $HERMES_HOME, else ~/.hermes).",
  "--print-unit": "Print a systemd unit (user, system or socket) that runs this buddy where it is, and serve nothing.",
  "--account": "The account --print-unit's system unit and socket run as (default: buddy)."
}

/** The description of `flag` in the help of `command` ("buddy serve"). */
export const flagHelp = (command: string, flag: string): string =>
  flagWords[`${command} ${flag}`] ?? flagWords[flag] ?? ""

export const helpWords = {
  command: "Show help for buddy or one of its commands.",
  helpFlag: "Show help for this command.",
  version: "Print buddy's version.",
  completions: "Print a completion script for bash, zsh or fish.",
  /** An alias's line in help: what it stands for. */
  alias: (stands: ReadonlyArray<string>) =>
    stands[0]?.startsWith("--") === true ? `Same as buddy ${stands.join(" ")}.` : `Alias of buddy ${stands.join(" ")}.`,
  usage: "USAGE",
  commands: "COMMANDS",
  flags: "FLAGS",
  learnMore: "LEARN MORE",
  more: [
    "`buddy help <command>` shows a command's flags; they may come before it too.",
    "Exit codes: 0 done or works; 1 unavailable or unknown; 2 usage; 3 waits or ended unsigned; " +
    "4 blocked; 130 Ctrl-C; 141 the reader has gone."
  ],
  aliases: (aliases: ReadonlyArray<{ readonly name: string; readonly stands: ReadonlyArray<string> }>) =>
    `Aliases: ${aliases.map((alias) => `${alias.name} (${alias.stands.join(" ")})`).join(", ")}.`
} as const

/** A name the person typed, quoted so that nothing in it (a space, an escape) can pass for our words. */
const quote = (typed: string): string => JSON.stringify(typed)

const either = (names: ReadonlyArray<string>): string =>
  names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`

/** The first line of a usage error; the command's usage line follows it. `command` is "buddy sign-in". */
export const usageError = {
  unknownCommand: (typed: string, command: string) => `unknown command ${quote(typed)} for "${command}"`,
  unknownFlag: (typed: string, command: string) => `unknown flag ${quote(typed)} for "${command}"`,
  didYouMean: (names: ReadonlyArray<string>) => `Did you mean ${either(names.map(quote))}?`,
  missingValue: (flag: string, value: string) => `the value of ${flag} is missing: ${flag} ${value}`,
  unwantedValue: (flag: string) => `${flag} takes no value`,
  unexpectedArgument: (typed: string, command: string) =>
    `"${command}" takes no arguments, but was given ${quote(typed)}`,
  missingCommand: (command: string, commands: ReadonlyArray<string>) =>
    `"${command}" needs a command: ${either(commands)}`,
  usage: (synopsis: string, command: string, group: boolean) =>
    `Usage: ${synopsis}; \`${command} --help\` ${group ? "lists its commands" : "says more"}.`
} as const

/** Flags that are gone, and what to do instead: said rather than "unknown flag" to whoever still types them. */
export const goneFlags: Readonly<Record<string, string>> = {
  "buddy serve --port":
    "buddy serve no longer listens on TCP (another account could take the port first): a proxy reaches its socket; " +
    "see socketGroup in docs/operator-guide.md"
}

export const notAShell = (typed: string): string => `--completions takes bash, zsh or fish, not ${quote(typed)}`

/** `buddy serve --print-unit` (./print-unit.ts): what it refuses, as usage errors, and one warning. */
export const printUnit = {
  notAUnit: (typed: string) => `--print-unit takes user, system or socket, not ${quote(typed)}`,
  notAnAccount: (typed: string) =>
    `--account takes an account's name (a letter or _, then letters, digits, _ or -; at most 32), not ${quote(typed)}`,
  accountAlone: "buddy serve: --account names the account of a printed unit; give --print-unit system or socket too.",
  accountOfUser:
    "buddy serve: a user unit runs as the account whose manager runs it, so --account has no use with --print-unit user.",
  socketGiven:
    "buddy serve: a printed unit names its socket itself (the default place under it), so --socket has no use with --print-unit.",
  socketUnitRuns: (flag: string) =>
    `buddy serve: the socket unit runs nothing itself (buddy.service does), so ${flag} has no use with --print-unit socket.`,
  controlIn: (flag: string) => `buddy serve: the ${flag} path has a control character, which a unit cannot name.`,
  fromNpxCache: (bin: string) =>
    `buddy serve: this buddy runs from npx's cache (${bin}), which npm may clear: install it ` +
    "(npm install -g @lazurio/buddy) and print the unit with that buddy."
} as const

/** Why nothing usable came back from serve, in words. */
const silence: Readonly<Record<string, string>> = {
  timeout: "no answer within 10 s",
  "too-large": "what came back was far too large for buddy's answer",
  "not-buddy": "what answered there is not buddy serve",
  ENOENT: "no socket there",
  ECONNREFUSED: "nobody listens on the socket"
}

/** `buddy check`'s line: what answered (D58). */
export const checked = (
  line:
    | {
      readonly socket: string
      readonly serve: "answers"
      readonly hermes: "answers"
      readonly state: "works" | "waits"
    }
    | { readonly socket: string; readonly serve: "answers"; readonly hermes: "unusable"; readonly reason: string }
    | { readonly socket: string; readonly serve: "silent"; readonly reason: string }
): string =>
  line.serve === "silent"
    ? `buddy serve does not answer on unix:${line.socket} (${silence[line.reason] ?? line.reason}).`
    : line.hermes === "answers"
    ? `buddy serve answers on unix:${line.socket}, and Hermes through it: ${
      line.state === "works" ? "Buddy works." : "Buddy waits (not signed in)."
    }`
    : line.reason === "buddy-absent"
    ? `buddy serve answers on unix:${line.socket}, but Buddy is absent there (its config), so Hermes is not asked.`
    : `buddy serve answers on unix:${line.socket}, but Hermes cannot be used through it (${line.reason}).`
