// The way to the socket (C6 "Who may reach it", D56): every directory from the socket's up to `/`.
// The socket's own directory keeps other accounts away from the name, but only if no directory
// above it is another account's to rename or replace: whoever may write in one of them may swap
// buddy's directory for its own, with its own socket in it. With a group, each of them must also
// let that group pass, or "listening" would be said of a socket no proxy can connect to (a 0700
// `$XDG_RUNTIME_DIR` above it: Caddy's 502). Both the way as written and the way a link leads are
// checked: a link is another account's to repoint if its directory is.
import { Effect } from "effect"
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import { fsCall } from "../services/errno.js"
import { ownUid } from "../services/private-directory.js"
import { SocketPlaceUnsafe } from "./socket-place-unsafe.js"
import type { Sharing } from "./who-may-reach.js"

/** `path` and each directory above it, up to `/`. */
export const wayUp = (path: string): ReadonlyArray<string> => {
  const up = nodePath.dirname(path)
  return up === path ? [path] : [path, ...wayUp(up)]
}

const refusal = (reason: SocketPlaceUnsafe["reason"], path: string, found: number) =>
  new SocketPlaceUnsafe({ reason, path, found })

/** Whether members of `gid` may pass through a directory: its others' search bit, or its group's if it is theirs. */
export const groupPasses = (stats: Pick<Stats, "gid" | "mode">, gid: number): boolean =>
  (stats.mode & 0o001) !== 0 || (stats.gid === gid && (stats.mode & 0o010) !== 0)

/**
 * One directory on the way, judged: another account's (not this one's, not root's), or open to
 * writes by group or others without the sticky bit (`/tmp`'s 1777 keeps each entry its owner's),
 * is refused; with a group, one it cannot pass is too.
 */
const judged = (path: string, stats: Stats, sharing: Sharing): Effect.Effect<void, SocketPlaceUnsafe> => {
  if (stats.uid !== ownUid() && stats.uid !== 0) return Effect.fail(refusal("way-foreign", path, stats.uid))
  // A link's own mode means nothing; its directory, the next on the way, decides who may repoint it.
  if (stats.isSymbolicLink()) return Effect.void
  if ((stats.mode & 0o022) !== 0 && (stats.mode & 0o1000) === 0) {
    return Effect.fail(refusal("way-open", path, stats.mode & 0o7777))
  }
  if (sharing._tag === "Group" && !groupPasses(stats, sharing.gid)) {
    return Effect.fail(refusal("way-closed", path, stats.mode & 0o7777))
  }
  return Effect.void
}

const statWith = (look: (path: string) => Promise<Stats>) => (path: string) =>
  fsCall(() => look(path)).pipe(
    Effect.mapError((code) =>
      code === "ENOENT"
        ? new SocketPlaceUnsafe({ reason: "directory-missing", path })
        : new SocketPlaceUnsafe({ reason: "unusable", path, code })
    )
  )

/**
 * Checks the way from `directory` (the first directory above buddy's own, or a handed socket's own
 * directory) up to `/`, as written and as its links lead.
 */
export const wayClear = (directory: string, sharing: Sharing): Effect.Effect<void, SocketPlaceUnsafe> =>
  Effect.gen(function*() {
    for (const path of wayUp(directory)) yield* judged(path, yield* statWith(fsp.lstat)(path), sharing)
    const real = yield* fsCall(() => fsp.realpath(directory)).pipe(
      Effect.mapError((code) => new SocketPlaceUnsafe({ reason: "unusable", path: directory, code }))
    )
    // Stryker disable next-line ConditionalExpression: without a link on the way the real way is the written one, checked again to the same end
    if (real !== directory) {
      for (const path of wayUp(real)) yield* judged(path, yield* statWith(fsp.stat)(path), sharing)
    }
  })
