// The holder lock on Linux (D39): a listening Unix socket inside a directory that is swapped in
// whole, addressed by descriptor. Each process keeps a directory of its own in the lock's area
// (`p-<pid>-<8 hex>`: its socket `s`, listening while the process lives, and `pid`), and takes the
// lock by renaming that directory to `holder`: the kernel renames a directory only onto a name
// that is absent or an empty directory, so one rename is the compare-and-swap, and a live holder's
// directory is never empty. A holder killed outright leaves its directory; its socket then refuses
// every connection, and whoever finds it so empties it through a descriptor of its own (never by
// name: the name may meanwhile be another process's) and removes it only if empty. No process is
// run, nothing depends on the session's environment, and the socket's path is short whatever the
// home's length, since it is reached through /proc/self/fd.
import { Effect, Either, Option, Ref } from "effect"
import type { Scope } from "effect"
import { randomBytes } from "node:crypto"
import { constants as fsConstants, type Stats } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import * as fsp from "node:fs/promises"
import * as net from "node:net"
import * as nodePath from "node:path"
import { errnoOf, fsCall } from "./errno.js"
import { heldBy, type HolderBusy, lockUnavailable } from "./HolderBusy.js"
import { type Area, type AreaLock, holderAt, type Holding } from "./lock-area.js"
import { ownUid } from "./private-directory.js"

/** The lock's name in the area: whose directory is here holds it. */
export const holderName = "holder"

/** How many times a stale holder is cleared and the rename tried again before the place is said to be in the way. */
const rounds = 4

/** This process's own directory, open: `through` names it by descriptor wherever it is renamed to. */
interface Own {
  readonly area: string
  readonly path: string
  readonly handle: FileHandle
  readonly through: string
  readonly server: net.Server
}

/** A holder found alive, and its process id when it could be read. */
interface Live {
  readonly holder: Option.Option<number>
}

const system = (path: string) => (code: string) => lockUnavailable(path, "system", { code })

const openDirectory = (path: string) =>
  fsCall(() => fsp.open(path, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW))

const closeHandle = (handle: FileHandle) => Effect.ignore(fsCall(() => handle.close()))

/** Removes a directory only if it is empty, so never one a live process is in: it always holds its socket. */
const removeIfEmpty = (path: string) => Effect.ignore(fsCall(() => fsp.rmdir(path)))

/** `rename`'s errno code, or none when it renamed. */
const rename = (from: string, to: string) => fsCall(() => fsp.rename(from, to)).pipe(Effect.flip, Effect.option)

/**
 * A socket that says only that its process lives: every connection is closed as it comes, so no
 * peer can hold one open. It does not keep the process alive. Its error listener stays: before the
 * socket listens it is the bind's failure; after, an accept's (EMFILE), which must not end the
 * process, and which Effect does not hear (it takes an async's first resume only).
 */
const listen = (path: string) =>
  Effect.async<net.Server, string>((resume) => {
    const server = net.createServer((connection) => connection.destroy())
    server.on("error", (error) => resume(Effect.fail(errnoOf(error))))
    server.listen(path, () => {
      server.unref()
      resume(Effect.succeed(server))
    })
  })

/** Closes the server; libuv unlinks its socket by the path it was bound to, through our descriptor. */
const closeServer = (server: net.Server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))

/** Connects and hangs up: `connected`, or the errno code of why not. */
const knock = (path: string) =>
  Effect.async<string>((resume) => {
    const socket = net.connect({ path })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed("connected"))
    })
    socket.once("error", (error) => resume(Effect.succeed(errnoOf(error))))
  })

/** Whether `path` is there and of the kind `is` says. */
const isThere = (path: string, is: (stats: Stats) => boolean) =>
  fsCall(() => fsp.lstat(path)).pipe(Effect.option, Effect.map(Option.exists(is)))

/** What buddy puts in its directory, taken out through the descriptor: a socket `s` only if it is one. */
const empty = (through: string) =>
  Effect.gen(function*() {
    if (yield* isThere(`${through}/s`, (stats) => stats.isSocket())) {
      yield* Effect.ignore(fsCall(() => fsp.unlink(`${through}/s`)))
    }
    yield* Effect.ignore(fsCall(() => fsp.unlink(`${through}/pid`)))
  })

/**
 * Why `path` could not be opened as a directory: something else is there (a link, or not a
 * directory), or it is gone (none: the caller looks again), or the system refused.
 */
