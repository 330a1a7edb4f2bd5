// HolderLockLive on Linux (C4.1, D39) in one process: each layer is what one process has (its own
// directory, its own socket), so two layers are kept apart as two processes are. The lock is in
// `<home>/.buddy-lock/` whatever the environment says; it goes on release and on the layer's end; a
// stale holder is taken over at once, a place that is not buddy's own is refused `unavailable` with
// the path, never taken as held. Across real processes (kill -9, no flock on PATH, another
// account): test/boundary/holder-lock.test.ts. macOS and the BSDs: holder-lock-exlock.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Exit, Layer, Scope } from "effect"
import { execFileSync } from "node:child_process"
import { readdirSync, readlinkSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HolderLockLive, liveSystem } from "../../src/services/HolderLock.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { buddyServices } from "../../src/services/layers.js"
import { SignIn } from "../../src/services/SignIn.js"
import { testDeadlines } from "../support/buddy.js"
import {
  heldByPid,
  lockDirectory,
  lockFor,
  lockScene,
  namesIn,
  refusalOf,
  said,
  unavailableAt
} from "./support/lock-scene.js"

const isRoot = process.getuid?.() === 0
const read = (file: string) => Effect.promise(() => fs.readFile(file, "utf8"))
const run = <A>(action: () => Promise<A>) => Effect.promise(action)

describe("the holder lock", () => {
  it.scopedLive("is exclusive between two layers, names the holder, and goes on release and on the layer's end", () =>
    Effect.gen(function*() {
      const { area, holder, home } = yield* lockScene
      const first = yield* lockFor(home)
      const second = yield* lockFor(home)
      yield* first.lock.take
      yield* first.lock.take
      expect(yield* refusalOf(second.lock.take)).toStrictEqual(heldByPid(process.pid))
      // The holder's own directory, renamed into place: its socket and its pid, nothing else.
      expect(yield* namesIn(holder)).toStrictEqual(["pid", "s"])
      expect(yield* read(path.join(holder, "pid"))).toBe(`${process.pid}\n`)
      expect((yield* run(() => fs.lstat(path.join(holder, "pid")))).mode & 0o777).toBe(0o600)
      const areaStats = yield* run(() => fs.lstat(area))
      expect({ mode: areaStats.mode & 0o777, directory: areaStats.isDirectory() }).toStrictEqual({
        mode: 0o700,
        directory: true
      })
      yield* first.lock.release
      yield* first.lock.release
      yield* second.lock.take
      // A release of a lock not held moves nothing, whoever holds it now.
      yield* first.lock.release
      expect(yield* refusalOf(first.lock.take)).toStrictEqual(heldByPid(process.pid))
      yield* Scope.close(second.scope, Exit.void)
      // One directory of its own for the layer's life, made once: the same name after every release.
      const own = (yield* namesIn(area)).filter((name) => name.startsWith("p-"))
      expect(own).toHaveLength(1)
      yield* first.lock.take
      yield* first.lock.take
      yield* first.lock.release
      expect(yield* namesIn(area)).toStrictEqual(own)
      yield* first.lock.take
      yield* Scope.close(first.scope, Exit.void)
      // Each layer's end took its own directory away.
      expect(yield* namesIn(area)).toStrictEqual([])
    }))

  it.scopedLive("is in one place for every process of the account and home, whatever XDG_RUNTIME_DIR says", () =>
    Effect.gen(function*() {
      const { home, root } = yield* lockScene
      const before = process.env["XDG_RUNTIME_DIR"]
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (before === undefined) delete process.env["XDG_RUNTIME_DIR"]
          else process.env["XDG_RUNTIME_DIR"] = before
        })
      )
      const runtimes = [path.join(root, "run-a"), path.join(root, "run-b")]
      for (const runtime of runtimes) yield* run(() => fs.mkdir(runtime, { mode: 0o700 }))
      const login = yield* lockFor(home)
      const service = yield* lockFor(home)
      const cron = yield* lockFor(home)
      process.env["XDG_RUNTIME_DIR"] = runtimes[0]
      yield* login.lock.take
      process.env["XDG_RUNTIME_DIR"] = runtimes[1]
      expect(yield* refusalOf(service.lock.take)).toStrictEqual(heldByPid(process.pid))
      delete process.env["XDG_RUNTIME_DIR"]
      expect(yield* refusalOf(cron.lock.take)).toStrictEqual(heldByPid(process.pid))
      for (const runtime of runtimes) expect(yield* namesIn(runtime)).toStrictEqual([])
    }))

  it.scopedLive("answers a missing home not-running and an unsafe one unsafe-home, as C1 does, making nothing there", () =>
    Effect.gen(function*() {
      const { home, root } = yield* lockScene
      const missing = yield* lockFor(path.join(root, "not-yet"))
      expect(yield* refusalOf(missing.lock.take)).toStrictEqual({ gateway: "not-running" })
      expect(yield* namesIn(root)).toStrictEqual(["hermes"])
      yield* run(() => fs.chmod(home, 0o770))
      const unsafe = yield* lockFor(home)
      expect(yield* refusalOf(unsafe.lock.take)).toStrictEqual({ gateway: "unsafe-home" })
      expect(yield* namesIn(home)).toStrictEqual([])
      yield* run(() => fs.chmod(home, 0o755))
      // Read and search by others are fine (C1.1): the lock is taken, and its area is closed all the same.
      yield* unsafe.lock.take
      expect((yield* run(() => fs.lstat(path.join(home, ".buddy-lock")))).mode & 0o777).toBe(0o700)
    }))

  it.scopedLive("is one lock for a home and a link to it", () =>
    Effect.gen(function*() {
      const { home, root } = yield* lockScene
      const linked = path.join(root, "linked-home")
      yield* run(() => fs.symlink(home, linked))
      const byReal = yield* lockFor(home)
      const byLink = yield* lockFor(linked)
      yield* byReal.lock.take
      expect(yield* refusalOf(byLink.lock.take)).toStrictEqual(heldByPid(process.pid))
      expect(yield* namesIn(root)).toStrictEqual(["hermes", "linked-home"])
    }))

  it.scopedLive("follows the home when its link moves: the next take is beside the new home, nothing stays beside the old", () =>
    Effect.gen(function*() {
      const { home, root } = yield* lockScene
      const other = path.join(root, "other-hermes")
      yield* run(() => fs.mkdir(other, { mode: 0o700 }))
      const linked = path.join(root, "linked-home")
      yield* run(() => fs.symlink(home, linked))
      const { lock } = yield* lockFor(linked)
      yield* lock.take
      yield* lock.release
      yield* run(async () => {
        await fs.unlink(linked)
        await fs.symlink(other, linked)
      })
      yield* lock.take
      expect(yield* namesIn(path.join(home, ".buddy-lock"))).toStrictEqual([])
      expect(yield* read(path.join(other, ".buddy-lock", "holder", "pid"))).toBe(`${process.pid}\n`)
    }))

  it.scopedLive("makes its own directory again when the area was removed under it", () =>
    Effect.gen(function*() {
      const { area, holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lock.take
      yield* lock.release
      yield* run(() => fs.rm(area, { recursive: true }))
      yield* lock.take
      expect(yield* read(path.join(holder, "pid"))).toBe(`${process.pid}\n`)
      yield* lock.release
      // The area's directory alone removed (the lock's own made again in the area the take remade).
      yield* run(async () => {
        for (const name of await fs.readdir(area)) await fs.rm(path.join(area, name), { recursive: true })
      })
      yield* lock.take
      expect(yield* namesIn(holder)).toStrictEqual(["pid", "s"])
    }))
})

