// HolderLockLive (C4.1, D23) in one process: two layers are two open file descriptions, which
// flock(2) keeps apart as it keeps two processes apart. The lock goes on release and on the layer's
// end; a runtime directory or lock file that is not buddy's own refuses the lock instead of failing
// open. Across real processes (kill -9, another uid): test/boundary/holder-lock.test.ts.
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { type FakeGateway, makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HolderLock, HolderLockLive, lockName } from "../../src/services/HolderLock.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { buddyServices } from "../../src/services/layers.js"
import { runtimeDirectory } from "../../src/services/private-directory.js"
import { SignIn } from "../../src/services/SignIn.js"
import { testDeadlines } from "../support/buddy.js"

/** A home and a runtime directory of the test's own; XDG_RUNTIME_DIR points the lock there. */
const scene = Effect.acquireRelease(
  Effect.promise(async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-holder-"))
    await fs.chmod(root, 0o700)
    const home = path.join(root, "hermes")
    await fs.mkdir(home, { mode: 0o700 })
    const before = process.env["XDG_RUNTIME_DIR"]
    process.env["XDG_RUNTIME_DIR"] = root
    return { root, home, before }
  }),
  ({ before, root }) =>
    Effect.promise(async () => {
      if (before === undefined) delete process.env["XDG_RUNTIME_DIR"]
      else process.env["XDG_RUNTIME_DIR"] = before
      await fs.rm(root, { recursive: true, force: true })
    })
)

/** One lock layer, as one process has, with its own scope. */
const lockFor = (home: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      HolderLockLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home }))),
      scope
    )
    return { lock: Context.get(context, HolderLock), scope }
  })

describe("the holder lock", () => {
  it.scopedLive("is exclusive between two holders, names the holder, and goes on release and on the layer's end", () =>
    Effect.gen(function*() {
      const { home, root } = yield* scene
      const first = yield* lockFor(home)
      const second = yield* lockFor(home)
      yield* first.lock.take
      yield* first.lock.take
      const busy = yield* Effect.flip(second.lock.take)
      expect(busy.holder).toStrictEqual(Option.some(process.pid))
      expect(busy.unusable).toStrictEqual(Option.none())
      const file = path.join(root, "buddy", lockName(yield* Effect.promise(() => fs.realpath(home))))
      expect(yield* Effect.promise(() => fs.readFile(file, "utf8"))).toBe(`${process.pid}\n`)
      yield* first.lock.release
      yield* second.lock.take
      expect(Exit.isFailure(yield* Effect.exit(first.lock.take))).toBe(true)
      yield* Scope.close(second.scope, Exit.void)
      yield* first.lock.take
      yield* Scope.close(first.scope, Exit.void)
    }))

  it.scopedLive("refuses a runtime directory others may enter, and a lock file that is a link", () =>
    Effect.gen(function*() {
      const { home, root } = yield* scene
      const { lock } = yield* lockFor(home)
      yield* Effect.promise(() => fs.mkdir(path.join(root, "buddy"), { mode: 0o700 }))
      yield* Effect.promise(() => fs.chmod(path.join(root, "buddy"), 0o755))
      const open = yield* Effect.flip(lock.take)
      expect(open.unusable).toStrictEqual(Option.some(`${path.join(root, "buddy")}: open`))
      yield* Effect.promise(() => fs.chmod(path.join(root, "buddy"), 0o700))
      const file = path.join(root, "buddy", lockName(yield* Effect.promise(() => fs.realpath(home))))
      yield* Effect.promise(() => fs.symlink(path.join(root, "elsewhere"), file))
      const linked = yield* Effect.flip(lock.take)
      expect(linked.unusable).toStrictEqual(Option.some(`${file}: ELOOP`))
      yield* Effect.promise(() => fs.lstat(path.join(root, "elsewhere")).catch(() => "absent")).pipe(
        Effect.map((found) => expect(found).toBe("absent"))
      )
    }))
})

