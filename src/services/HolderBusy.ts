// Why the holder lock (C4.1, D39) was not taken: another process holds it (`held`, answered
// `sign-in-running`), or it cannot be taken at all (`unavailable`, answered `lock-unavailable`, never
// `sign-in-running`: nobody holds it, something is in its way). The rest is for the CLI's words only;
// answers and the journal carry the closed reason.
import { Data, Option } from "effect"

/** What is in the lock's way, each said with its fix in the CLI's words (src/cli/words.ts). */
export type LockProblem =
  /** A symbolic link where buddy's directory or lock file belongs. */
  | "link"
  /** Something other than a directory where buddy's directory belongs. */
  | "not-directory"
  /** Something other than a regular file where buddy's lock file belongs (macOS, BSD). */
  | "not-file"
  /** A lock file with more than one name (macOS, BSD): another name could be someone else's. */
  | "hard-link"
  /** Another account's (`found`: its uid). */
  | "foreign"
  /** Open to group or others (`found`: its mode). */
  | "open"
  /** A place of the lock holding entries buddy did not put there, so it cannot be cleared. */
  | "unknown-entries"
  /** The system refused (`code`: its errno code, EACCES or EROFS say most). */
  | "system"
  /** Linux without `/proc/self/fd`, which the lock is addressed through. */
  | "no-proc"
  /** A system buddy has no lock for (`code`: its `process.platform`). */
  | "unsupported"

/** Where the lock could not be taken, and why. */
export interface LockPlace {
  readonly path: string
  readonly problem: LockProblem
  readonly found?: number
  readonly code?: string
}

export class HolderBusy extends Data.TaggedError("HolderBusy")<{
  readonly reason: "held" | "unavailable"
  /** `held`: the holder's process id, when it could be read. */
  readonly holder: Option.Option<number>
  /** `unavailable`: where and why. */
  readonly place: Option.Option<LockPlace>
}> {}

/** Another process holds the lock. */
export const heldBy = (holder: Option.Option<number>) =>
  new HolderBusy({ reason: "held", holder, place: Option.none() })

/** The lock cannot be taken: `path` is in the way for `problem`. */
export const lockUnavailable = (path: string, problem: LockProblem, detail: { found?: number; code?: string } = {}) =>
  new HolderBusy({ reason: "unavailable", holder: Option.none(), place: Option.some({ path, problem, ...detail }) })
