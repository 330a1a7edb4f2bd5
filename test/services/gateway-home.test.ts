// C1.1 edges of the home: an empty override is no override, and a home path that cannot be
// resolved for any reason but absence is unsafe, not "not running".
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { noDeadline } from "../../src/services/deadline.js"
import { configuredHome, locate } from "../../src/services/gateway-path.js"

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "buddy-home-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const withEnv = (entries: ReadonlyArray<[string, string]>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(entries)))

describe("the home", () => {
  it.effect("an empty --home is no override: HERMES_HOME is used", () =>
    Effect.gen(function*() {
      expect(yield* configuredHome("").pipe(withEnv([["HERMES_HOME", "/srv/hermes"]]))).toBe("/srv/hermes")
      expect(yield* configuredHome("/given").pipe(withEnv([["HERMES_HOME", "/srv/hermes"]]))).toBe("/given")
    }))

  it.effect("an empty HERMES_HOME is none: the home is ~/.hermes", () =>
    Effect.gen(function*() {
      expect(yield* configuredHome(undefined).pipe(withEnv([["HERMES_HOME", ""], ["HOME", "/home/op"]]))).toBe(
        "/home/op/.hermes"
      )
    }))

  it.effect("without HOME, or with an empty one, the home is the OS account's: <its home>/.hermes", () =>
    Effect.gen(function*() {
      const account = path.join(os.homedir(), ".hermes")
      expect(yield* configuredHome(undefined).pipe(withEnv([]))).toBe(account)
      expect(yield* configuredHome(undefined).pipe(withEnv([["HOME", ""]]))).toBe(account)
    }))

  it.scopedLive("a socket path the system cannot look up (too long) is unsafe-socket, and no pointer is read", () =>
    Effect.gen(function*() {
      // A home of our own, 4 090 bytes long: "/gateway.sock" after it passes PATH_MAX (4 096).
      let home = yield* tempDir
      while (home.length < 4090 - 210) home = path.join(home, "d".repeat(200))
      home = path.join(home, "h".repeat(4090 - home.length - 1))
      expect(home).toHaveLength(4090)
      yield* Effect.promise(() => fs.mkdir(home, { recursive: true, mode: 0o700 }))
      const error = yield* Effect.flip(locate(home, noDeadline))
      expect(error.reason).toBe("unsafe-socket")
    }))

  it.scopedLive("a home path through a regular file is unsafe-home, not not-running", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* Effect.promise(() => fs.writeFile(path.join(dir, "file"), "x"))
      const error = yield* Effect.flip(locate(path.join(dir, "file", "home"), noDeadline))
      expect(error.reason).toBe("unsafe-home")
    }))

  it.scopedLive("a home that is a symlink loop is unsafe-home", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* Effect.promise(() => fs.symlink(path.join(dir, "b"), path.join(dir, "a")))
      yield* Effect.promise(() => fs.symlink(path.join(dir, "a"), path.join(dir, "b")))
      const error = yield* Effect.flip(locate(path.join(dir, "a"), noDeadline))
      expect(error.reason).toBe("unsafe-home")
    }))
})
