// C1: where the control socket is, and every rule a path must pass before anything is sent.
// Each refusal is its own closed reason; nothing here follows a link it was not told to follow.
import { Config, Effect, Either, Option } from "effect"
import { createHash } from "node:crypto"
import { constants as fsConstants, type Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import type { GatewayReason } from "../schema/reasons.js"
import { decodeUtf8 } from "../schema/utf8.js"
import { awaitBefore, type Deadline } from "./deadline.js"
import { errnoOf } from "./errno.js"
import { type GatewayError, gatewayError } from "./GatewayError.js"

/** Where to dial, and the real home whose profile the tickets are for. */
export interface Located {
  readonly home: string
  readonly socket: string
}

/** The pointer file is read up to this many bytes; one more byte proves it is too long (C1.3). */
export const pointerLimit = 4096

/** What a wait that passed the exchange's deadline fails with: the code a stalled network filesystem gives too. */
const timedOut = "ETIMEDOUT"

/**
 * A filesystem call whose failure is its errno code, to be mapped to a closed reason by the caller
 * (`failedAs`); waited for no longer than the exchange's deadline, which path checks are part of (C2).
 */
const fsCall = <A>(deadline: Deadline, run: () => Promise<A>) => awaitBefore(deadline, run, errnoOf, () => timedOut)

/** The closed reason for a failed fs call: a timeout wherever it happens, `missing` for ENOENT, else `otherwise`. */
const failedAs = (otherwise: GatewayReason, missing: GatewayReason = otherwise) => (code: string) =>
  gatewayError(code === timedOut ? "timeout" : code === "ENOENT" ? missing : otherwise)

// Stryker disable next-line OptionalChaining,UnaryOperator: Linux always has getuid; the fallback (no uid owns anything) is for the type
const uid = () => process.getuid?.() ?? -1

/** Owned by us and without the given mode bits. */
const ownedWithout = (stats: Stats, forbidden: number) => stats.uid === uid() && (stats.mode & forbidden) === 0

const refuse = (reason: GatewayReason) => Effect.fail(gatewayError(reason))

/** `<hash>` of C1.3: first 16 hex chars of SHA-256 over the UTF-8 bytes of the real home path (a string's default encoding). */
export const homeHash = (realHome: string) => createHash("sha256").update(realHome).digest("hex").slice(0, 16)

/** The user's home: `$HOME` as the environment gives it, else what the OS account says. */
const userHome = Config.option(Config.nonEmptyString("HOME")).pipe(
  Effect.map(Option.getOrElse(() => os.homedir())),
  // As for HERMES_HOME below: an absent or empty HOME is already none, and the environment does not fail.
  // Stryker disable next-line ArrowFunction: not observable with the environment, for that reason
  Effect.orElseSucceed(() => os.homedir())
)

/** C1.1: `--home`/config, else `HERMES_HOME`, else `~/.hermes`. */
export const configuredHome = (override: string | undefined) =>
  override !== undefined && override !== ""
    ? Effect.succeed(override)
    : Config.option(Config.nonEmptyString("HERMES_HOME")).pipe(
      // Config.option already gives none for an absent or empty HERMES_HOME, and reading the
      // environment does not fail; this is for a ConfigProvider that would.
      // Stryker disable next-line ArrowFunction: not observable with the environment, for that reason
      Effect.orElseSucceed(() => Option.none<string>()),
      Effect.flatMap(Option.match({
        onSome: Effect.succeed,
        onNone: () => Effect.map(userHome, (home) => nodePath.join(home, ".hermes"))
      }))
    )

/** C1.1: the real home must be our directory and not writable by group or others. */
const privateHome = (stats: Stats) => stats.isDirectory() && ownedWithout(stats, 0o022)

/** An lstat that does not fail: the stats, or the errno code of why not. */
const lstatOrCode = (path: string): Promise<Stats | string> => fsp.lstat(path).then((stats) => stats, errnoOf)

/** C1.2: a socket, ours, with no access for anyone else. */
const checkSocket = (stats: Stats) =>
  stats.isSocket() && ownedWithout(stats, 0o077) ? Effect.void : refuse("unsafe-socket")

/** The socket the pointer names: missing means the gateway is gone; anything else must pass C1.2. */
const pointedSocket = (socket: string, deadline: Deadline) =>
  fsCall(deadline, () => fsp.lstat(socket)).pipe(
    Effect.mapError(failedAs("unsafe-socket", "not-running")),
    Effect.flatMap(checkSocket),
    Effect.as(socket)
  )

/** Reads the pointer file without following a link, bounded, as strict UTF-8. */
const readPointer = (file: string, deadline: Deadline): Effect.Effect<string, GatewayError> =>
  Effect.acquireUseRelease(
    fsCall(
      deadline,
      () => fsp.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK)
    ).pipe(
      // No pointer either: no gateway has said where it listens (C1.4).
      Effect.mapError(failedAs("unsafe-pointer", "not-running"))
    ),
    (handle) =>
      Effect.gen(function*() {
        const stats = yield* fsCall(deadline, () => handle.stat())
        if (!stats.isFile() || !ownedWithout(stats, 0o077)) return yield* refuse("unsafe-pointer")
        const buffer = Buffer.alloc(pointerLimit + 1)
        const { bytesRead } = yield* fsCall(deadline, () => handle.read(buffer, 0, buffer.length, 0))
        if (bytesRead > pointerLimit) return yield* refuse("unsafe-pointer")
        // A byte-order mark survives decoding but not the trim below, as older Hermes read it.
        return yield* Either.mapLeft(decodeUtf8(buffer.subarray(0, bytesRead)), () => gatewayError("unsafe-pointer"))
      }).pipe(
        // Every errno of stat and read is unsafe-pointer, as the refusals are; a wait past the deadline is a timeout.
        // Stryker disable next-line ConditionalExpression,StringLiteral: the refusals here are unsafe-pointer too, and stat and read of a file we hold open do not fail
        Effect.mapError((error) => (typeof error === "string" ? failedAs("unsafe-pointer")(error) : error))
      ),
    // The pointer has been read (or refused) by now, and the descriptor is released even when
    // close reports a failure (EIO from a network filesystem): nothing is lost by ignoring it, and
    // a defect here would end a status read that is documented never to fail.
    (handle) => Effect.ignore(Effect.tryPromise(() => handle.close()))
  )

