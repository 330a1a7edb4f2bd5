// C1's walk in as few waits as it can (D47): when the configured home is already its real path, the
// home and its socket are looked at once, beside the realpath; a symlinked home is looked at again at
// its real path, and only there is the verdict read. Node's own fs/promises is watched: what the walk
// asks the thread pool for, path by path.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { promises } from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as nodePath from "node:path"
import { noDeadline } from "../../src/services/deadline.js"
import { locate } from "../../src/services/gateway-path.js"
import { listen, makeDir, symlink, tempRoot } from "./support/gateway-fixtures.js"

/**
 * Runs `use` while every lstat and realpath is recorded, in the order asked, each with how many calls
 * asked before it were still on their way (asked together: not yet settled); restored however it ends.
 */
const watchingFs = <A, E, R>(use: (asked: ReadonlyArray<string>) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const asked: Array<string> = []
      let onTheirWay = 0
      const original = { lstat: promises.lstat, realpath: promises.realpath }
      const watch = <F extends (path: never, ...rest: never) => unknown>(name: string, call: F) =>
        ((path: string, ...rest: Array<unknown>) => {
          asked.push(`${name} ${path}, ${onTheirWay} on their way`)
          onTheirWay += 1
          const settled = () => {
            onTheirWay -= 1
          }
          const made = (call as unknown as (...args: Array<unknown>) => Promise<unknown>)(path, ...rest)
          made.then(settled, settled)
          return made
        }) as unknown as F
      promises.lstat = watch("lstat", original.lstat)
      promises.realpath = watch("realpath", original.realpath)
      syncBuiltinESMExports()
      return { asked, original }
    }),
    ({ asked }) => use(asked),
    ({ original }) =>
      Effect.sync(() => {
        promises.lstat = original.lstat
        promises.realpath = original.realpath
        syncBuiltinESMExports()
      })
  )

/** A private home with a listening gateway.sock, in a temporary root. */
const homeWithSocket = Effect.gen(function*() {
  const root = yield* tempRoot
  const home = yield* makeDir(nodePath.join(root, "home"), 0o700)
  yield* listen(nodePath.join(home, "gateway.sock"))
  return { root, home }
})

/** The walk of `given`, watched: where it found the gateway, and what it asked, in order. */
const walkWatched = (given: string) =>
  watchingFs((asked) => Effect.map(locate(given, noDeadline), (located) => ({ asked: [...asked], located })))

describe("C1's walk", () => {
  it.scoped("a home that is its own real path: one realpath and the two lstats, asked together, once", () =>
    Effect.gen(function*() {
      const { home } = yield* homeWithSocket
      const { asked, located } = yield* walkWatched(home)
      expect(located).toStrictEqual({ home, socket: nodePath.join(home, "gateway.sock") })
      expect(asked).toStrictEqual([
        `realpath ${home}, 0 on their way`,
        `lstat ${home}, 1 on their way`,
        `lstat ${home}/gateway.sock, 2 on their way`
      ])
    }))

  it.scoped("a symlinked home: the link's path is looked at with the realpath, then the real path, whose verdict counts", () =>
    Effect.gen(function*() {
      const { home, root } = yield* homeWithSocket
      const link = nodePath.join(root, "link")
      yield* symlink(home, link)
      const { asked, located } = yield* walkWatched(link)
      expect(located).toStrictEqual({ home, socket: nodePath.join(home, "gateway.sock") })
      expect(asked).toStrictEqual([
        `realpath ${link}, 0 on their way`,
        `lstat ${link}, 1 on their way`,
        `lstat ${link}/gateway.sock, 2 on their way`,
        `lstat ${home}, 0 on their way`,
        `lstat ${home}/gateway.sock, 1 on their way`
      ])
    }))
})