describe("a place that is not buddy's own", () => {
  it.scopedLive("refuses the area when it is a link, not a directory, open to others or another account's", () =>
    Effect.gen(function*() {
      const { area, home, root } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* run(() => fs.mkdir(path.join(root, "elsewhere"), { mode: 0o700 }))
      yield* run(() => fs.symlink(path.join(root, "elsewhere"), area))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(area, "link"))
      expect(yield* namesIn(path.join(root, "elsewhere"))).toStrictEqual([])
      yield* run(() => fs.unlink(area))
      yield* run(() => fs.writeFile(area, ""))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(area, "not-directory"))
      yield* run(() => fs.unlink(area))
      yield* run(() => fs.mkdir(area, { mode: 0o700 }))
      yield* run(() => fs.chmod(area, 0o750))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(area, "open", { found: 0o750 }))
      yield* run(() => fs.chmod(area, 0o700))
      if (isRoot) {
        yield* run(() => fs.chown(area, 65534, 65534))
        expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(area, "foreign", { found: 65534 }))
        yield* run(() => fs.chown(area, 0, 0))
      }
      yield* lock.take
    }))

  it.scopedLive("refuses a holder that is a link, not a directory, open to others or another account's, following no link", () =>
    Effect.gen(function*() {
      const { area, holder, home, root } = yield* lockScene
      const { lock } = yield* lockFor(home)
      const target = path.join(root, "target")
      yield* lockDirectory(target, { pid: "4242\n" })
      yield* run(() => fs.mkdir(area, { mode: 0o700 }))
      yield* run(() => fs.symlink(target, holder))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(holder, "link"))
      // The link's target, a stale holder's look-alike, was neither emptied nor taken.
      expect(yield* namesIn(target)).toStrictEqual(["pid", "s"])
      yield* run(() => fs.unlink(holder))
      yield* run(() => fs.writeFile(holder, "4242\n"))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(holder, "not-directory"))
      yield* run(() => fs.unlink(holder))
      yield* lockDirectory(holder, { pid: "4242\n" })
      yield* run(() => fs.chmod(holder, 0o705))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(holder, "open", { found: 0o705 }))
      yield* run(() => fs.chmod(holder, 0o700))
      if (isRoot) {
        yield* run(() => fs.chown(holder, 65534, 65534))
        expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(holder, "foreign", { found: 65534 }))
        expect(yield* namesIn(holder)).toStrictEqual(["pid", "s"])
        yield* run(() => fs.chown(holder, 0, 0))
      }
      // Ours and closed, with a dead socket: stale, taken over.
      yield* lock.take
      expect(yield* read(path.join(holder, "pid"))).toBe(`${process.pid}\n`)
    }))

  it.scopedLive("refuses a stale holder holding entries buddy did not put there, and leaves them", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lockDirectory(holder, { pid: "4242\n" })
      yield* run(() => fs.writeFile(path.join(holder, "notes"), "mine"))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(holder, "unknown-entries"))
      expect(yield* namesIn(holder)).toStrictEqual(["notes"])
      yield* run(() => fs.rm(holder, { recursive: true }))
      // A file named like the socket is not taken for one: left where it is.
      yield* run(() => fs.mkdir(holder, { mode: 0o700 }))
      yield* run(() => fs.writeFile(path.join(holder, "s"), ""))
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(holder, "unknown-entries"))
      expect(yield* namesIn(holder)).toStrictEqual(["s"])
    }))

  it.scopedLive("is refused with the system's code where the system refuses: a path too long, a directory that cannot change, descriptors that name nothing", () =>
    Effect.gen(function*() {
      const { area, holder, home, root } = yield* lockScene
      // A home whose real path fits (4 090 bytes) and whose area does not (PATH_MAX is 4 096).
      const deep = path.join(root, ...Array.from({ length: 20 }, () => "d".repeat(200)))
      const long = deep + path.sep + "h".repeat(4090 - deep.length - 1)
      yield* run(() => fs.mkdir(long, { recursive: true, mode: 0o700 }))
      const tooLong = yield* lockFor(long)
      expect(yield* refusalOf(tooLong.lock.take)).toStrictEqual(
        unavailableAt(path.join(long, ".buddy-lock"), "system", { code: "ENAMETOOLONG" })
      )
      // An area nobody may change, root included (chattr +i): the rename is refused EPERM.
      const { lock } = yield* lockFor(home)
      yield* lock.take
      yield* lock.release
      yield* Effect.acquireRelease(
        Effect.sync(() => execFileSync("chattr", ["+i", area])),
        () => Effect.sync(() => execFileSync("chattr", ["-i", area]))
      )
      expect(yield* refusalOf(lock.take)).toStrictEqual(unavailableAt(holder, "system", { code: "EPERM" }))
      // Descriptors that name nothing: the socket cannot be bound (libuv says EACCES for a bind into
      // a directory that is not there), and nothing of the process's own directory is left.
      const fake = path.join(root, "no-fds")
      const other = path.join(root, "other-hermes")
      yield* run(() => fs.mkdir(fake))
      yield* run(() => fs.mkdir(other, { mode: 0o700 }))
      const unnamed = yield* lockFor(other, { ...liveSystem, descriptors: fake })
      const otherArea = path.join(other, ".buddy-lock")
      expect(yield* refusalOf(unnamed.lock.take)).toStrictEqual({
        reason: "unavailable",
        holder: undefined,
        place: {
          path: expect.stringMatching(new RegExp(`^${otherArea}/p-${process.pid}-[0-9a-f]{8}$`)),
          problem: "system",
          code: "EACCES"
        }
      })
      expect(yield* namesIn(otherArea)).toStrictEqual([])
    }))

  it.scopedLive("is refused where /proc/self/fd is missing, and on a system buddy has no lock for, making nothing", () =>
    Effect.gen(function*() {
      const { area, home, root } = yield* lockScene
      const noProc = yield* lockFor(home, { ...liveSystem, descriptors: path.join(root, "proc", "self", "fd") })
      expect(yield* refusalOf(noProc.lock.take)).toStrictEqual(
        unavailableAt(path.join(root, "proc", "self", "fd"), "no-proc")
      )
      expect(yield* namesIn(area)).toStrictEqual([])
      yield* run(() => fs.rmdir(area))
      for (const platform of ["win32", "aix", "sunos", "android"] as const) {
        const other = yield* lockFor(home, { ...liveSystem, platform })
        expect(yield* refusalOf(other.lock.take)).toStrictEqual(unavailableAt(area, "unsupported", { code: platform }))
        yield* other.lock.release
      }
      expect(yield* namesIn(home)).toStrictEqual([])
    }))
})