/**
 * C1.3: the pointer must name exactly `hermes-gw-<hash of this home>/control.sock`, in a real
 * directory that is ours and closed to others.
 */
const followPointer = (home: string, text: string, deadline: Deadline) =>
  Effect.gen(function*() {
    const target = text.trim()
    const directory = nodePath.dirname(target)
    const wellFormed = nodePath.isAbsolute(target) &&
      nodePath.normalize(target) === target &&
      nodePath.basename(target) === "control.sock" &&
      nodePath.basename(directory) === `hermes-gw-${homeHash(home)}`
    if (!wellFormed) return yield* refuse("unsafe-pointer")
    const stats = yield* fsCall(deadline, () => fsp.lstat(directory)).pipe(
      Effect.mapError(failedAs("unsafe-pointer", "not-running"))
    )
    if (!stats.isDirectory() || !ownedWithout(stats, 0o077)) return yield* refuse("unsafe-pointer")
    return yield* pointedSocket(target, deadline)
  })

/**
 * C1.2–C1.4 for a real home, given what lstat said of `<home>/gateway.sock`: that socket if it
 * exists (no fallback if it is unsafe), else the pointer.
 */
const socketOf = (home: string, direct: Stats | string, deadline: Deadline): Effect.Effect<string, GatewayError> =>
  typeof direct !== "string"
    ? Effect.as(checkSocket(direct), nodePath.join(home, "gateway.sock"))
    : direct !== "ENOENT"
    ? Effect.fail(failedAs("unsafe-socket")(direct))
    : readPointer(nodePath.join(home, "gateway.sock.path"), deadline).pipe(
      Effect.flatMap((text) => followPointer(home, text, deadline))
    )

