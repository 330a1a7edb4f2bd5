// buddy's own directories, made or checked with the rules C1 applies to Hermes's socket directory:
// a real directory (no link), ours, closed to group and others: the holder lock's area, beside Hermes's home
// (C4.1, D39: lock-area.ts), is checked the same way.
import { Data, Effect } from "effect"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import { fsCall } from "./errno.js"

/** Why a directory cannot be buddy's: each a closed reason, with the path it is about. */
export class DirectoryUnsafe extends Data.TaggedError("DirectoryUnsafe")<{
  readonly reason: "missing-parent" | "link" | "not-directory" | "foreign" | "open" | "unusable"
  /** The directory (its parent, for `missing-parent`). */
  readonly path: string
  /** The owner's uid (`foreign`) or the mode found (`open`). */
  readonly found?: number
  /** The system's own code, for `unusable`. */
  readonly code?: string
}> {}

// Stryker disable next-line OptionalChaining,LogicalOperator,UnaryOperator: Linux always has getuid; the fallback (no uid owns anything) is for the type
export const ownUid = () => process.getuid?.() ?? -1

const unsafe = (reason: DirectoryUnsafe["reason"], path: string, found?: number) =>
  new DirectoryUnsafe({ reason, path, ...(found === undefined ? {} : { found }) })

const unusable = (path: string) => (code: string) => new DirectoryUnsafe({ reason: "unusable", path, code })

/**
 * The directory, made 0700 if it is missing (only its last part: a parent that is missing is a
 * mistake to say, not to paper over), then checked whether made or found.
 */
export const privateDirectory = (directory: string): Effect.Effect<void, DirectoryUnsafe> =>
  Effect.gen(function*() {
    // Made here, or found (EEXIST: whatever is there, a link included, is checked below).
    // Stryker disable next-line ObjectLiteral: the chmod that follows sets the mode; this one only keeps the moment before it closed
    const made = yield* fsCall(() => fsp.mkdir(directory, { mode: 0o700 })).pipe(
      // Stryker disable next-line BooleanLiteral: tested where a process may set its umask (test/boundary/listener-trust.test.ts), not in the mutation suite's workers
      Effect.as(true),
      Effect.catchIf((code) => code === "EEXIST", () => Effect.succeed(false)),
      Effect.mapError((code) =>
        code === "ENOENT" ? unsafe("missing-parent", nodePath.dirname(directory)) : unusable(directory)(code)
      )
    )
    // The umask may have taken bits away (0500 would keep us out); it never adds any.
    // Stryker disable next-line ConditionalExpression,BlockStatement,ArrowFunction: tested where a process may set its umask (test/boundary/listener-trust.test.ts), not in the mutation suite's workers
    if (made) yield* fsCall(() => fsp.chmod(directory, 0o700)).pipe(Effect.mapError(unusable(directory)))
    const stats = yield* fsCall(() => fsp.lstat(directory)).pipe(Effect.mapError(unusable(directory)))
    if (stats.isSymbolicLink()) return yield* Effect.fail(unsafe("link", directory))
    if (!stats.isDirectory()) return yield* Effect.fail(unsafe("not-directory", directory))
    if (stats.uid !== ownUid()) return yield* Effect.fail(unsafe("foreign", directory, stats.uid))
    if ((stats.mode & 0o077) !== 0) return yield* Effect.fail(unsafe("open", directory, stats.mode & 0o777))
  })
