// Where `buddy serve` listens (C6 "Who may reach it"; docs/decisions.md D22, D40): a Unix socket in
// a directory of buddy's own, both with the modes ./who-may-reach.ts decides (this account alone,
// or also one named group), checked with the rules C1 applies to Hermes's socket (no link, ours,
// closed to others). The directory is the guard, as with OpenSSH's agent: another account cannot
// even reach the name, so the moment between the socket's creation and its chmod is closed to it.
import { Effect, Option } from "effect"
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as net from "node:net"
import * as nodePath from "node:path"
import { fsCall } from "../services/errno.js"
import { ownUid as uid } from "../services/private-directory.js"
import { socketPathLimit } from "./place-words.js"
import { SocketPlaceUnsafe } from "./socket-place-unsafe.js"
import { wayClear } from "./socket-way.js"
import { directoryFits, modesOf, type Sharing } from "./who-may-reach.js"

export { SocketPlaceUnsafe }

const unsafe = (reason: SocketPlaceUnsafe["reason"], path: string, found?: number) =>
  new SocketPlaceUnsafe({ reason, path, ...(found === undefined ? {} : { found }) })

const unusable = (path: string) => (code: string) => new SocketPlaceUnsafe({ reason: "unusable", path, code })

/** The group given to a path of ours: only a member (or root) may, so EPERM says it is not one. */
const giveGroup = (path: string, gid: number) =>
  fsCall(() => fsp.chown(path, -1, gid)).pipe(
    Effect.mapError((code) => (code === "EPERM" ? unsafe("not-member", path, gid) : unusable(path)(code)))
  )

/** What is at a path, without following a link, or nothing. */
const lstatOf = (path: string) =>
  fsCall(() => fsp.lstat(path)).pipe(
    Effect.map(Option.some),
    // Stryker disable next-line ConditionalExpression: a name in a directory just found ours and 0700, on a path already bounded (too-long): ENOENT is the only way its lstat fails
    Effect.catchIf((code) => code === "ENOENT", () => Effect.succeed(Option.none<Stats>())),
    Effect.mapError(unusable(path))
  )

/** Why the socket's directory could not be made, from mkdir's code. */
const notMade = (directory: string) => (code: string): SocketPlaceUnsafe => {
  // Stryker disable next-line ConditionalExpression,StringLiteral: the way's check found the parent a moment ago; only its removal since meets this
  if (code === "ENOENT") return unsafe("directory-missing", nodePath.dirname(directory))
  // An account may not write where root made the parent (EACCES); nobody may in an immutable one (EPERM).
  if (code === "EACCES" || code === "EPERM") {
    return new SocketPlaceUnsafe({ reason: "directory-uncreatable", path: directory, code })
  }
  return unusable(directory)(code)
}

/**
 * The directory, made if it is missing (only its last part: a parent that is missing is a mistake
 * to say, not to paper over), or found and checked; then given the sharing's group and mode. A
 * directory found wider than the sharing allows is refused, never narrowed.
 */
const directoryReady = (directory: string, sharing: Sharing) =>
  Effect.gen(function*() {
    // Made 0700 whatever the sharing: the group and its mode follow once the directory is known ours.
    // Stryker disable next-line ObjectLiteral: the chmod that follows sets the mode; this one only keeps the moment before it closed
    const made = yield* fsCall(() => fsp.mkdir(directory, { mode: 0o700 })).pipe(
      Effect.as(true),
      Effect.catchIf((code) => code === "EEXIST", () => Effect.succeed(false)),
      Effect.mapError(notMade(directory))
    )
    const found = yield* fsCall(() => fsp.lstat(directory)).pipe(Effect.mapError(unusable(directory)))
    if (found.isSymbolicLink()) return yield* Effect.fail(unsafe("directory-link", directory))
    if (!found.isDirectory()) return yield* Effect.fail(unsafe("directory-not-directory", directory))
    if (found.uid !== uid()) return yield* Effect.fail(unsafe("directory-foreign", directory, found.uid))
    if (!made && !directoryFits(sharing, found)) {
      return yield* Effect.fail(unsafe("directory-open", directory, found.mode & 0o777))
    }
    if (sharing._tag === "Group") yield* giveGroup(directory, sharing.gid)
    // The umask may have taken bits away from a directory made here (0500 would keep us out).
    if (made || sharing._tag === "Group") {
      yield* fsCall(() => fsp.chmod(directory, modesOf(sharing).directory)).pipe(Effect.mapError(unusable(directory)))
    }
  })

