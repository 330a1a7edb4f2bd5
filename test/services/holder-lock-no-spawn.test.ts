// The holder lock runs no outside program (C4.1, D39): every way Node has to start a process is
// watched while two layers take, contend for, clear and release the lock, and none may be used. The
// lock it replaced spawned util-linux's flock(1) at every take, which is missing on macOS and in
// minimal images, and cost a process per sign-out.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import type * as ChildProcess from "node:child_process"
import { vi } from "vitest"
import { heldByPid, lockDirectory, lockFor, lockScene, refusalOf } from "./support/lock-scene.js"

const started = vi.hoisted(() => [] as Array<string>)

vi.mock("node:child_process", async (importOriginal) => {
  const real = await importOriginal<typeof ChildProcess>()
  const watched = <F extends (...args: Array<never>) => unknown>(name: string, run: F) =>
    ((...args: Parameters<F>) => {
      started.push(name)
      return run(...args)
    }) as unknown as F
  return {
    ...real,
    spawn: watched("spawn", real.spawn),
    spawnSync: watched("spawnSync", real.spawnSync),
    exec: watched("exec", real.exec),
    execSync: watched("execSync", real.execSync),
    execFile: watched("execFile", real.execFile),
    execFileSync: watched("execFileSync", real.execFileSync),
    fork: watched("fork", real.fork)
  }
})

describe("the holder lock", () => {
  it.scopedLive("starts no process to take, refuse, clear or release it", () =>
    Effect.gen(function*() {
      const { holder, home } = yield* lockScene
      yield* lockDirectory(holder, { pid: "4242\n" })
      const first = yield* lockFor(home)
      const second = yield* lockFor(home)
      for (let round = 0; round < 20; round++) {
        yield* first.lock.take
        expect(yield* refusalOf(second.lock.take)).toStrictEqual(heldByPid(process.pid))
        yield* first.lock.release
        yield* second.lock.take
        yield* second.lock.release
      }
      yield* first.lock.take
      yield* Scope.close(first.scope, Exit.void)
      yield* Scope.close(second.scope, Exit.void)
      expect(started).toStrictEqual([])
    }))
})
