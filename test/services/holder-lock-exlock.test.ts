// The holder lock on macOS and the BSDs (D39): one open with O_EXLOCK. This machine runs Linux, which
// has no O_EXLOCK, so these tests play that system by injection: the platform, the open function and
// the constants are given to the layer, and the open given here keeps the flock that O_EXLOCK takes
// (refusing a second one with EAGAIN, letting go on close) around Linux's own open of the same file.
// What they prove is buddy's side: the flags it asks for, what it checks before writing, what it
// answers; that darwin's kernel honours O_EXLOCK is its own documentation's word (open(2)).
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, Scope } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { constants as fsConstants } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { liveSystem, type LockSystem } from "../../src/services/HolderLock.js"
import type { LockFile, OpenFile } from "../../src/services/lock-area.js"
import { isAlive, O_EXLOCK } from "../../src/services/lock-exlock.js"
import { heldByPid, lockFor, lockScene, refusalOf, unavailableAt } from "./support/lock-scene.js"

const isRoot = process.getuid?.() === 0
const run = <A>(action: () => Promise<A>) => Effect.promise(action)

const exclusive = fsConstants.O_RDWR | fsConstants.O_CREAT | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK |
  O_EXLOCK
const lockless = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK

const failure = (code: string) => Object.assign(new Error(code), { code })

/**
 * A BSD's open, played: O_EXLOCK takes an exclusive lock on the file as it opens it, or fails with
 * `busyCode` when another open holds one; closing the file lets it go. Every call is recorded.
 */
const playedSystem = (platform: NodeJS.Platform, busyCode = "EAGAIN", refuse?: string) => {
  const calls: Array<{ readonly file: string; readonly flags: number; readonly mode: number | undefined }> = []
  const locked = new Set<string>()
  const open: OpenFile = async (file, flags, mode) => {
    calls.push({ file, flags, mode })
    if (refuse !== undefined) throw failure(refuse)
    const exlock = (flags & O_EXLOCK) !== 0
    if (exlock && locked.has(file)) throw failure(busyCode)
    const handle = await fs.open(file, flags & ~O_EXLOCK, mode)
    if (exlock) locked.add(file)
    const played: LockFile = {
      read: handle.read.bind(handle) as LockFile["read"],
      stat: handle.stat.bind(handle) as LockFile["stat"],
      truncate: handle.truncate.bind(handle),
      write: handle.write.bind(handle) as LockFile["write"],
      close: async () => {
        if (exlock) locked.delete(file)
        await handle.close()
      }
    }
    return played
  }
  const system: LockSystem = { ...liveSystem, platform, open, constants: { ...fsConstants, O_EXLOCK } }
  return { system, calls, locked }
}