/** Whether something answers on the socket: a live server is never replaced, a dead one is. */
const answers = (path: string) =>
  Effect.async<boolean>((resume) => {
    const probe = net.connect(path)
    probe.once("connect", () => {
      probe.destroy()
      resume(Effect.succeed(true))
    })
    probe.once("error", () => resume(Effect.succeed(false)))
    // Stryker disable next-line ArrowFunction: only an interruption runs it, and a probe of a Unix socket connects or fails at once
    return Effect.sync(() => probe.destroy())
  })

/** What is at the socket's path: nothing, or a stale socket of ours (removed); anything else refused. */
const pathFree = (path: string) =>
  Effect.gen(function*() {
    const found = yield* lstatOf(path)
    if (Option.isNone(found)) return
    const stats = found.value
    if (!stats.isSocket()) return yield* Effect.fail(unsafe("socket-not-socket", path))
    if (stats.uid !== uid()) return yield* Effect.fail(unsafe("socket-foreign", path, stats.uid))
    if (yield* answers(path)) return yield* Effect.fail(unsafe("socket-in-use", path))
    yield* fsCall(() => fsp.unlink(path)).pipe(
      // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral,ArrowFunction: only another process removing the stale socket between its lstat and this unlink meets it
      Effect.catchIf((code) => code === "ENOENT", () => Effect.void),
      Effect.mapError(unusable(path))
    )
  })

/**
 * Makes the place for the socket at `path` ready to listen on: its directory ours, with the
 * sharing's group and mode, the name free. Returns the absolute path.
 */
export const prepareSocket = (path: string, sharing: Sharing): Effect.Effect<string, SocketPlaceUnsafe> =>
  Effect.gen(function*() {
    const socket = nodePath.resolve(path)
    if (Buffer.byteLength(socket) > socketPathLimit) return yield* Effect.fail(unsafe("too-long", socket))
    // The way first: nothing is made in a place another account could swap.
    yield* wayClear(nodePath.dirname(nodePath.dirname(socket)), sharing)
    yield* directoryReady(nodePath.dirname(socket), sharing)
    yield* pathFree(socket)
    return socket
  })

/**
 * The socket as it must be: a socket, of `owners`, that nobody the sharing does not name may
 * connect to. Connecting takes write permission on a socket (Linux, unix(7)), so its write bits
 * decide; `systemd-socket-activate` makes its socket 0644, which only its owner can connect to.
 */
const socketFits = (path: string, sharing: Sharing, owners: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const stats = yield* fsCall(() => fsp.lstat(path)).pipe(Effect.mapError(unusable(path)))
    if (!stats.isSocket()) return yield* Effect.fail(unsafe("socket-not-socket", path))
    if (!owners.includes(stats.uid)) return yield* Effect.fail(unsafe("socket-foreign", path, stats.uid))
    // Stryker disable next-line ConditionalExpression: with the owner alone there is no gid to compare (undefined equals no gid): the tag is for the type
    const groupMayConnect = sharing._tag === "Group" && stats.gid === sharing.gid
    if ((stats.mode & (groupMayConnect ? 0o002 : 0o022)) !== 0) {
      return yield* Effect.fail(unsafe("socket-open", path, stats.mode & 0o777))
    }
  })

/**
 * After listening: the socket given the sharing's group and mode, and still ours, or the server
 * must not run. The directory kept everyone else away until now; the mode keeps them away should
 * it ever be opened.
 */
export const restrictSocket = (path: string, sharing: Sharing): Effect.Effect<void, SocketPlaceUnsafe> =>
  Effect.gen(function*() {
    if (sharing._tag === "Group") yield* giveGroup(path, sharing.gid)
    yield* fsCall(() => fsp.chmod(path, modesOf(sharing).socket)).pipe(Effect.mapError(unusable(path)))
    yield* socketFits(path, sharing, [uid()])
  })

/**
 * A socket a service manager made and handed over (`LISTEN_FDS`): it is not ours to chmod, but it
 * must be a socket of ours or root's (systemd makes it as root unless told otherwise), open to
 * nobody the sharing does not name.
 */
export const checkHandedSocket = (path: string, sharing: Sharing): Effect.Effect<void, SocketPlaceUnsafe> =>
  Effect.zipRight(wayClear(nodePath.dirname(path), sharing), socketFits(path, sharing, [uid(), 0]))
