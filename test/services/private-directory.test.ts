// buddy's own directories (C6 "Who may reach it"; D22; the holder lock's area, D39): made 0700 when missing, whatever
// the umask, and otherwise taken only as a real directory of ours closed to group and others; each
// refusal its own closed reason with the path it is about.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { privateDirectory } from "../../src/services/private-directory.js"

const root = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "buddy-private-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** The refusal's own members: `found` and `code` are there only where the reason has them. */
const refusal = (directory: string) =>
  Effect.map(Effect.flip(privateDirectory(directory)), (error) =>
    Object.fromEntries(
      Object.entries(error).filter(([key]) => ["reason", "path", "found", "code"].includes(key))
    ))

describe("a private directory", () => {
  // Under a umask that takes the owner's bits too: test/boundary/listener-trust.test.ts, in a process
  // of its own (a worker thread may not set its umask).
  it.scopedLive("is made 0700 when missing", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* root, "made")
      expect(yield* Effect.exit(privateDirectory(dir))).toStrictEqual(Exit.void)
      expect(((yield* Effect.promise(() => fs.lstat(dir))).mode) & 0o777).toBe(0o700)
      // Found the second time, and taken as it is.
      expect(yield* Effect.exit(privateDirectory(dir))).toStrictEqual(Exit.void)
    }))

  it.scopedLive("refuses each unsafe place with its reason and the path it is about", () =>
    Effect.gen(function*() {
      const base = yield* root
      expect(yield* refusal(path.join(base, "none", "dir"))).toStrictEqual({
        reason: "missing-parent",
        path: path.join(base, "none")
      })
      yield* Effect.promise(() => fs.mkdir(path.join(base, "real"), { mode: 0o700 }))
      yield* Effect.promise(() => fs.symlink(path.join(base, "real"), path.join(base, "link")))
      expect(yield* refusal(path.join(base, "link"))).toStrictEqual({
        reason: "link",
        path: path.join(base, "link")
      })
      yield* Effect.promise(() => fs.writeFile(path.join(base, "file"), ""))
      expect(yield* refusal(path.join(base, "file"))).toStrictEqual({
        reason: "not-directory",
        path: path.join(base, "file")
      })
      expect(yield* refusal(path.join(base, "file", "below"))).toStrictEqual({
        reason: "unusable",
        path: path.join(base, "file", "below"),
        code: "ENOTDIR"
      })
      yield* Effect.promise(() => fs.mkdir(path.join(base, "open"), { mode: 0o700 }))
      yield* Effect.promise(() => fs.chmod(path.join(base, "open"), 0o750))
      expect(yield* refusal(path.join(base, "open"))).toStrictEqual({
        reason: "open",
        path: path.join(base, "open"),
        found: 0o750
      })
      if (process.getuid?.() === 0) {
        yield* Effect.promise(() => fs.mkdir(path.join(base, "theirs"), { mode: 0o700 }))
        yield* Effect.promise(() => fs.chown(path.join(base, "theirs"), 65534, 65534))
        expect(yield* refusal(path.join(base, "theirs"))).toStrictEqual({
          reason: "foreign",
          path: path.join(base, "theirs"),
          found: 65534
        })
      }
    }))
})
