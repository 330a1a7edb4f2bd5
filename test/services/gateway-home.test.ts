// C1.1 edges of the home: an empty override is no override, and a home path that cannot be
// resolved for any reason but absence is unsafe, not "not running".
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
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

  it.scopedLive("a home path through a regular file is unsafe-home, not not-running", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* Effect.promise(() => fs.writeFile(path.join(dir, "file"), "x"))
      const error = yield* Effect.flip(locate(path.join(dir, "file", "home")))
      expect(error.reason).toBe("unsafe-home")
    }))

  it.scopedLive("a home that is a symlink loop is unsafe-home", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* Effect.promise(() => fs.symlink(path.join(dir, "b"), path.join(dir, "a")))
      yield* Effect.promise(() => fs.symlink(path.join(dir, "a"), path.join(dir, "b")))
      const error = yield* Effect.flip(locate(path.join(dir, "a")))
      expect(error.reason).toBe("unsafe-home")
    }))
})