describe("a stale holder", () => {
  it.scopedLive("is taken over at once: a dead socket with or without its pid, no socket, or an empty directory", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      const stale = [
        lockDirectory(holder, { pid: "4242\n" }),
        lockDirectory(holder),
        Effect.zipRight(lockDirectory(holder, { pid: "4242\n" }), run(() => fs.unlink(path.join(holder, "s")))),
        run(() => fs.mkdir(holder, { mode: 0o700 }))
      ]
      for (const make of stale) {
        yield* make
        yield* lock.take
        expect(yield* read(path.join(holder, "pid"))).toBe(`${process.pid}\n`)
        yield* lock.release
        expect(yield* namesIn(holder)).toStrictEqual([])
      }
    }))

  it.scopedLive("is told from a live one by its socket alone, and a live one's pid is read as digits only", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lockDirectory(holder, { socket: "live" })
      expect(yield* refusalOf(lock.take)).toStrictEqual(heldByPid(undefined))
      for (const content of ["", "x\n", "0\n", "12345678901\n", "-5\n", "4711x"]) {
        yield* run(() => fs.writeFile(path.join(holder, "pid"), content))
        expect([content, yield* refusalOf(lock.take)]).toStrictEqual([content, heldByPid(undefined)])
      }
      yield* run(() => fs.writeFile(path.join(holder, "pid"), " 4711 \n"))
      expect(yield* refusalOf(lock.take)).toStrictEqual(heldByPid(4711))
      // Nothing of the live holder's was touched.
      expect(yield* namesIn(holder)).toStrictEqual(["pid", "s"])
    }))
})

