// The holder lock on macOS and the BSDs (D39): `open(2)` with O_EXLOCK takes an flock(2) on the file
// as it opens it, in one call, with no process run; O_NONBLOCK makes a held lock fail EAGAIN
// instead of waiting. The lock belongs to the open file, so it goes when the file is closed or the
// process dies however it dies. Node's `fs.constants` has no O_EXLOCK; libuv passes the flags to
// the system as they are, so its value (0x20 on darwin and the BSDs) is given here. This machine
// runs Linux: the tests play this system by injection (test/services/holder-lock-exlock.test.ts).
import { Effect, Option, Ref } from "effect"
import type { Scope } from "effect"
import * as nodePath from "node:path"
import { errnoOf, fsCall } from "./errno.js"
import { heldBy, lockUnavailable } from "./HolderBusy.js"
import { type Area, type AreaLock, holderAt, type Holding, type LockFile, type OpenFile } from "./lock-area.js"
import { ownUid } from "./private-directory.js"

/** The lock file's name in the area. */
export const lockFileName = "holder.lock"

/** The open flags the lock needs, as the system numbers them. */
export interface ExlockConstants {
  readonly O_RDONLY: number
  readonly O_RDWR: number
  readonly O_CREAT: number
  readonly O_NOFOLLOW: number
  readonly O_NONBLOCK: number
  readonly O_EXLOCK: number
}

/** O_EXLOCK in darwin's, FreeBSD's, OpenBSD's and NetBSD's <fcntl.h>. */
export const O_EXLOCK = 0x20

const closeFile = (file: LockFile) => Effect.ignore(Effect.tryPromise(() => file.close()))

/** The lock file must be a regular file of ours, closed to others, with no other name: checked before a byte is written. */
const checkFile = (path: string, file: LockFile) =>
  Effect.flatMap(
    Effect.tryPromise({
      try: () => file.stat(),
      // Stryker disable next-line ArrowFunction,StringLiteral,ObjectLiteral: fstat of a file we hold open does not fail; the refusal is for the type
      catch: (error) => lockUnavailable(path, "system", { code: errnoOf(error) })
    }),
    (stats) =>
      !stats.isFile()
        ? Effect.fail(lockUnavailable(path, "not-file"))
        : stats.uid !== ownUid()
        ? Effect.fail(lockUnavailable(path, "foreign", { found: stats.uid }))
        : (stats.mode & 0o077) !== 0
        ? Effect.fail(lockUnavailable(path, "open", { found: stats.mode & 0o777 }))
        : stats.nlink !== 1
        ? Effect.fail(lockUnavailable(path, "hard-link", { found: stats.nlink }))
        : Effect.void
  )

/**
 * Whether a process lives: `kill(pid, 0)` answers, or refuses with EPERM (it lives, another
 * account's). `kill` is the system's; a test gives its own refusals.
 */
export const isAlive = (
  pid: number,
  kill: (pid: number, signal: number) => unknown = process.kill.bind(process)
): Effect.Effect<boolean> =>
  Effect.try(() => kill(pid, 0)).pipe(
    Effect.as(true),
    Effect.catchAll((error) => Effect.succeed(errnoOf(error.error) === "EPERM"))
  )

/**
 * The lock for a layer's life, on a system with O_EXLOCK: `open` and `constants` are the system's,
 * `alive` how it tells a process lives.
 */
export const exlockLock = (
  open: OpenFile,
  constants: ExlockConstants,
  alive: (pid: number) => Effect.Effect<boolean> = isAlive
): Effect.Effect<AreaLock, never, Scope.Scope> =>
  Effect.gen(function*() {
    /** The open lock file while the lock is ours: closing it lets the lock go. */
    const held = yield* Ref.make(Option.none<LockFile>())
    const flags = constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK |
      constants.O_EXLOCK

    /** Opening it failed: held elsewhere (its holder's pid read by an open that takes no lock), or in the way. */
    const refused = (path: string) => (code: string) =>
      code === "EAGAIN" || code === "EWOULDBLOCK"
        ? Effect.flatMap(
          holderAt(path, open, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK),
          (holder) => Effect.fail(heldBy(holder))
        )
        : Effect.fail(lockUnavailable(path, code === "ELOOP" ? "link" : "system", code === "ELOOP" ? {} : { code }))

    const take = (area: Area) =>
      Effect.gen(function*() {
        if (Option.isSome(yield* Ref.get(held))) return
        const path = nodePath.join(yield* area, lockFileName)
        const file = yield* fsCall(() => open(path, flags, 0o600)).pipe(
          Effect.catchAll(refused(path))
        )
        yield* checkFile(path, file).pipe(Effect.tapError(() => closeFile(file)))
        // The pid is for the words of whoever finds the lock held; a failed write leaves the lock ours all the same.
        yield* Effect.ignore(Effect.tryPromise(async () => {
          await file.truncate(0)
          await file.write(`${process.pid}\n`, 0)
        }))
        yield* Ref.set(held, Option.some(file))
      })

    // The pid goes before the lock: a look (`holder`) reads the file without locking it (a lock of its
    // own, even shared, could refuse a take meanwhile), so a file naming nobody says nobody holds it.
    const release = Effect.flatMap(
      Ref.getAndSet(held, Option.none()),
      Option.match({
        onNone: () => Effect.void,
        onSome: (file) => Effect.zipRight(Effect.ignore(Effect.tryPromise(() => file.truncate(0))), closeFile(file))
      })
    )

    /**
     * Who holds it, without a lock of this look's own: ours; else the process the file names, if it
     * lives (a holder killed outright leaves its pid; its lock went with it). A pid the system gave
     * again to another process meanwhile reads as a holder: the one thing a look without a lock cannot tell.
     */
    const holder = (area: Effect.Effect<Option.Option<string>>) =>
      Effect.flatMap(Ref.get(held), (ours) =>
        Option.isSome(ours)
          ? Effect.succeedSome<Holding>({ pid: Option.some(process.pid) })
          : Effect.flatMap(
            area,
            Option.match({
              onNone: () => Effect.succeedNone,
              onSome: (place) =>
                holderAt(
                  nodePath.join(place, lockFileName),
                  open,
                  constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
                ).pipe(
                  Effect.flatMap(Option.match({
                    onNone: () => Effect.succeedNone,
                    onSome: (pid) =>
                      Effect.map(alive(pid), (lives) =>
                        lives ? Option.some<Holding>({ pid: Option.some(pid) }) : Option.none())
                  }))
                )
            })
          ))

    yield* Effect.addFinalizer(() =>
      release
    )
    return { holderName: lockFileName, take, release, holder }
  })