describe("taking the lock", () => {
  it.scopedLive("is refused, never skipped, where flock cannot run or answers neither taken nor busy", () =>
    Effect.gen(function*() {
      const { home, root } = yield* scene
      const { lock } = yield* lockFor(home)
      const path0 = process.env["PATH"]
      yield* Effect.addFinalizer(() => Effect.sync(() => void (process.env["PATH"] = path0)))
      process.env["PATH"] = path.join(root, "nowhere")
      expect((yield* Effect.flip(lock.take)).unusable).toStrictEqual(Option.some("flock (util-linux) could not be run"))
      const bin = path.join(root, "bin")
      yield* Effect.promise(() => fs.mkdir(bin))
      yield* Effect.promise(() => fs.writeFile(path.join(bin, "flock"), "#!/bin/sh\nexit 66\n", { mode: 0o755 }))
      process.env["PATH"] = bin
      expect((yield* Effect.flip(lock.take)).unusable).toStrictEqual(Option.some("flock (util-linux) could not be run"))
    }))

  it.scopedLive("is one lock for a home and the link to it, and for a home that does not exist yet", () =>
    Effect.gen(function*() {
      const { home, root } = yield* scene
      const linked = path.join(root, "linked-home")
      yield* Effect.promise(() => fs.symlink(home, linked))
      const byReal = yield* lockFor(home)
      const byLink = yield* lockFor(linked)
      yield* byReal.lock.take
      expect((yield* Effect.flip(byLink.lock.take)).holder).toStrictEqual(Option.some(process.pid))
      const missing = path.join(root, "not-yet")
      const first = yield* lockFor(missing)
      const second = yield* lockFor(missing)
      yield* first.lock.take
      expect((yield* Effect.flip(second.lock.take)).holder).toStrictEqual(Option.some(process.pid))
      expect(lockName(missing)).toMatch(/^holder-[0-9a-f]{16}\.lock$/)
      expect(yield* Effect.promise(() => fs.readdir(path.join(root, "buddy")))).toContain(lockName(missing))
    }))
})

describe("the lock file", () => {
  it.scopedLive("is refused when it is open to others or another account's, and names no holder from content it did not write", () =>
    Effect.gen(function*() {
      const { home, root } = yield* scene
      const first = yield* lockFor(home)
      const second = yield* lockFor(home)
      const directory = path.join(root, "buddy")
      const file = path.join(directory, lockName(yield* Effect.promise(() => fs.realpath(home))))
      yield* Effect.promise(() => fs.mkdir(directory, { mode: 0o700 }))
      yield* Effect.promise(() => fs.writeFile(file, "", { mode: 0o644 }))
      yield* Effect.promise(() => fs.chmod(file, 0o644))
      const open = yield* Effect.flip(first.lock.take)
      expect(open.unusable).toStrictEqual(Option.some(`${file} is not a private file of this account`))
      yield* Effect.promise(() => fs.chmod(file, 0o600))
      if (process.getuid?.() === 0) {
        yield* Effect.promise(() => fs.chown(file, 65534, 65534))
        const foreign = yield* Effect.flip(first.lock.take)
        expect(foreign.unusable).toStrictEqual(Option.some(`${file} is not a private file of this account`))
        yield* Effect.promise(() => fs.chown(file, 0, 0))
      }
      yield* first.lock.take
      for (const content of ["", "x\n", "0\n", "12345678901\n", "-5\n"]) {
        yield* Effect.promise(() => fs.writeFile(file, content))
        const busy = yield* Effect.flip(second.lock.take)
        expect([content, busy.holder]).toStrictEqual([content, Option.none()])
      }
      yield* Effect.promise(() => fs.writeFile(file, " 4711 \n"))
      expect((yield* Effect.flip(second.lock.take)).holder).toStrictEqual(Option.some(4711))
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
      const before = process.env["XDG_RUNTIME_DIR"]
      process.env["XDG_RUNTIME_DIR"] = path.dirname(fake.home)
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (before === undefined) delete process.env["XDG_RUNTIME_DIR"]
          else process.env["XDG_RUNTIME_DIR"] = before
        })
      )
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

describe("buddy's runtime directory", () => {
  it("is $XDG_RUNTIME_DIR/buddy, else /run/user/UID/buddy where systemd made it, else <tmpdir>/buddy-UID", () => {
    const uid = process.getuid?.() ?? -1
    expect(runtimeDirectory({ XDG_RUNTIME_DIR: "/run/user/7" }, () => false)).toBe("/run/user/7/buddy")
    expect(runtimeDirectory({ XDG_RUNTIME_DIR: "relative" }, (p) => p === `/run/user/${uid}`)).toBe(
      `/run/user/${uid}/buddy`
    )
    expect(runtimeDirectory({}, () => false)).toBe(path.join(os.tmpdir(), `buddy-${uid}`))
  })
})
