// What an operator at a terminal needs beyond a closed reason (C8, issue 18.3, D29): the Hermes home
// used and where it came from, and for a refusal of C1's path checks the path, what is wrong with it
// and the command that fixes it, as ssh names a key file and its mode. Words on stderr only, after
// the answer: HTTP answers, the journal and --json keep the closed reasons. It looks again, with
// lstat and realpath only, at the paths C1 looked at; to Hermes it sends at most one more identify,
// for `not-ready`, to tell a failed gateway from one starting or draining.
import { Effect, Either, Layer, Option, Schema } from "effect"
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { GatewayState } from "../schema/control.js"
import type { GatewayReason } from "../schema/reasons.js"
import { type Accounts, readAccounts } from "../serve/accounts.js"
import { BuddyConfig } from "../services/BuddyConfig.js"
import { GatewaySocket, GatewaySocketLive } from "../services/GatewaySocket.js"
import { octal, openedTo } from "../services/mode-words.js"
import { ownUid } from "../services/private-directory.js"
import { identifyRequest } from "../services/Ticket.js"

export interface HomeUsed {
  readonly path: string
  /** Where the path came from, in words: "from --home", "from HERMES_HOME", "the default, ~/.hermes". */
  readonly from: string
}

/** C1.1's choice, as `configuredHome` makes it, with where it came from. */
export const homeUsed = (override: Option.Option<string>, env: NodeJS.ProcessEnv = process.env): HomeUsed => {
  const given = Option.getOrUndefined(override)
  if (given !== undefined && given !== "") return { path: given, from: "from --home" }
  const fromEnv = env["HERMES_HOME"]
  if (fromEnv !== undefined && fromEnv !== "") return { path: fromEnv, from: "from HERMES_HOME" }
  const userHome = env["HOME"] !== undefined && env["HOME"] !== "" ? env["HOME"] : os.homedir()
  return { path: nodePath.join(userHome, ".hermes"), from: "the default, ~/.hermes" }
}

const lstatOf = (path: string) => Effect.promise(() => fsp.lstat(path).then(Option.some, () => Option.none<Stats>()))
const realpathOf = (path: string) =>
  Effect.promise(() => fsp.realpath(path).then(Option.some, () => Option.none<string>()))

const kindOf = (stats: Stats): string =>
  stats.isSymbolicLink()
    ? "a symbolic link"
    : stats.isDirectory()
    ? "a directory"
    : stats.isFile()
    ? "a file"
    : stats.isSocket()
    ? "a socket"
    : "a special file"

const checkGateway = "Check the gateway with: systemctl --user status hermes-gateway"
const restartGateway = "The gateway makes it: restart it with: systemctl --user restart hermes-gateway"

/** Who asks: the running account, and the command line to give again as the home's owner. */
export interface Asker {
  readonly uid: number
  readonly args: ReadonlyArray<string>
}

const thisProcess = (): Asker => ({ uid: ownUid(), args: process.argv.slice(2) })