/** C1.1: the configured home's real path; no home at all means no gateway has ever run here: not running. */
const realHome = (override: string | undefined, deadline: Deadline) =>
  configuredHome(override).pipe(
    Effect.flatMap((home) => fsCall(deadline, () => fsp.realpath(home))),
    Effect.mapError(failedAs("unsafe-home", "not-running"))
  )

/**
 * C1.1 alone, for what buddy keeps beside Hermes's home (the holder lock, D39): the real home if it
 * is our private directory, refused with exactly the reason `locate` would give.
 */
export const privateRealHome = (
  override: string | undefined,
  deadline: Deadline
): Effect.Effect<string, GatewayError> =>
  Effect.flatMap(realHome(override, deadline), (home) =>
    fsCall(deadline, () => fsp.lstat(home)).pipe(
      Effect.mapError(failedAs("unsafe-home", "not-running")),
      Effect.flatMap((stats) => (privateHome(stats) ? Effect.succeed(home) : refuse("unsafe-home")))
    ))

/**
 * What the walk found wrong with the home itself, for the words a Launchpad's logger gets (D50): a
 * home that does not exist (C1.4 reads it as not running, D5) or that is no directory (unsafe-home).
 * The wire keeps the closed reason; this only tells a typo in `hermesHome` from a stopped gateway.
 */
export type HomeFinding = "missing" | "not-a-directory"

/** Told what the walk found wrong with the home; the default hears nothing. */
export type HomeMet = (finding: HomeFinding) => Effect.Effect<void>

const unheard: HomeMet = () => Effect.void

/** The home's finding for the errno of its real path: ENOENT missing, ENOTDIR a part that is no directory. */
const findingOf = (code: string): HomeFinding | undefined =>
  code === "ENOENT" ? "missing" : code === "ENOTDIR" ? "not-a-directory" : undefined

/** `met` told of the finding `code` makes, if any, then the failure C1 gives for it. */
const failedHome = (met: HomeMet) => (code: string) => {
  const finding = findingOf(code)
  return Effect.zipRight(
    finding === undefined ? Effect.void : met(finding),
    Effect.fail(failedAs("unsafe-home", "not-running")(code))
  )
}

/** What lstat said of the home and of its direct socket, checked as C1.1–C1.4 say. */
const checkedAt = (
  home: string,
  [stats, direct]: readonly [Stats | string, Stats | string],
  deadline: Deadline,
  met: HomeMet
) =>
  typeof stats === "string"
    ? failedHome(met)(stats)
    : privateHome(stats)
    ? Effect.map(socketOf(home, direct, deadline), (socket) => ({ home, socket }))
    : Effect.zipRight(stats.isDirectory() ? Effect.void : met("not-a-directory"), refuse("unsafe-home"))

/** The home's and its direct socket's lstat, in one wait. */
const lookAt = (home: string) => Promise.all([lstatOrCode(home), lstatOrCode(nodePath.join(home, "gateway.sock"))])

/**
 * The whole of C1: the real home and the socket to dial, or the closed reason why not. A symlinked
 * home is followed (its real path is the home). The home's real path and what is at the configured path are asked
 * for in one wait: when the configured path is already the real one (the usual case), that is the
 * home and its socket looked at, and the walk is one wait instead of two (D47); otherwise the real
 * path is looked at in a second wait (D25.7). The home's verdict comes first.
 */
export const locate = (
  override: string | undefined,
  deadline: Deadline,
  met: HomeMet = unheard
): Effect.Effect<Located, GatewayError> =>
  configuredHome(override).pipe(
    Effect.flatMap((configured) =>
      fsCall(deadline, () => Promise.all([fsp.realpath(configured), lookAt(configured)])).pipe(
        Effect.catchAll(failedHome(met)),
        Effect.flatMap(([home, looked]) =>
          home === configured
            ? checkedAt(home, looked, deadline, met)
            : fsCall(deadline, () => lookAt(home)).pipe(
              // lookAt answers every errno as a value: only the deadline can fail this wait.
              Effect.mapError(() => gatewayError("timeout")),
              Effect.flatMap((again) => checkedAt(home, again, deadline, met))
            )
        )
      )
    )
  )
