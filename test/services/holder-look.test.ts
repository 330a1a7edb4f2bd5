// Who holds a sign-in, looked at for `buddy status` (C8, D46) on Linux: the holder lock's `holder`
// finds a live holder and its pid (another layer, as another process has it; this layer itself),
// and changes nothing while it looks: no area made in a home without one, no stale holder cleared,
// no lock taken, so a take meanwhile is never refused because of it. Anything it cannot read as a
// live holder of ours is no holder. macOS and the BSDs: holder-lock-exlock.test.ts. Across real
// processes: test/cli/status.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, Scope } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { liveSystem } from "../../src/services/HolderLock.js"
import { heldByPid, lockDirectory, lockFor, lockScene, namesIn, refusalOf } from "./support/lock-scene.js"

const run = <A>(action: () => Promise<A>) => Effect.promise(action)
const pidOf = (pid: number) => Option.some({ pid: Option.some(pid) })

describe("a look at who holds the lock", () => {
  it.scopedLive("finds nobody in a home without an area, and makes none", () =>
    Effect.gen(function*() {
      const { area, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      expect(yield* lock.holder).toStrictEqual(Option.none())
      expect(yield* namesIn(home)).toStrictEqual([])
      expect(yield* run(() => fs.access(area).then(() => true, () => false))).toBe(false)
    }))

  it.scopedLive("finds nobody in a home that is missing or not private", () =>
    Effect.gen(function*() {
      const { home, root } = yield* lockScene
      expect(yield* (yield* lockFor(path.join(root, "missing"))).lock.holder).toStrictEqual(Option.none())
      const first = yield* lockFor(home)
      yield* first.lock.take
      yield* run(() => fs.chmod(home, 0o777))
      expect(yield* (yield* lockFor(home)).lock.holder).toStrictEqual(Option.none())
      yield* run(() => fs.chmod(home, 0o700))
    }))

  it.scopedLive("finds another layer's hold with its pid, and its own as its own, and nobody once it goes", () =>
    Effect.gen(function*() {
      const { area, home } = yield* lockScene
      const first = yield* lockFor(home)
      const second = yield* lockFor(home)
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      yield* first.lock.take
      expect(yield* second.lock.holder).toStrictEqual(pidOf(process.pid))
      expect(yield* first.lock.holder).toStrictEqual(pidOf(process.pid))
      // The look took nothing and made nothing: the looker has no directory of its own.
      expect((yield* namesIn(area)).filter((name) => name.startsWith("p-"))).toHaveLength(0)
      yield* first.lock.release
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      yield* first.lock.take
      yield* Scope.close(first.scope, Exit.void)
      expect(yield* second.lock.holder).toStrictEqual(Option.none())
      // Having looked, it takes at once.
      yield* second.lock.take
      expect(yield* second.lock.holder).toStrictEqual(pidOf(process.pid))
    }))

  it.scopedLive("reads a live holder's pid as the take does, and none when it says anything but digits", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lockDirectory(holder, { pid: " 4711 \n", socket: "live" })
      expect(yield* lock.holder).toStrictEqual(pidOf(4711))
      yield* run(() => fs.writeFile(path.join(holder, "pid"), "47x\n"))
      expect(yield* lock.holder).toStrictEqual(Option.some({ pid: Option.none() }))
      yield* run(() => fs.unlink(path.join(holder, "pid")))
      expect(yield* lock.holder).toStrictEqual(Option.some({ pid: Option.none() }))
    }))

  it.scopedLive("finds a stopped holder (its socket's queue full) held", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lockDirectory(holder, { pid: "4711\n", socket: "stopped" })
      expect(yield* lock.holder).toStrictEqual(pidOf(4711))
    }))

  it.scopedLive("finds a stale holder no holder, and leaves it for the next take to clear", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lockDirectory(holder, { pid: "4242\n" })
      expect(yield* lock.holder).toStrictEqual(Option.none())
      expect(yield* namesIn(holder)).toStrictEqual(["pid", "s"])
      yield* lock.take
      expect(yield* run(() => fs.readFile(path.join(holder, "pid"), "utf8"))).toBe(`${process.pid}\n`)
    }))

  it.scopedLive("finds nobody in what is not buddy's: open to others, not a directory, a link", () =>
    Effect.gen(function*() {
      const { area, holder, home, root } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lockDirectory(holder, { pid: "4711\n", socket: "live" })
      yield* run(() => fs.chmod(holder, 0o755))
      expect(yield* lock.holder).toStrictEqual(Option.none())
      yield* run(() => fs.chmod(holder, 0o700))
      expect(yield* lock.holder).toStrictEqual(pidOf(4711))
      // Another account's (root can give it away): nobody of ours holds it.
      if (process.getuid?.() === 0) {
        yield* run(() => fs.chown(holder, 65534, 65534))
        expect(yield* lock.holder).toStrictEqual(Option.none())
        yield* run(() => fs.chown(holder, 0, 0))
        expect(yield* lock.holder).toStrictEqual(pidOf(4711))
      }
      yield* run(() => fs.rename(holder, path.join(root, "elsewhere")))
      yield* run(() => fs.symlink(path.join(root, "elsewhere"), holder))
      expect(yield* lock.holder).toStrictEqual(Option.none())
      yield* run(() => fs.unlink(holder))
      yield* run(() => fs.writeFile(holder, "4711\n"))
      expect(yield* lock.holder).toStrictEqual(Option.none())
      expect(yield* namesIn(area)).toStrictEqual(["holder"])
    }))

  it.scopedLive("finds nobody where /proc/self/fd is missing, and on a system buddy has no lock for", () =>
    Effect.gen(function*() {
      const { holder, home, root } = yield* lockScene
      yield* lockDirectory(holder, { pid: "4711\n", socket: "live" })
      const noProc = yield* lockFor(home, { ...liveSystem, descriptors: path.join(root, "proc", "self", "fd") })
      expect(yield* noProc.lock.holder).toStrictEqual(Option.none())
      const other = yield* lockFor(home, { ...liveSystem, platform: "aix" })
      expect(yield* other.lock.holder).toStrictEqual(Option.none())
    }))

  it.scopedLive("never stands in a take's way: looks and takes at once, the take is never refused", () =>
    Effect.gen(function*() {
      const { home } = yield* lockScene
      const looker = yield* lockFor(home)
      const taker = yield* lockFor(home)
      for (let round = 0; round < 20; round++) {
        const [looked, taken] = yield* Effect.all([looker.lock.holder, Effect.either(taker.lock.take)], {
          concurrency: "unbounded"
        })
        expect(taken._tag).toBe("Right")
        expect(Option.isNone(looked) || Option.getOrThrow(looked).pid._tag === "Some").toBe(true)
        yield* taker.lock.release
      }
      expect(yield* refusalOf(Effect.zipRight(taker.lock.take, looker.lock.take))).toStrictEqual(
        heldByPid(process.pid)
      )
    }))

  it.scopedLive("concurrent looks with nobody there share one lstat that began after each arrived; one after another, each its own (D60)", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const asked: Array<string> = []
      const lstat = (file: string) => {
        asked.push(file)
        return fs.lstat(file)
      }
      const { lock } = yield* lockFor(home, { ...liveSystem, lstat })
      const seen = yield* Effect.all(Array.from({ length: 40 }, () => lock.holder), { concurrency: "unbounded" })
      expect(seen).toStrictEqual(Array.from({ length: 40 }, () => Option.none()))
      expect(asked.length).toBeGreaterThanOrEqual(1)
      expect(asked.length).toBeLessThanOrEqual(2)
      expect(new Set(asked)).toStrictEqual(new Set([holder]))
      const shared = asked.length
      yield* lock.holder
      yield* lock.holder
      yield* lock.holder
      expect(asked.length - shared).toBe(3)
      // Fresh: a hold taken after those looks is what the next one finds.
      const other = yield* lockFor(home)
      yield* other.lock.take
      expect(yield* lock.holder).toStrictEqual(pidOf(process.pid))
    }))
})