describe("the holder lock on macOS and the BSDs (played by injection)", () => {
  for (const platform of ["darwin", "freebsd", "openbsd", "netbsd"] as const) {
    it.scopedLive(`${platform}: one open with O_EXLOCK, 0600, no link followed, then the pid; release and the layer's end close it`, () =>
      Effect.gen(function*() {
        const { area, home } = yield* lockScene
        const file = path.join(area, "holder.lock")
        const { calls, locked, system } = playedSystem(platform)
        const first = yield* lockFor(home, system)
        // A release before any take lets go of nothing.
        yield* first.lock.release
        yield* first.lock.take
        yield* first.lock.take
        expect(calls).toStrictEqual([{ file, flags: exclusive, mode: 0o600 }])
        expect(yield* run(() => fs.readFile(file, "utf8"))).toBe(`${process.pid}\n`)
        expect((yield* run(() => fs.lstat(area))).mode & 0o777).toBe(0o700)
        yield* first.lock.release
        expect([...locked]).toStrictEqual([])
        yield* first.lock.take
        expect([...locked]).toStrictEqual([file])
        yield* Scope.close(first.scope, Exit.void)
        expect([...locked]).toStrictEqual([])
      }))
  }

  it.scopedLive("darwin: held elsewhere (EAGAIN or EWOULDBLOCK) names the holder, read through an open that takes no lock", () =>
    Effect.gen(function*() {
      const { area, home } = yield* lockScene
      const file = path.join(area, "holder.lock")
      for (const busyCode of ["EAGAIN", "EWOULDBLOCK"]) {
        const { calls, system } = playedSystem("darwin", busyCode)
        const first = yield* lockFor(home, system)
        const second = yield* lockFor(home, system)
        yield* first.lock.take
        expect(yield* refusalOf(second.lock.take)).toStrictEqual(heldByPid(process.pid))
        expect(calls).toStrictEqual([
          { file, flags: exclusive, mode: 0o600 },
          { file, flags: exclusive, mode: 0o600 },
          { file, flags: lockless, mode: undefined }
        ])
        yield* run(() => fs.writeFile(file, "not a pid\n"))
        expect(yield* refusalOf(second.lock.take)).toStrictEqual(heldByPid(undefined))
        yield* Scope.close(first.scope, Exit.void)
        yield* second.lock.take
        yield* Scope.close(second.scope, Exit.void)
      }
    }))

  it.scopedLive("darwin: a lock file with a second name (a hard link), another account's, open to others, not a regular file or a link is refused before anything is written", () =>
    Effect.gen(function*() {
      const { area, home, root } = yield* lockScene
      const file = path.join(area, "holder.lock")
      const { locked, system } = playedSystem("darwin")
      const { lock } = yield* lockFor(home, system)
      yield* run(() => fs.mkdir(area, { mode: 0o700 }))
      yield* run(() => fs.writeFile(file, "4242\n", { mode: 0o600 }))
      yield* run(() => fs.link(file, path.join(root, "second-name")))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(file, "hard-link", { found: 2 }))
      expect(yield* run(() => fs.readFile(file, "utf8"))).toBe("4242\n")
      expect([...locked]).toStrictEqual([])
      yield* run(() => fs.unlink(path.join(root, "second-name")))
      yield* run(() => fs.chmod(file, 0o640))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(file, "open", { found: 0o640 }))
      yield* run(() => fs.chmod(file, 0o600))
      if (isRoot) {
        yield* run(() => fs.chown(file, 65534, 65534))
        expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(file, "foreign", { found: 65534 }))
        yield* run(() => fs.chown(file, 0, 0))
      }
      expect(yield* run(() => fs.readFile(file, "utf8"))).toBe("4242\n")
      yield* run(() => fs.unlink(file))
      execFileSync("mkfifo", ["-m", "600", file])
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(file, "not-file"))
      yield* run(() => fs.unlink(file))
      yield* run(() => fs.symlink(path.join(root, "elsewhere"), file))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(file, "link"))
      expect(yield* run(() => fs.lstat(path.join(root, "elsewhere")).then(() => "there", () => "absent"))).toBe(
        "absent"
      )
      expect([...locked]).toStrictEqual([])
      yield* run(() => fs.unlink(file))
      yield* lock.take
      expect(yield* run(() => fs.readFile(file, "utf8"))).toBe(`${process.pid}\n`)
    }))

  it.scopedLive("darwin: an open the system refuses is lock-unavailable with its code, never held", () =>
    Effect.gen(function*() {
      const { area, home } = yield* lockScene
      for (const code of ["EACCES", "EROFS"]) {
        const { system } = playedSystem("darwin", "EAGAIN", code)
        const { lock } = yield* lockFor(home, system)
        expect(yield* refusalOf(lock.take)).toStrictEqual(
          unavailableAt(path.join(area, "holder.lock"), "system", { code })
        )
      }
    }))
})

