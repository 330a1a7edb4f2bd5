// Where `buddy serve` listens by default (C6 "Who may reach it"; docs/decisions.md D22): an
// owner-only Unix socket in a 0700 directory of buddy's own, checked with the rules C1 applies to
// Hermes's socket (no link, ours, closed to others), never in Hermes's home. The directory is the
// guard, as with OpenSSH's agent: another account cannot even reach the name, so the moment between
// the socket's creation and its chmod to 0600 is closed to it.
import { Data, Effect, Option } from "effect"
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as net from "node:net"
import * as nodePath from "node:path"
import { errnoOf } from "../services/errno.js"
import {
  type DirectoryUnsafe,
  ownUid as uid,
  privateDirectory,
  runtimeDirectory
} from "../services/private-directory.js"

/** Why the socket cannot be placed where asked: each a closed reason, said in words by `placeWords`. */
export class SocketPlaceUnsafe extends Data.TaggedError("SocketPlaceUnsafe")<{
  readonly reason:
    | "directory-missing"
    | "directory-link"
    | "directory-not-directory"
    | "directory-foreign"
    | "directory-open"
    | "socket-not-socket"
    | "socket-foreign"
    | "socket-in-use"
    | "too-long"
    | "unusable"
  /** The path the reason is about (the directory or the socket). */
  readonly path: string
  /** The owner's uid, or the mode found, where the reason is about one. */
  readonly found?: number
  /** The system's own code, for `unusable`. */
  readonly code?: string
}> {}

/** The longest path a Unix socket may have on Linux (`sun_path` is 108 bytes with its NUL). */
export const socketPathLimit = 107

/** The socket's name inside buddy's runtime directory. */
export const socketName = "serve.sock"

const fsCall = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: errnoOf })

/** The socket's default place: `serve.sock` in buddy's runtime directory. */
export const defaultSocketPath = (env: NodeJS.ProcessEnv = process.env): string =>
  nodePath.join(runtimeDirectory(env), socketName)

const unsafe = (reason: SocketPlaceUnsafe["reason"], path: string, found?: number) =>
  new SocketPlaceUnsafe({ reason, path, ...(found === undefined ? {} : { found }) })

const unusable = (path: string) => (code: string) => new SocketPlaceUnsafe({ reason: "unusable", path, code })

const directoryReasons = {
  "missing-parent": "directory-missing",
  link: "directory-link",
  "not-directory": "directory-not-directory",
  foreign: "directory-foreign",
  open: "directory-open",
  unusable: "unusable"
} as const satisfies Record<DirectoryUnsafe["reason"], SocketPlaceUnsafe["reason"]>

/** The directory made or checked (C1's rules), its refusal said as the socket's. */
const directoryReady = (directory: string) =>
  privateDirectory(directory).pipe(
    Effect.mapError(({ code, found, path, reason }) =>
      new SocketPlaceUnsafe({
        reason: directoryReasons[reason],
        path,
        ...(found === undefined ? {} : { found }),
        ...(code === undefined ? {} : { code })
      })
    )
  )

/** Whether something answers on the socket: a live server is never replaced, a dead one is. */
const answers = (path: string) =>
  Effect.async<boolean>((resume) => {
    const probe = net.connect(path)
    probe.once("connect", () => {
      probe.destroy()
      resume(Effect.succeed(true))
    })
    probe.once("error", () => resume(Effect.succeed(false)))
    return Effect.sync(() => probe.destroy())
  })

/** What is at the socket's path: nothing, or a stale socket of ours (removed); anything else refused. */
const pathFree = (path: string) =>
  Effect.gen(function*() {
    const found = yield* fsCall(() => fsp.lstat(path)).pipe(
      Effect.map(Option.some),
      Effect.catchIf((code) => code === "ENOENT", () => Effect.succeed(Option.none<Stats>())),
      Effect.mapError(unusable(path))
    )
    if (Option.isNone(found)) return
    const stats = found.value
    if (!stats.isSocket()) return yield* Effect.fail(unsafe("socket-not-socket", path))
    if (stats.uid !== uid()) return yield* Effect.fail(unsafe("socket-foreign", path, stats.uid))
    if (yield* answers(path)) return yield* Effect.fail(unsafe("socket-in-use", path))
    yield* fsCall(() => fsp.unlink(path)).pipe(
      Effect.catchIf((code) => code === "ENOENT", () => Effect.void),
      Effect.mapError(unusable(path))
    )
  })

/**
 * Makes the place for the socket at `path` ready to listen on: its directory ours and closed, the
 * name free. Returns the absolute path.
 */
export const prepareSocket = (path: string): Effect.Effect<string, SocketPlaceUnsafe> =>
  Effect.gen(function*() {
    const socket = nodePath.resolve(path)
    if (Buffer.byteLength(socket) > socketPathLimit) return yield* Effect.fail(unsafe("too-long", socket))
    yield* directoryReady(nodePath.dirname(socket))
    yield* pathFree(socket)
    return socket
  })

/**
 * After listening: the socket 0600 and still ours, or the server must not run. The directory kept
 * everyone else away until now; the mode keeps them away should it ever be opened.
 */
export const restrictSocket = (path: string): Effect.Effect<void, SocketPlaceUnsafe> =>
  Effect.gen(function*() {
    yield* fsCall(() => fsp.chmod(path, 0o600)).pipe(Effect.mapError(unusable(path)))
    const stats = yield* fsCall(() => fsp.lstat(path)).pipe(Effect.mapError(unusable(path)))
    if (!stats.isSocket()) return yield* Effect.fail(unsafe("socket-not-socket", path))
    if (stats.uid !== uid()) return yield* Effect.fail(unsafe("socket-foreign", path, stats.uid))
  })

const octal = (mode: number) => `0${mode.toString(8).padStart(3, "0")}`

/** Each reason in words: the path, what is wrong with it, and the command that fixes it (C8). */
export const placeWords = (error: SocketPlaceUnsafe, accountName: (uid: number) => string): string => {
  const { path } = error
  const owner = error.found === undefined ? "another account" : accountName(error.found)
  const prefix = "buddy serve:"
  switch (error.reason) {
    case "directory-missing":
      return `${prefix} ${path} does not exist; create it (mkdir -p ${path}) or choose another --socket.`
    case "directory-link":
      return `${prefix} the socket's directory ${path} is a symbolic link; buddy does not follow one. ` +
        `Choose a real directory with --socket.`
    case "directory-not-directory":
      return `${prefix} the socket's directory ${path} is not a directory; choose another --socket.`
    case "directory-foreign":
      return `${prefix} the socket's directory ${path} belongs to ${owner}, not to you; ` +
        `remove it (rm -r ${path}) or choose another --socket.`
    case "directory-open":
      return `${prefix} the socket's directory ${path} has mode ${
        octal(error.found ?? 0)
      }: others may enter it; run chmod 700 ${path}.`
    case "socket-not-socket":
      return `${prefix} ${path} exists and is not a socket; buddy replaces only a socket of its own. ` +
        `Remove it or choose another --socket.`
    case "socket-foreign":
      return `${prefix} the socket ${path} belongs to ${owner}, not to you; remove it or choose another --socket.`
    case "socket-in-use":
      return `${prefix} another server is listening on ${path} (another buddy serve?); ` +
        `stop it or choose another --socket.`
    case "too-long":
      return `${prefix} the socket path ${path} is longer than ${socketPathLimit} bytes, ` +
        `the most a Unix socket may have; choose a shorter --socket.`
    case "unusable":
      return `${prefix} ${path} cannot be used for the socket (${error.code ?? "EUNKNOWN"}).`
  }
}