/** A word as a POSIX shell reads it back: kept bare when it is plain, else single-quoted. */
export const shellWord = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`

/** Who owns what, and the fix for a path buddy did not make (C8: a fix never hands a path to another account). */
interface Judging {
  readonly asker: Asker
  readonly accounts: Accounts
  /** The home's owner: a path of the home's that another account owns is fixed by running buddy as this one. */
  readonly homeOwner: number
}

/** The one fix for a path the asker does not own: run buddy as the home's owner, or, where the home is the asker's, the gateway's. */
const notYours = (judging: Judging): string =>
  judging.homeOwner === judging.asker.uid
    ? restartGateway
    : `Fix: run buddy as the home's owner: sudo -u ${shellWord(judging.accounts.nameOf(judging.homeOwner))} buddy ${
      judging.asker.args.map(shellWord).join(" ")
    }`.trimEnd()

/** What is wrong with a path C1 wants to be `kind`, ours, and without the `forbidden` mode bits. */
const wrongWith = (
  path: string,
  stats: Stats,
  judging: Judging,
  want: { readonly kind: string; readonly forbidden: number; readonly fix: ReadonlyArray<string> }
): ReadonlyArray<string> => {
  if (kindOf(stats) !== want.kind) return [`${path} is ${kindOf(stats)}, not ${want.kind}.`]
  if (stats.uid !== judging.asker.uid) {
    return [
      `${path} belongs to ${judging.accounts.describe(stats.uid)}; buddy runs as ${
        judging.accounts.describe(judging.asker.uid)
      }.`,
      notYours(judging)
    ]
  }
  if ((stats.mode & want.forbidden) !== 0) {
    return [
      `${path} has mode ${octal(stats.mode)}: ${openedTo(stats.mode, want.forbidden)} may ${
        want.forbidden === 0o022 ? "write to" : "use"
      } it.`,
      ...want.fix
    ]
  }
  return []
}

/** What identify says of the gateway's state, read loosely: only `state` matters here. */
const decodeState = Schema.decodeUnknownEither(Schema.Struct({ state: GatewayState }))

/** The state the gateway for `home` reports now, asked with one more identify (C2 allows it), if it answers one. */
const gatewayState = (home: HomeUsed): Effect.Effect<Option.Option<GatewayState>> =>
  Effect.flatMap(GatewaySocket, (socket) => socket.exchange(identifyRequest, 512 * 1024)).pipe(
    Effect.map(({ reply }) => (reply.ok ? Either.getRight(decodeState(reply.result)) : Option.none())),
    Effect.map(Option.map(({ state }) => state)),
    Effect.orElseSucceed(() => Option.none<GatewayState>()),
    Effect.provide(GatewaySocketLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home.path }))))
  )

/** `not-ready`, told apart by the state the gateway reports (C8: a failed gateway is not one starting). */
const notReady: Readonly<Record<GatewayState, string>> = {
  starting: "The gateway is starting; try again in a moment.",
  draining: "The gateway is shutting down; if it does not come back, start it: systemctl --user start hermes-gateway",
  failed: "The gateway has failed; restart it: systemctl --user restart hermes-gateway",
  ready: "The gateway is ready but does not offer buddy its access (session-authority-v1): Hermes needs an update."
}

/** The lines that say where and why, for `reason` with the home `home`; none for the other reasons. */
export const diagnose = (
  reason: GatewayReason,
  home: HomeUsed,
  asker: Asker = thisProcess()
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const usedAs = (followed: string) => `The Hermes home is ${home.path} (${home.from})${followed}.`
    const used = usedAs("")
    if (reason === "not-ready") {
      return [used, ...Option.toArray(Option.map(yield* gatewayState(home), (state) => notReady[state]))]
    }
    if (
      reason !== "not-running" && reason !== "unsafe-home" && reason !== "unsafe-socket" && reason !== "unsafe-pointer"
    ) {
      return []
    }
    const real = yield* realpathOf(home.path)
    if (Option.isNone(real)) {
      return reason === "not-running"
        ? [used, `${home.path} does not exist: no gateway has run for this home.`, checkGateway]
        : [used, `${home.path} cannot be followed to a directory.`]
    }
    const homeStats = yield* lstatOf(real.value)
    const judging: Judging = {
      asker,
      accounts: yield* readAccounts(),
      homeOwner: Option.match(homeStats, { onNone: () => asker.uid, onSome: (stats) => stats.uid })
    }
    const followed = usedAs(real.value === home.path ? "" : `, which is ${real.value}`)
    if (reason === "unsafe-home") {
      return [
        followed,
        ...Option.match(homeStats, {
          onNone: () => [`${real.value} cannot be read.`],
          onSome: (stats) =>
            wrongWith(real.value, stats, judging, {
              kind: "a directory",
              forbidden: 0o022,
              // Hermes's home is not buddy's to chmod (C8): who opened it, and why, is the operator's to look at.
              fix: [`Hermes keeps its home closed to others; look at how it was opened (ls -ld ${real.value}).`]
            })
        })
      ]
    }
    const socket = nodePath.join(real.value, "gateway.sock")
    const pointer = nodePath.join(real.value, "gateway.sock.path")
    if (reason === "unsafe-socket") {
      return [
        followed,
        ...Option.match(yield* lstatOf(socket), {
          onNone: () => [`${socket} cannot be read.`],
          onSome: (stats) =>
            wrongWith(socket, stats, judging, { kind: "a socket", forbidden: 0o077, fix: [restartGateway] })
        })
      ]
    }
    if (reason === "unsafe-pointer") {
      const wrong = Option.match(yield* lstatOf(pointer), {
        onNone: () => [`${pointer} cannot be read.`],
        onSome: (stats) =>
          wrongWith(pointer, stats, judging, { kind: "a file", forbidden: 0o077, fix: [restartGateway] })
      })
      return [
        followed,
        ...(wrong.length > 0 ? wrong : [
          `${pointer} does not name a control socket in a directory of yours closed to others, as Hermes writes it.`,
          restartGateway
        ])
      ]
    }
    // not-running: the home is there, and no gateway answers in it.
    const where = Option.isSome(yield* lstatOf(socket))
      ? `${socket} is there, but no gateway listens on it.`
      : Option.isSome(yield* lstatOf(pointer))
      ? `${pointer} names a control socket no gateway listens on.`
      : `No gateway has said where it listens for this home (no ${socket}, no ${pointer}).`
    return [followed, where, checkGateway]
  })