describe("a look at who holds the lock on macOS and the BSDs (played by injection)", () => {
  const pidOf = (pid: number) => Option.some({ pid: Option.some(pid) })

  it.scopedLive("reads the pid through an open that takes no lock (not even a shared one), and asks whether it lives", () =>
    Effect.gen(function*() {
      const { area, home } = yield* lockScene
      const file = path.join(area, "holder.lock")
      const { calls, locked, system } = playedSystem("darwin")
      const asked: Array<number> = []
      const living = new Set<number>([process.pid, 4711])
      const withAlive: LockSystem = {
        ...system,
        alive: (pid) => Effect.sync(() => (asked.push(pid), living.has(pid)))
      }
      const first = yield* lockFor(home, withAlive)
      const second = yield* lockFor(home, withAlive)
      // No area yet: nobody, and nothing made, nor even opened: nothing is where the file would be (D52).
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      expect(calls).toStrictEqual([])
      expect(yield* run(() => fs.access(area).then(() => true, () => false))).toBe(false)
      // Something other than nothing there (the area a file: ENOTDIR) is the look's to judge, with its one open.
      yield* run(() => fs.writeFile(area, ""))
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      expect(calls).toStrictEqual([{ file, flags: lockless, mode: undefined }])
      yield* run(() => fs.unlink(area))
      // An area without the file: still nobody and nothing opened.
      yield* run(() => fs.mkdir(area, { mode: 0o700 }))
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      expect(calls).toHaveLength(1)
      yield* run(() => fs.rmdir(area))
      yield* first.lock.take
      expect(yield* second.lock.holder).toStrictEqual(pidOf(process.pid))
      expect(calls.at(-1)).toStrictEqual({ file, flags: lockless, mode: undefined })
      expect(asked).toStrictEqual([process.pid])
      // Its own hold is its own, without a look at the file.
      const before = calls.length
      expect(yield* first.lock.holder).toStrictEqual(pidOf(process.pid))
      expect(calls.length).toBe(before)
      expect([...locked]).toStrictEqual([file])
      // A release empties the file before it lets go: the file then names nobody.
      yield* first.lock.release
      expect(yield* run(() => fs.readFile(file, "utf8"))).toBe("")
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      // A holder killed outright leaves its pid: held while it lives, nobody once it is gone.
      yield* run(() => fs.writeFile(file, "4711\n"))
      expect(yield* second.lock.holder).toStrictEqual(pidOf(4711))
      living.delete(4711)
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      expect(asked.at(-1)).toBe(4711)
      yield* run(() => fs.writeFile(file, "not a pid\n"))
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      // A home others may write (C1.1) has no area of ours to look in: nobody, with no open.
      const opened = calls.length
      yield* run(() => fs.chmod(home, 0o775))
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      expect(calls.length).toBe(opened)
      yield* run(() => fs.chmod(home, 0o700))
      // Having looked, it takes at once: the look held no lock.
      yield* second.lock.take
      expect([...locked]).toStrictEqual([file])
    }))

  it.scopedLive("concurrent looks while another holds share one look that began after each arrived (D52)", () =>
    Effect.gen(function*() {
      const { area, home } = yield* lockScene
      const file = path.join(area, "holder.lock")
      const { calls, system } = playedSystem("darwin")
      const first = yield* lockFor(home, system)
      const second = yield* lockFor(home, system)
      yield* first.lock.take
      const before = calls.length
      const seen = yield* Effect.all(Array.from({ length: 40 }, () => second.lock.holder), { concurrency: "unbounded" })
      expect(seen).toStrictEqual(Array.from({ length: 40 }, () => pidOf(process.pid)))
      const looks = calls.slice(before)
      expect(looks.length).toBeGreaterThanOrEqual(1)
      expect(looks.length).toBeLessThanOrEqual(2)
      expect(looks[0]).toStrictEqual({ file, flags: lockless, mode: undefined })
      // One after another, each its own look: none is a reading kept from before.
      yield* second.lock.holder
      yield* second.lock.holder
      expect(calls.length - before - looks.length).toBe(2)
    }))

  it.scopedLive("finds nobody for a home that is missing, without opening anything", () =>
    Effect.gen(function*() {
      const { root } = yield* lockScene
      const { calls, system } = playedSystem("darwin")
      const { lock } = yield* lockFor(path.join(root, "missing"), system)
      expect(yield* lock.holder).toStrictEqual(Option.none())
      expect(calls).toStrictEqual([])
    }))

  it("tells a living process by kill(pid, 0): this one lives, one that ended does not, another account's (EPERM) does", async () => {
    expect(await Effect.runPromise(isAlive(process.pid))).toBe(true)
    const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
    expect(await Effect.runPromise(isAlive(Number(ended.stdout)))).toBe(false)
    // What kill(2) answers for another account's process, and for none, given as the system gives it.
    const refusing = (code: string) => () => {
      throw failure(code)
    }
    const asked: Array<readonly [number, number]> = []
    expect(await Effect.runPromise(isAlive(4711, (pid, signal) => asked.push([pid, signal])))).toBe(true)
    expect(asked).toStrictEqual([[4711, 0]])
    expect(await Effect.runPromise(isAlive(4711, refusing("EPERM")))).toBe(true)
    expect(await Effect.runPromise(isAlive(4711, refusing("ESRCH")))).toBe(false)
  })
})
