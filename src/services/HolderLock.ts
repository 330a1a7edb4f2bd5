// HolderLock (C4.1 across processes; docs/decisions.md D23): one holder of a sign-in per Hermes
// home on the whole machine. A process that holds or is starting a sign-in holds an exclusive
// flock(2) on `holder-<hash of the real home>.lock` in buddy's own 0700 runtime directory. The
// kernel releases it when its holder dies; no other account can reach the file to take or squat
// it; the file holds the holder's process id and nothing else.
//
// Node has no flock, so util-linux's flock(1) takes it on our own open file description, passed as
// the child's fd 3: the lock belongs to the description, not to the child, so it stays ours after
// the child exits and goes when we close the file or die.
import { Context, Data, Effect, Layer, Option, Ref } from "effect"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { constants as fsConstants } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import { BuddyConfig } from "./BuddyConfig.js"
import { errnoOf } from "./errno.js"
import { configuredHome } from "./gateway-path.js"
import { ownUid, privateDirectory, runtimeDirectory } from "./private-directory.js"

/** Another process holds the sign-in for this Hermes home, or the lock cannot be taken at all. */
export class HolderBusy extends Data.TaggedError("HolderBusy")<{
  /** The holder's process id, when it could be read. */
  readonly holder: Option.Option<number>
  /** Why the lock could not be taken when no holder was found (the directory, flock missing). */
  readonly unusable: Option.Option<string>
}> {}

export class HolderLock extends Context.Tag("buddy/HolderLock")<HolderLock, {
  /** Takes the lock for this Hermes home; already ours, nothing happens. */
  readonly take: Effect.Effect<void, HolderBusy>
  /** Lets it go; nothing when it is not ours. */
  readonly release: Effect.Effect<void>
}>() {}

/** The lock file's name for a home: no path, code or id of Hermes's in it, only a hash. */
export const lockName = (realHome: string) =>
  `holder-${createHash("sha256").update(realHome).digest("hex").slice(0, 16)}.lock`

/** flock(1)'s exit code on our description: 0 taken, 1 held elsewhere, anything else it could not lock. */
const flock = (handle: FileHandle) =>
  Effect.async<number | null>((resume) => {
    const child = spawn("flock", ["--nonblock", "--exclusive", "3"], {
      stdio: ["ignore", "ignore", "ignore", handle.fd]
    })
    // A child that cannot be spawned (no flock) emits `error`, then `close` with a negative code.
    // Stryker disable next-line ArrowFunction: the listener only keeps the `error` from being thrown
    child.once("error", () => {})
    child.once("close", (code) => resume(Effect.succeed(code)))
  })

/** The holder's process id, as it wrote it: a number or nothing. */
const holderOf = (handle: FileHandle) =>
  Effect.tryPromise(() => handle.read(Buffer.alloc(32), 0, 32, 0)).pipe(
    Effect.map(({ buffer, bytesRead }) => {
      const text = buffer.subarray(0, bytesRead).toString("latin1").trim()
      return /^[1-9][0-9]{0,9}$/.test(text) ? Option.some(Number(text)) : Option.none<number>()
    }),
    // Stryker disable next-line ArrowFunction: a read of our own open file does not fail; the fallback is for the type
    Effect.orElseSucceed(() => Option.none<number>())
  )

const busy = (holder: Option.Option<number>) => new HolderBusy({ holder, unusable: Option.none() })
const cannot = (why: string) => new HolderBusy({ holder: Option.none(), unusable: Option.some(why) })

const closing = (handle: FileHandle) => Effect.ignore(Effect.tryPromise(() => handle.close()))

/** The lock file, opened without following a link; the handle is closed again if it is not ours and private. */
const openLock = (path: string) =>
  Effect.tryPromise({
    try: () =>
      fsp.open(path, fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK, 0o600),
    catch: (error) => cannot(`${path}: ${errnoOf(error)}`)
  }).pipe(
    Effect.tap((handle) =>
      // Stryker disable next-line ArrowFunction,StringLiteral: fstat of an open file does not fail; the refusal is for the type
      Effect.tryPromise({ try: () => handle.stat(), catch: (error) => cannot(`${path}: ${errnoOf(error)}`) }).pipe(
        Effect.filterOrFail(
          (stats) => stats.isFile() && stats.uid === ownUid() && (stats.mode & 0o077) === 0,
          () => cannot(`${path} is not a private file of this account`)
        ),
        Effect.tapError(() => closing(handle))
      )
    )
  )

/** Takes the lock on the file's description and writes our process id in it; closed again on failure. */
const lockOn = (handle: FileHandle) =>
  Effect.gen(function*() {
    const code = yield* flock(handle)
    if (code === 1) return yield* Effect.fail(busy(yield* holderOf(handle)))
    if (code !== 0) return yield* Effect.fail(cannot("flock (util-linux) could not be run"))
    yield* Effect.ignore(
      Effect.tryPromise(async () => {
        await handle.truncate(0)
        await handle.write(`${process.pid}\n`, 0)
      })
    )
  }).pipe(Effect.tapError(() => closing(handle)))

/** The real home the lock is for; a home that does not resolve is locked by the path given. */
const homeOf = (override: string | undefined) =>
  Effect.flatMap(
    configuredHome(override),
    (home) => Effect.orElseSucceed(Effect.tryPromise(() => fsp.realpath(home)), () => home)
  )

export const HolderLockLive = Layer.scoped(
  HolderLock,
  Effect.gen(function*() {
    const config = yield* BuddyConfig
    /** The open lock file while the lock is ours: closing it lets the lock go. */
    const held = yield* Ref.make(Option.none<FileHandle>())
    const release = Effect.flatMap(
      Ref.getAndSet(held, Option.none()),
      Option.match({
        onNone: () => Effect.void,
        onSome: closing
      })
    )
    // The layer's end is the process's end for the lock (a Launchpad restarting its runtime).
    yield* Effect.addFinalizer(() => release)
    const take = Effect.gen(function*() {
      if (Option.isSome(yield* Ref.get(held))) return
      const directory = runtimeDirectory()
      yield* privateDirectory(directory).pipe(
        Effect.mapError((unsafe) => cannot(`${unsafe.path}: ${unsafe.reason}`))
      )
      const handle = yield* openLock(nodePath.join(directory, lockName(yield* homeOf(config.hermesHome))))
      yield* lockOn(handle)
      yield* Ref.set(held, Option.some(handle))
    })
    return HolderLock.of({ take, release })
  })
)

/**
 * One process's lock, in memory, for tests of SignIn within one process. `others` stands for the
 * other processes: a home listed there is held elsewhere, by that process id.
 */
export const HolderLockMemory = (others?: Ref.Ref<ReadonlyMap<string, number>>) =>
  Layer.effect(
    HolderLock,
    Effect.map(BuddyConfig, (config) =>
      HolderLock.of({
        take: others === undefined ?
          Effect.void :
          Effect.flatMap(Ref.get(others), (holders) =>
            Option.fromNullable(config.hermesHome).pipe(
              Option.flatMap((home) => Option.fromNullable(holders.get(home))),
              Option.match({ onNone: () => Effect.void, onSome: (pid) => Effect.fail(busy(Option.some(pid))) })
            )),
        release: Effect.void
      }))
  )
