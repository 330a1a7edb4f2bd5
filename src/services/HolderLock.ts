// HolderLock (C4.1 across processes; docs/decisions.md D39): one holder of a sign-in per Hermes home
// on the whole machine. A process that holds or is starting a sign-in holds the lock, kept beside
// what it locks, in `<real Hermes home>/.buddy-lock/` (./lock-area.ts): the same place for every
// process of the account and home whatever its environment, in a directory no other account can
// create. The kernel lets it go when its holder dies; no outside program is run to take it. On Linux
// it is a directory renamed into place (./lock-rename.ts), on macOS and the BSDs an O_EXLOCK open
// (./lock-exlock.ts); anywhere else it cannot be taken, and says so.
import { Context, Effect, Layer, Option, Ref } from "effect"
import type { Scope } from "effect"
import { constants as fsConstants } from "node:fs"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import { BuddyConfig } from "./BuddyConfig.js"
import { configuredHome } from "./gateway-path.js"
import type { GatewayError } from "./GatewayError.js"
import { heldBy, type HolderBusy, lockUnavailable } from "./HolderBusy.js"
import {
  areaIfThere,
  type AreaLock,
  areaName,
  type Holding,
  lockArea,
  type OpenFile,
  somethingAt
} from "./lock-area.js"
import { type ExlockConstants, exlockLock, isAlive, O_EXLOCK } from "./lock-exlock.js"
import { renameLock } from "./lock-rename.js"
import { sharedLook, sharedReading } from "./shared-reading.js"

export { HolderBusy } from "./HolderBusy.js"
export type { Holding } from "./lock-area.js"

export class HolderLock extends Context.Tag("buddy/HolderLock")<HolderLock, {
  /**
   * Takes the lock for this Hermes home; already ours, nothing happens. Held elsewhere or in the way:
   * HolderBusy. A home that is missing or unsafe: the GatewayError C1 gives it.
   */
  readonly take: Effect.Effect<void, HolderBusy | GatewayError>
  /** Lets it go; nothing when it is not ours. */
  readonly release: Effect.Effect<void>
  /**
   * Who holds a sign-in for this Hermes home, this process or another, looked at without taking the
   * lock or changing anything (`buddy status`, C8); none when nobody does or it cannot be told.
   */
  readonly holder: Effect.Effect<Option.Option<Holding>>
}>() {}

/** What the lock is made of on a system: the live one, or one a test plays. */
export interface LockSystem {
  readonly platform: NodeJS.Platform
  /** Where this process's descriptors have names (Linux): `/proc/self/fd`. */
  readonly descriptors: string
  /** How the lock file is opened (macOS, BSD). */
  readonly open: OpenFile
  /** Whether a process lives (macOS, BSD: a look at who holds the lock). */
  readonly alive: (pid: number) => Effect.Effect<boolean>
  readonly constants: ExlockConstants
  /** The status reads' first look, where a holder would be (D52). */
  readonly lstat: (path: string) => Promise<unknown>
}

export const liveSystem: LockSystem = {
  platform: process.platform,
  descriptors: "/proc/self/fd",
  open: fsp.open,
  alive: isAlive,
  // Stryker disable next-line ObjectLiteral: read on darwin and the BSDs only; their tests give constants of their own
  constants: { ...fsConstants, O_EXLOCK },
  lstat: fsp.lstat
}

const exlockSystems: ReadonlySet<NodeJS.Platform> = new Set(["darwin", "freebsd", "openbsd", "netbsd"])

/** A system buddy has no lock for: nothing is made there, and every take says so. */
const noLock = (platform: NodeJS.Platform, home: string | undefined): AreaLock => ({
  // Stryker disable next-line StringLiteral: whatever is there, this lock's look is nobody
  holderName: "holder",
  take: () =>
    Effect.flatMap(
      configuredHome(home),
      (configured) =>
        Effect.fail(lockUnavailable(nodePath.join(configured, areaName), "unsupported", { code: platform }))
    ),
  release: Effect.void,
  holder: () => Effect.succeedNone
})

const lockOn = (system: LockSystem, home: string | undefined): Effect.Effect<AreaLock, never, Scope.Scope> =>
  system.platform === "linux"
    ? renameLock(system.descriptors)
    : exlockSystems.has(system.platform)
    ? exlockLock(system.open, system.constants, system.alive)
    : Effect.succeed(noLock(system.platform, home))

/**
 * The machine-wide lock on `system`. Takes and releases of one layer run one at a time and are
 * never interrupted halfway: a rename the kernel made must be known to the layer that made it.
 */
export const holderLockLayer = (system: LockSystem): Layer.Layer<HolderLock, never, BuddyConfig> =>
  Layer.scoped(
    HolderLock,
    Effect.gen(function*() {
      const config = yield* BuddyConfig
      const lock = yield* lockOn(system, config.hermesHome)
      const one = yield* Effect.makeSemaphore(1)
      const serial = <A, E>(effect: Effect.Effect<A, E>) => one.withPermits(1)(Effect.uninterruptible(effect))
      // Looks run one by one with the takes, so concurrent ones (a burst of status reads while another
      // holds, D52) share one that began after each arrived, as the readings do (C5).
      const look = yield* sharedReading(serial(lock.holder(areaIfThere(config.hermesHome))))
      // Nothing where a holder would be: nobody, at once, outside the serial takes (D52). Concurrent
      // reads share that first look too, without a fiber for a read alone (D60).
      const there = yield* sharedLook(somethingAt(config.hermesHome, lock.holderName, system.lstat))
      return HolderLock.of({
        take: serial(lock.take(lockArea(config.hermesHome))),
        release: serial(lock.release),
        // The look judges anything there, as it always has.
        holder: Effect.flatMap(there, (found) => (found ? look : Effect.succeedNone))
      })
    })
  )

export const HolderLockLive = holderLockLayer(liveSystem)

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
              Option.match({ onNone: () => Effect.void, onSome: (pid) => Effect.fail(heldBy(Option.some(pid))) })
            )),
        release: Effect.void,
        holder: others === undefined ?
          Effect.succeedNone :
          Effect.map(Ref.get(others), (holders) =>
            Option.fromNullable(config.hermesHome).pipe(
              Option.flatMap((home) => Option.fromNullable(holders.get(home))),
              Option.map((pid): Holding => ({ pid: Option.some(pid) }))
            ))
      }))
  )
