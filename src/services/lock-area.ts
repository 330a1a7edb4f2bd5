// Where the holder lock lives (D39): beside what it locks, in `<real Hermes home>/.buddy-lock/`. The
// home is C1's: our own directory, closed to writes by group and others, so no other account can
// create anything in it, and every process of the account finds the same place whatever its
// environment says (XDG_RUNTIME_DIR, /run/user, a private /tmp). The area is made 0700 and checked as
// C1 checks Hermes's socket directory.
import { Effect, Option } from "effect"
import { constants as fsConstants } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import { noDeadline } from "./deadline.js"
import { errnoOf } from "./errno.js"
import { configuredHome, privateRealHome } from "./gateway-path.js"
import type { GatewayError } from "./GatewayError.js"
import { type HolderBusy, type LockProblem, lockUnavailable } from "./HolderBusy.js"
import { type DirectoryUnsafe, privateDirectory } from "./private-directory.js"

/** The area's name in the home: a dot, as the home's other state is kept. */
export const areaName = ".buddy-lock"

const problemOf: Readonly<Record<DirectoryUnsafe["reason"], LockProblem>> = {
  link: "link",
  "not-directory": "not-directory",
  foreign: "foreign",
  open: "open",
  // The home went away between its check and the area's mkdir (a race no test can time).
  // Stryker disable next-line StringLiteral: reached only by that race
  "missing-parent": "system",
  unusable: "system"
}

/** The system's code, for the words: the mkdir's own, or ENOENT for a home that went away meanwhile. */
// Stryker disable next-line ConditionalExpression,StringLiteral: a home removed between its check and the area's mkdir is a race no test can time
const codeOf = (unsafe: DirectoryUnsafe) => (unsafe.reason === "missing-parent" ? "ENOENT" : unsafe.code)

const fromDirectory = (unsafe: DirectoryUnsafe): HolderBusy => {
  const code = codeOf(unsafe)
  return lockUnavailable(unsafe.path, problemOf[unsafe.reason], {
    ...(unsafe.found === undefined ? {} : { found: unsafe.found }),
    ...(code === undefined ? {} : { code })
  })
}

/**
 * The area for the configured home. A home that is missing or unsafe answers what C1 answers
 * (`not-running`, `unsafe-home`), so the operation is refused for what it is; an area that cannot be
 * buddy's answers `lock-unavailable`. No deadline: the gateway's exchanges have theirs, and these are
 * a handful of calls on the home's own filesystem, as the gateway walk makes without a wait of its own.
 */
export const lockArea = (override: string | undefined): Effect.Effect<string, HolderBusy | GatewayError> =>
  Effect.gen(function*() {
    const home = yield* privateRealHome(override, noDeadline)
    const area = nodePath.join(home, areaName)
    yield* privateDirectory(area).pipe(Effect.mapError(fromDirectory))
    return area
  })

/**
 * Whether anything is at `name` in the configured home's area, by one `lstat` of the path as
 * configured (a link in it leads where the real path leads): nothing there (ENOENT) means nobody
 * holds the lock, which a status read learns at a fifth of the look's cost, without C1's walk of the
 * home (D52). Anything else, a failure included, is for the look to judge.
 */
export const somethingAt = (
  override: string | undefined,
  name: string,
  lstat: (path: string) => Promise<unknown>
): Effect.Effect<boolean> =>
  Effect.flatMap(
    configuredHome(override),
    (home) =>
      Effect.promise(() =>
        lstat(nodePath.join(home, areaName, name)).then(
          () => true,
          (error: unknown) => errnoOf(error) !== "ENOENT"
        )
      )
  )

/** Where a take finds the area, or why the operation is refused before the lock is looked at. */
export type Area = Effect.Effect<string, HolderBusy | GatewayError>

/**
 * The area where it is, for a look that must change nothing (`buddy status`, D46): the real home's
 * `.buddy-lock`, made by nobody; none for a home that is missing or unsafe (status says that itself).
 */
export const areaIfThere = (override: string | undefined): Effect.Effect<Option.Option<string>> =>
  privateRealHome(override, noDeadline).pipe(Effect.map((home) => nodePath.join(home, areaName)), Effect.option)

/** A sign-in's holder found alive: this process or another, with its process id when it could be read. */
export interface Holding {
  readonly pid: Option.Option<number>
}

/** A system's lock for a layer's life (Linux: ./lock-rename.ts; macOS, BSD: ./lock-exlock.ts). */
export interface AreaLock {
  /** The name in the area a holder leaves: where nothing has it, nobody holds the lock (D52). */
  readonly holderName: string
  /** Takes the lock in the area; already ours, nothing happens (not even a look at the area). */
  readonly take: (area: Area) => Effect.Effect<void, HolderBusy | GatewayError>
  readonly release: Effect.Effect<void>
  /**
   * Who holds the lock, looked at without taking it, clearing it or making anything: ours, a live
   * holder's, or none (nobody, a stale holder, anything in the way, an area that is not there).
   */
  readonly holder: (area: Effect.Effect<Option.Option<string>>) => Effect.Effect<Option.Option<Holding>>
}

/** Reads up to this many bytes of a holder's process id: ten digits and a newline fit. */
const pidLimit = 32

/** A file as the lock uses it. */
export type LockFile = Pick<FileHandle, "read" | "stat" | "truncate" | "write" | "close">

/** How a lock file is opened: Node's own `open`, or (in tests) a stand-in playing another system's. */
export type OpenFile = (path: string, flags: number, mode?: number) => Promise<LockFile>

/** A read that neither follows a link nor waits (a FIFO put there answers at once). */
const readOnly = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK

/**
 * The process id a holder wrote at `file`, read bounded, digits only; a file that is missing,
 * unreadable or says anything else names no holder. `open` and `flags`: another system's.
 */
export const holderAt = (
  file: string,
  open: OpenFile = fsp.open,
  flags: number = readOnly
): Effect.Effect<Option.Option<number>> =>
  Effect.acquireUseRelease(
    Effect.tryPromise(() => open(file, flags)),
    (handle) =>
      Effect.tryPromise(() => handle.read(Buffer.alloc(pidLimit), 0, pidLimit, 0)).pipe(
        Effect.map(({ buffer, bytesRead }) => {
          const text = buffer.subarray(0, bytesRead).toString().trim()
          return /^[1-9][0-9]{0,9}$/.test(text) ? Option.some(Number(text)) : Option.none<number>()
        })
      ),
    (handle) => Effect.ignore(Effect.tryPromise(() => handle.close()))
  ).pipe(Effect.orElseSucceed(() => Option.none<number>()))