describe("a live holder", () => {
  it.scopedLive("is held when its process is stopped and its socket's queue is full (EAGAIN), never taken for stale", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lockDirectory(holder, { pid: "4711\n", socket: "stopped" })
      expect(yield* refusalOf(lock.take)).toStrictEqual(heldByPid(4711))
      expect(yield* namesIn(holder)).toStrictEqual(["pid", "s"])
    }))

  it.scopedLive("that cannot move its directory back on release lets the lock go all the same, and takes it again later", () =>
    Effect.gen(function*() {
      const { area, holder, home } = yield* lockScene
      const first = yield* lockFor(home)
      const second = yield* lockFor(home)
      yield* first.lock.take
      yield* first.lock.release
      const [own] = yield* namesIn(area).pipe(Effect.map((names) => names.filter((name) => name.startsWith("p-"))))
      yield* first.lock.take
      // Something of the account's own where the holder's directory goes back to.
      yield* run(() => fs.writeFile(path.join(area, own!), "in the way"))
      yield* first.lock.release
      // Its directory stays at holder, emptied (its socket closed, its pid gone): stale, so the other takes over.
      expect(yield* namesIn(holder)).toStrictEqual([])
      yield* second.lock.take
      expect(yield* refusalOf(first.lock.take)).toStrictEqual(heldByPid(process.pid))
      expect(yield* read(path.join(area, own!))).toBe("in the way")
      yield* second.lock.release
      // It makes a directory of its own anew.
      yield* first.lock.take
      expect(yield* namesIn(holder)).toStrictEqual(["pid", "s"])
    }))
})