const unopened = (path: string, code: string): Effect.Effect<Option.Option<Live>, HolderBusy> => {
  // Stryker disable next-line ConditionalExpression: as `true` it would take every other code for ENOTDIR, and those are races (ENOENT below) or exhaustion (EMFILE), which no test can time
  if (code === "ENOTDIR") {
    return Effect.flatMap(
      isThere(path, (stats) => stats.isSymbolicLink()),
      (link) => Effect.fail(lockUnavailable(path, link ? "link" : "not-directory"))
    )
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: gone between the failed rename and this look (a holder let go, or a clearer removed it): a race no test can time
  if (code === "ENOENT") return Effect.succeedNone
  return Effect.fail(system(path)(code))
}

/**
 * Looks at a directory of the lock through a descriptor: another account's or open to others is in
 * the way; a socket that answers (or whose queue is full: a stopped process) is a live holder; one
 * that refuses, or none, is stale: emptied, then removed if that left it empty. `orphan` (the sweep
 * of other processes' own directories): only one whose process wrote its pid, which it does once its
 * socket listens, since a socket refuses between its bind and its listen; any other is left alone.
 */
const judge = (handle: FileHandle, through: string, path: string, orphan: boolean) =>
  Effect.gen(function*() {
    const stats = yield* fsCall(() => handle.stat()).pipe(Effect.mapError(system(path)))
    if (stats.uid !== ownUid()) return yield* Effect.fail(lockUnavailable(path, "foreign", { found: stats.uid }))
    if ((stats.mode & 0o077) !== 0) {
      return yield* Effect.fail(lockUnavailable(path, "open", { found: stats.mode & 0o777 }))
    }
    if (orphan && !(yield* isThere(`${through}/pid`, (found) => found.isFile()))) return Option.none<Live>()
    const knocked = yield* knock(`${through}/s`)
    if (knocked === "connected" || knocked === "EAGAIN") {
      return Option.some<Live>({ holder: yield* holderAt(`${through}/pid`) })
    }
    // Stryker disable next-line ConditionalExpression: any other code (EACCES, a socket of ours made under a umask that took its owner's write bit, for an account other than root) cannot arise where this suite runs, as root
    if (knocked !== "ECONNREFUSED" && knocked !== "ENOENT") return yield* Effect.fail(system(path)(knocked))
    yield* empty(through)
    yield* removeIfEmpty(path)
    return Option.none<Live>()
  })

/** A live holder at `path`, or none: anything stale there is emptied and removed (by name, only if empty). */
const examine = (path: string, descriptors: string, orphan: boolean) =>
  Effect.flatMap(
    Effect.either(openDirectory(path)),
    Either.match({
      onLeft: (code) => unopened(path, code),
      onRight: (handle) =>
        judge(handle, `${descriptors}/${handle.fd}`, path, orphan).pipe(Effect.ensuring(closeHandle(handle)))
    })
  )

/**
 * A live holder at `path`, looked at as `judge` looks but changing nothing: a stale holder is left
 * for the next take to clear, and anything not ours, or that cannot be looked at, is no holder.
 */
const look = (path: string, descriptors: string): Effect.Effect<Option.Option<Holding>> =>
  Effect.acquireUseRelease(
    openDirectory(path),
    (handle) =>
      Effect.gen(function*() {
        const stats = yield* fsCall(() => handle.stat())
        if (stats.uid !== ownUid() || (stats.mode & 0o077) !== 0) return Option.none<Holding>()
        const through = `${descriptors}/${handle.fd}`
        const knocked = yield* knock(`${through}/s`)
        return knocked === "connected" || knocked === "EAGAIN"
          ? Option.some<Holding>({ pid: yield* holderAt(`${through}/pid`) })
          : Option.none<Holding>()
      }),
    closeHandle
  ).pipe(Effect.orElseSucceed(() => Option.none<Holding>()))

/** Ends this process's own directory: the socket first, while the descriptor its path goes through is open. */
const dispose = (own: Own) =>
  closeServer(own.server).pipe(
    Effect.zipRight(Effect.ignore(fsCall(() => fsp.unlink(`${own.through}/pid`)))),
    Effect.zipRight(closeHandle(own.handle)),
    Effect.zipRight(removeIfEmpty(own.path))
  )

/**
 * This process's own directory in `area`, made 0700, its socket listening, then its pid written:
 * the pid says the socket listens. Each step undone if a later one fails.
 */
const prepare = (area: string, descriptors: string) =>
  Effect.gen(function*() {
    yield* fsCall(() => fsp.access(descriptors)).pipe(Effect.mapError(() => lockUnavailable(descriptors, "no-proc")))
    const path = nodePath.join(area, `p-${process.pid}-${randomBytes(4).toString("hex")}`)
    const failed = system(path)
    yield* fsCall(() => fsp.mkdir(path, { mode: 0o700 })).pipe(Effect.mapError(failed))
    const handle = yield* openDirectory(path).pipe(
      // Stryker disable next-line ArrowFunction: opening the directory made a moment ago fails only when descriptors run out, which no test provokes
      Effect.tapError(() => removeIfEmpty(path)),
      Effect.mapError(failed)
    )
    const through = `${descriptors}/${handle.fd}`
    const server = yield* listen(`${through}/s`).pipe(
      Effect.tapError(() => Effect.zipRight(closeHandle(handle), removeIfEmpty(path))),
      Effect.mapError(failed)
    )
    const own: Own = { area, path, handle, through, server }
    // Stryker disable next-line StringLiteral: O_EXCL ("wx") refuses only a file already there, and nothing can be in the 0700 directory this process made a moment ago
    yield* fsCall(() => fsp.writeFile(`${through}/pid`, `${process.pid}\n`, { flag: "wx", mode: 0o600 })).pipe(
      // Stryker disable next-line ArrowFunction: a new file in the directory made a moment ago fails only when the disk is full, which no test provokes
      Effect.tapError(() => dispose(own)),
      Effect.mapError(failed)
    )
    return own
  })

/**
 * Every process's own directory in `area` whose process is gone: emptied and removed. One whose
 * process has not yet said its socket listens, or that cannot be looked at, is left alone; ours
 * answers, so it is left too.
 */
const sweep = (area: string, descriptors: string) =>
  fsCall(() => fsp.readdir(area)).pipe(
    Effect.flatMap((names) =>
      Effect.forEach(
        names.filter((name) => name.startsWith("p-")),
        (name) => Effect.ignore(examine(nodePath.join(area, name), descriptors, true))
      )
    ),
    Effect.ignore
  )

/**
 * The lock for a layer's life: `take` with the area to take it in, `release`, and the layer's end
 * (release if held, then the process's own directory goes). `descriptors` is /proc/self/fd.
 */
export const renameLock = (descriptors: string): Effect.Effect<AreaLock, never, Scope.Scope> =>
  Effect.gen(function*() {
    const mine = yield* Ref.make(Option.none<Own>())
    const held = yield* Ref.make(false)
    const swept = yield* Ref.make(false)

    const build = (area: string) => Effect.tap(prepare(area, descriptors), (own) => Ref.set(mine, Option.some(own)))
    const forget = Effect.flatMap(
      Ref.getAndSet(mine, Option.none()),
      Option.match({ onNone: () => Effect.void, onSome: dispose })
    )
    /** Our directory in this area: the one made before, or a new one (a home moved elsewhere gets one there). */
    const ownIn = (area: string) =>
      Effect.flatMap(
        Ref.get(mine),
        Option.match({
          onNone: () => build(area),
          onSome: (own) => (own.area === area ? Effect.succeed(own) : Effect.zipRight(forget, build(area)))
        })
      )

    /**
     * One rename per round: our directory gone (the area was removed under us) is made again; a
     * stale holder in the way is cleared. Rounds spent, what stays in the way is not buddy's.
     */
    const attempt = (own: Own, round: number): Effect.Effect<void, HolderBusy> => {
      const holder = nodePath.join(own.area, holderName)
      if (round === rounds) return Effect.fail(lockUnavailable(holder, "unknown-entries"))
      return Effect.flatMap(rename(own.path, holder), (failed) => {
        if (Option.isNone(failed)) return Ref.set(held, true)
        if (failed.value === "ENOENT") {
          // Stryker disable next-line ArithmeticOperator: the round counts only if our new directory vanished again at once, and again, which no test can time
          return Effect.zipRight(forget, Effect.flatMap(build(own.area), (again) => attempt(again, round + 1)))
        }
        const inTheWay = failed.value === "ENOTEMPTY" || failed.value === "ENOTDIR" ||
          // Stryker disable next-line ConditionalExpression,StringLiteral: POSIX lets rename answer EEXIST for a non-empty directory; Linux answers ENOTEMPTY
          failed.value === "EEXIST"
        if (!inTheWay) return Effect.fail(system(holder)(failed.value))
        return Effect.flatMap(
          examine(holder, descriptors, false),
          Option.match({
            onSome: (live) => Effect.fail(heldBy(live.holder)),
            onNone: () => attempt(own, round + 1)
          })
        )
      })
    }

    const take = (area: Area) =>
      Effect.gen(function*() {
        if (yield* Ref.get(held)) return
        const own = yield* ownIn(yield* area)
        if (!(yield* Ref.getAndSet(swept, true))) yield* sweep(own.area, descriptors)
        yield* attempt(own, 0)
      })

    /** One rename back; if it fails our directory is forgotten (and emptied), and the next take makes another. */
    const release = Effect.flatMap(
      Ref.getAndSet(held, false),
      (wasHeld) =>
        wasHeld
          ? Effect.flatMap(
            Ref.get(mine),
            Option.match({
              // Stryker disable next-line ArrowFunction: a held lock always has its directory; this is for the type
              onNone: () => Effect.void,
              onSome: (own) =>
                Effect.flatMap(
                  rename(nodePath.join(own.area, holderName), own.path),
                  Option.match({ onNone: () => Effect.void, onSome: () => forget })
                )
            })
          )
          : Effect.void
    )

    const holder = (area: Effect.Effect<Option.Option<string>>) =>
      Effect.flatMap(Ref.get(held), (ours) =>
        ours
          ? Effect.succeedSome<Holding>({ pid: Option.some(process.pid) })
          : Effect.flatMap(
            area,
            Option.match({
              onNone: () => Effect.succeedNone,
              onSome: (place) => look(nodePath.join(place, holderName), descriptors)
            })
          ))

    yield* Effect.addFinalizer(() => Effect.zipRight(release, forget))
    return { holderName, take, release, holder }
  })