describe("what the lock holds open", () => {
  /**
   * The process's descriptors, each with what it names. Compared as a set, not counted: the worker
   * closes descriptors of its own while the cycles run (pipes of children spawned by earlier tests,
   * handles the collector finalises), and a count fell by 17 on CI. A descriptor the lock left open
   * is one that was not there before, or names something else than before.
   */
  const descriptors = () =>
    new Set(
      readdirSync("/proc/self/fd").flatMap((fd) => {
        // The listing's own descriptor is gone by the time it is read.
        const target = Either.try(() => readlinkSync(path.join("/proc/self/fd", fd)))
        return Either.isRight(target) ? [`${fd} ${target.right}`] : []
      })
    )

  it.scopedLive("nothing is left open by takes, refusals, clearing and releases: no descriptor is open after that was not before", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const first = yield* lockFor(home)
      const second = yield* lockFor(home)
      const cycle = Effect.gen(function*() {
        yield* lockDirectory(holder, { pid: "4242\n" })
        yield* first.lock.take
        expect(yield* refusalOf(second.lock.take)).toStrictEqual(heldByPid(process.pid))
        yield* first.lock.release
      })
      yield* cycle
      const before = descriptors()
      for (let round = 0; round < 20; round++) yield* cycle
      expect([...descriptors()].filter((entry) => !before.has(entry))).toStrictEqual([])
    }))

  it.scopedLive("the holder's socket closes every connection at once: no peer can hold one open", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const { lock } = yield* lockFor(home)
      yield* lock.take
      const closed = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          // A peer that never hangs up by itself.
          const peer = net.connect({ path: path.join(holder, "s"), allowHalfOpen: true })
          peer.on("error", () => resolve("error"))
          peer.on("end", () => {
            peer.destroy()
            resolve("ended by the holder")
          })
        })
      )
      expect(closed).toBe("ended by the holder")
    }))
})

describe("the sweep at a layer's first take", () => {
  it.scopedLive("removes the directories of processes that died, and leaves those of live and starting ones", () =>
    Effect.gen(function*() {
      const { area, home } = yield* lockScene
      yield* run(() => fs.mkdir(area, { mode: 0o700 }))
      yield* lockDirectory(path.join(area, "p-4001-deadbeef"), { pid: "4001\n" })
      // Killed between its socket's bind and its pid: a refusing socket may be one not yet listening.
      yield* lockDirectory(path.join(area, "p-4002-0badf00d"))
      yield* lockDirectory(path.join(area, "p-4003-feedface"), { pid: "4003\n", socket: "live" })
      yield* run(() => fs.mkdir(path.join(area, "p-4004-00000000"), { mode: 0o700 }))
      yield* lockDirectory(path.join(area, "kept"), { pid: "4005\n" })
      const { lock } = yield* lockFor(home)
      yield* lock.take
      expect(yield* namesIn(area)).toStrictEqual([
        "holder",
        "kept",
        "p-4002-0badf00d",
        "p-4003-feedface",
        "p-4004-00000000"
      ])
      // Only at the first take.
      yield* lockDirectory(path.join(area, "p-4006-deadbeef"), { pid: "4006\n" })
      yield* lock.release
      yield* lock.take
      expect(yield* namesIn(area)).toContain("p-4006-deadbeef")
    }))
})

describe("exclusion under contention", () => {
  it.scopedLive("eight layers at once, a stale holder in the way: exactly one holds, round after round", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      const layers = yield* Effect.all(Array.from({ length: 8 }, () => lockFor(home)))
      for (let round = 0; round < 40; round++) {
        yield* lockDirectory(holder, { pid: "4242\n" })
        const outcomes = yield* Effect.all(layers.map(({ lock }) => Effect.either(lock.take)), {
          concurrency: "unbounded"
        })
        const winners = outcomes.filter(Either.isRight)
        const losers = outcomes.filter(Either.isLeft).map((outcome) => said(outcome.left))
        expect({ round, winners: winners.length, losers }).toStrictEqual({
          round,
          winners: 1,
          losers: Array.from({ length: 7 }, () => heldByPid(process.pid))
        })
        yield* Effect.forEach(layers, ({ lock }) => lock.release)
        expect(yield* namesIn(holder)).toStrictEqual([])
      }
    }))
})

describe("SignIn keeps the holder lock while it holds a sign-in", () => {
  /** SignIn with the machine-wide lock, as one process of buddy has it. */
  const signInOn = (fake: FakeGateway) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        buddyServices(HolderLockLive).pipe(
          Layer.provideMerge(JournalCapture),
          Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: fake.home, deadlines: testDeadlines })),
          Layer.orDie
        ),
        scope
      )
      return Context.get(context, SignIn)
    })

  it.scopedLive("through a replacing start, a status read and a cancel: the other process is blocked until none is held", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const serve = yield* signInOn(fake)
      const terminal = yield* signInOn(fake)
      const blockedNow = Effect.map(Effect.flip(terminal.signOut), (refusal) => refusal.reason)
      yield* serve.start
      const second = yield* serve.start
      expect(yield* blockedNow).toBe("sign-in-running")
      expect(yield* serve.current).toBe("pending")
      expect(yield* blockedNow).toBe("sign-in-running")
      expect(yield* serve.cancel(second.handle)).toStrictEqual({ state: "cancelled" })
      expect(yield* terminal.signOut).toStrictEqual({ state: "signed-out" })
      // A sign-out holds the lock only while it runs: the first process starts again.
      expect((yield* serve.start).state).toBe("pending")
    }))
})
