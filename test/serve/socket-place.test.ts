// Where `buddy serve` listens, made and checked as src/serve/socket-place.ts does (C6 "Who may reach
// it", D22, D40), over real directories and sockets in a temporary directory: the directory made
// with the sharing's mode and group, a directory found used only if it fits, each refusal with
// exactly its fields and its words, a stale socket replaced and a live one refused, the socket's
// modes after listening, a handed socket's checks. The test runs as root, so it can give files to
// another uid (4242) and group (4242); what only another uid meets (not a member of the group) and
// what a worker thread may not set (the umask) run in a child (./support/mutant-child.ts).
import { Effect, Either } from "effect"
import { Option } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { defaultSocketPath, noRuntimeDirectory, runtimeDirectory, socketName } from "../../src/serve/default-place.js"
import { placeWords, socketPathLimit } from "../../src/serve/place-words.js"
import { checkHandedSocket, prepareSocket, restrictSocket, SocketPlaceUnsafe } from "../../src/serve/socket-place.js"
import { groupPasses, wayClear, wayUp } from "../../src/serve/socket-way.js"
import { seemingAccount } from "../support/own-account.js"
import { requires } from "../support/required.js"
import { runChild } from "./support/mutant-child.js"

/** Giving files to other accounts and groups takes root: skipped with a word elsewhere, never in CI (D32). */
const asRoot = requires(process.getuid?.() === 0, "root", "run the suite as root, as CI does")
  ? describe
  : describe.skip

const owner = { _tag: "Owner" } as const
/** A group nobody on this machine is in, and an account that owns nothing of ours. */
const other = 4242
const group = { _tag: "Group", gid: other } as const

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()))
})

/** A fresh temporary directory, removed after the test: 0711 where a group must pass it, as a proxy does. */
const tempDir = async (mode = 0o700) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-place-"))
  await fs.chmod(dir, mode)
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

/** A directory at `dir/name` with `mode` (and owner, group) set after it is made. */
const directory = async (dir: string, name: string, mode: number, ids: { uid?: number; gid?: number } = {}) => {
  const made = path.join(dir, name)
  await fs.mkdir(made)
  await fs.chmod(made, mode)
  await fs.chown(made, ids.uid ?? 0, ids.gid ?? 0)
  return made
}

/** A server listening at `at`, closed after the test. */
const listening = async (at: string) => {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(at, resolve))
  cleanups.push(() => new Promise((resolve) => server.close(resolve)))
  return server
}

/** A socket file at `at` that no server answers: a link to a listening socket's file, kept once it closes. */
const stale = async (at: string) => {
  const live = `${at}.live`
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(live, resolve))
  await fs.link(live, at)
  await new Promise((resolve) => server.close(resolve))
}

/** The outcome of a place's step: its value, or the refusal's own fields. */
const outcome = async <A>(effect: Effect.Effect<A, SocketPlaceUnsafe>) =>
  Either.mapLeft(await Effect.runPromise(Effect.either(effect)), (error) => ({ ...error }))

const modeOf = async (file: string) => {
  const stats = await fs.lstat(file)
  return { mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid }
}

describe("the socket's default place", () => {
  const uid = process.getuid?.() ?? -1
  it("is serve.sock in systemd's RuntimeDirectory (its first entry), else in buddy's runtime directory", () => {
    expect(socketName).toBe("serve.sock")
    expect(defaultSocketPath({ RUNTIME_DIRECTORY: "/run/buddy" }, () => false)).toStrictEqual(
      Option.some("/run/buddy/serve.sock")
    )
    expect(defaultSocketPath({ RUNTIME_DIRECTORY: "/run/buddy:/run/other" }, () => false)).toStrictEqual(
      Option.some("/run/buddy/serve.sock")
    )
    for (const runtime of [undefined, "", "run/buddy", ":/run/buddy"]) {
      const env = { XDG_RUNTIME_DIR: "/run/user/7", ...(runtime === undefined ? {} : { RUNTIME_DIRECTORY: runtime }) }
      expect([runtime, defaultSocketPath(env, () => false)]).toStrictEqual([
        runtime,
        Option.some("/run/user/7/buddy/serve.sock")
      ])
    }
  })

  it("is /run/user/UID/buddy where systemd made the account's directory, and never in /tmp", () => {
    expect(runtimeDirectory({ XDG_RUNTIME_DIR: "relative" }, (p) => p === `/run/user/${uid}`)).toStrictEqual(
      Option.some(`/run/user/${uid}/buddy`)
    )
    expect(defaultSocketPath({}, (p) => p === `/run/user/${uid}`)).toStrictEqual(
      Option.some(`/run/user/${uid}/buddy/serve.sock`)
    )
    expect(defaultSocketPath({ TMPDIR: "/tmp" }, () => false)).toStrictEqual(Option.none())
    expect(defaultSocketPath({ XDG_RUNTIME_DIR: "relative" }, () => false)).toStrictEqual(Option.none())
  })

  it("is missing in words naming the unit's RuntimeDirectory= and --socket", () => {
    expect(noRuntimeDirectory()).toBe(
      "buddy serve: there is no place for its socket that only this account could have made: no --socket, no " +
        "RUNTIME_DIRECTORY (a systemd unit's RuntimeDirectory=buddy sets it) and no runtime directory of this " +
        `account's own ($XDG_RUNTIME_DIR, /run/user/${uid}). Run it from a unit with RuntimeDirectory=buddy, or give ` +
        "--socket PATH in a directory of this account's own (docs/operator-guide.md)."
    )
  })
})

describe("the way to the socket", () => {
  it("is each directory up to /", () => {
    expect(wayUp("/run/buddy")).toStrictEqual(["/run/buddy", "/run", "/"])
    expect(wayUp("/")).toStrictEqual(["/"])
  })

  it("lets a group pass by others' search bit, or by the group's own where the directory is the group's", () => {
    expect([
      groupPasses({ gid: 1, mode: 0o701 }, 9),
      groupPasses({ gid: 9, mode: 0o710 }, 9),
      groupPasses({ gid: 1, mode: 0o710 }, 9),
      groupPasses({ gid: 9, mode: 0o760 }, 9),
      groupPasses({ gid: 9, mode: 0o706 }, 9)
    ]).toStrictEqual([true, true, false, false, false])
  })
})

asRoot("the way, on real directories", () => {
  it("refuses a directory on it that another account owns, or that group or others may write without the sticky bit", async () => {
    const dir = await tempDir()
    const theirs = await directory(dir, "theirs", 0o755, { uid: other })
    const open = await directory(dir, "open", 0o775)
    const othersOpen = await directory(dir, "others-open", 0o757)
    const sticky = await directory(dir, "sticky", 0o1777)
    for (
      const [above, refusal] of [
        [theirs, { reason: "way-foreign", path: theirs, found: other }],
        [open, { reason: "way-open", path: open, found: 0o775 }],
        [othersOpen, { reason: "way-open", path: othersOpen, found: 0o757 }]
      ] as const
    ) {
      const at = path.join(above, "buddy", "serve.sock")
      expect(await outcome(prepareSocket(at, owner))).toStrictEqual(
        Either.left({ _tag: "SocketPlaceUnsafe", ...refusal })
      )
      // Nothing was made below a directory another account controls.
      await expect(fs.lstat(path.join(above, "buddy"))).rejects.toMatchObject({ code: "ENOENT" })
    }
    const at = path.join(sticky, "buddy", "serve.sock")
    expect(await outcome(prepareSocket(at, owner))).toStrictEqual(Either.right(at))
  })

  it("follows a link on it and judges where it leads, and the link's own directory", async () => {
    const dir = await tempDir()
    const theirs = await directory(dir, "theirs", 0o755, { uid: other })
    const link = path.join(dir, "link")
    await fs.symlink(theirs, link)
    expect(await outcome(prepareSocket(path.join(link, "buddy", "serve.sock"), owner))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "way-foreign", path: theirs, found: other })
    )
    const mine = await directory(dir, "mine", 0o755)
    const theirLink = path.join(dir, "their-link")
    await fs.symlink(mine, theirLink)
    await fs.lchown(theirLink, other, other)
    expect(await outcome(prepareSocket(path.join(theirLink, "buddy", "serve.sock"), owner))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "way-foreign", path: theirLink, found: other })
    )
    const fine = path.join(dir, "fine")
    await fs.symlink(mine, fine)
    expect(await outcome(prepareSocket(path.join(fine, "buddy", "serve.sock"), owner))).toStrictEqual(
      Either.right(path.join(fine, "buddy", "serve.sock"))
    )
  })

  it("says a step it cannot look at, or a link on it that leads nowhere, unusable with the system's code", async () => {
    const dir = await tempDir()
    const file = path.join(dir, "file")
    await fs.writeFile(file, "")
    const nowhere = path.join(dir, "nowhere")
    await fs.symlink(path.join(dir, "gone"), nowhere)
    for (
      const [above, refusal] of [
        [path.join(file, "step"), { path: path.join(file, "step"), code: "ENOTDIR" }],
        [nowhere, { path: nowhere, code: "ENOENT" }]
      ] as const
    ) {
      expect(await outcome(prepareSocket(path.join(above, "buddy", "serve.sock"), owner))).toStrictEqual(
        Either.left({ _tag: "SocketPlaceUnsafe", reason: "unusable", ...refusal })
      )
    }
  })

  it("lets root's directories pass for an account that is not root, and refuses a third account's", async () => {
    const dir = await tempDir()
    const mine = await directory(dir, "mine", 0o755, { uid: other })
    // The account buddy runs as, for its own checks; the directories are real, root's above `dir`.
    const restore = seemingAccount(other)
    cleanups.push(async () => restore())
    expect(await outcome(wayClear(mine, owner))).toStrictEqual(Either.right(undefined))
    const rootOwned = await directory(mine, "root", 0o755)
    const third = await directory(rootOwned, "third", 0o755, { uid: other + 1 })
    expect(await outcome(wayClear(third, owner))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "way-foreign", path: third, found: other + 1 })
    )
  })

  it("with a group, refuses a directory on it the group cannot pass, the socket's own directory apart", async () => {
    const dir = await tempDir(0o711)
    const closed = await directory(dir, "closed", 0o700)
    const groupOnly = await directory(dir, "group-only", 0o710, { gid: other })
    const wrongGroup = await directory(dir, "wrong-group", 0o710, { gid: 7 })
    expect(await outcome(prepareSocket(path.join(closed, "buddy", "serve.sock"), group))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "way-closed", path: closed, found: 0o700 })
    )
    expect(await outcome(prepareSocket(path.join(wrongGroup, "buddy", "serve.sock"), group))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "way-closed", path: wrongGroup, found: 0o710 })
    )
    expect(await outcome(prepareSocket(path.join(groupOnly, "buddy", "serve.sock"), group))).toStrictEqual(
      Either.right(path.join(groupOnly, "buddy", "serve.sock"))
    )
    // Alone, the account needs no way for anyone else.
    expect(await outcome(prepareSocket(path.join(closed, "buddy", "serve.sock"), owner))).toStrictEqual(
      Either.right(path.join(closed, "buddy", "serve.sock"))
    )
    // A handed socket's own directory is on its way.
    const handedDir = await directory(dir, "handed", 0o700)
    const at = path.join(handedDir, "serve.sock")
    await listening(at)
    await fs.chmod(at, 0o660)
    await fs.chown(at, 0, other)
    expect(await outcome(checkHandedSocket(at, group))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "way-closed", path: handedDir, found: 0o700 })
    )
  })
})

asRoot("the socket's directory", () => {
  it("is made 0700 for this account alone, and the socket's path given back whole", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    expect(await outcome(prepareSocket(path.relative(process.cwd(), at), owner))).toStrictEqual(Either.right(at))
    expect(await modeOf(path.join(dir, "buddy"))).toStrictEqual({ mode: 0o700, uid: 0, gid: 0 })
  })

  it("is made 0710 of the group it is shared with", async () => {
    const dir = await tempDir(0o711)
    const at = path.join(dir, "buddy", "serve.sock")
    expect(await outcome(prepareSocket(at, group))).toStrictEqual(Either.right(at))
    expect(await modeOf(path.join(dir, "buddy"))).toStrictEqual({ mode: 0o710, uid: 0, gid: other })
  })

  it("is used as found when it is closed to group and others, and never widened", async () => {
    const dir = await tempDir(0o711)
    for (const mode of [0o700, 0o500]) {
      const found = await directory(dir, `found-${mode}`, mode, { gid: 7 })
      const at = path.join(found, "serve.sock")
      expect(await outcome(prepareSocket(at, owner))).toStrictEqual(Either.right(at))
      expect(await modeOf(found)).toStrictEqual({ mode, uid: 0, gid: 7 })
    }
  })

  it("found closed, or already the group's with search only, is given the group and 0710", async () => {
    const dir = await tempDir(0o711)
    for (const [mode, gid] of [[0o700, 7], [0o710, other], [0o700, other]] as const) {
      const found = await directory(dir, `found-${mode}-${gid}`, mode, { gid })
      const at = path.join(found, "serve.sock")
      expect(await outcome(prepareSocket(at, group))).toStrictEqual(Either.right(at))
      expect(await modeOf(found)).toStrictEqual({ mode: 0o710, uid: 0, gid: other })
    }
  })

  it("found open to more than the sharing allows is refused with its mode, and left as it is", async () => {
    const dir = await tempDir(0o711)
    const cases: ReadonlyArray<readonly [typeof owner | typeof group, number, number]> = [
      [owner, 0o750, 0],
      [owner, 0o701, 0],
      [owner, 0o710, other],
      [group, 0o710, 7],
      [group, 0o711, other],
      [group, 0o750, other]
    ]
    for (const [sharing, mode, gid] of cases) {
      const found = await directory(dir, `open-${sharing._tag}-${mode}-${gid}`, mode, { gid })
      expect(await outcome(prepareSocket(path.join(found, "serve.sock"), sharing))).toStrictEqual(Either.left({
        _tag: "SocketPlaceUnsafe",
        reason: "directory-open",
        path: found,
        found: mode
      }))
      expect(await modeOf(found)).toStrictEqual({ mode, uid: 0, gid })
    }
  })

  it("is refused when it is a link, no directory, another account's, or has no parent", async () => {
    const dir = await tempDir()
    const real = await directory(dir, "real", 0o700)
    const link = path.join(dir, "link")
    await fs.symlink(real, link)
    const file = path.join(dir, "file")
    await fs.writeFile(file, "")
    const foreign = await directory(dir, "foreign", 0o700, { uid: other })
    const missing = path.join(dir, "missing", "buddy")
    const refusals = [
      [link, { reason: "directory-link", path: link }],
      [file, { reason: "directory-not-directory", path: file }],
      [foreign, { reason: "directory-foreign", path: foreign, found: other }],
      [missing, { reason: "directory-missing", path: path.join(dir, "missing") }],
      [path.join(file, "buddy"), { reason: "unusable", path: path.join(file, "buddy"), code: "ENOTDIR" }]
    ] as const
    for (const [place, refusal] of refusals) {
      expect(await outcome(prepareSocket(path.join(place, "serve.sock"), owner))).toStrictEqual(
        Either.left({ _tag: "SocketPlaceUnsafe", ...refusal })
      )
    }
  })
})

asRoot("the socket's name", () => {
  it("is at most 107 bytes, counted in bytes", async () => {
    expect(socketPathLimit).toBe(107)
    const dir = await tempDir()
    const fits = path.join(dir, "s".repeat(socketPathLimit - dir.length - 1))
    expect(Buffer.byteLength(fits)).toBe(107)
    expect(await outcome(prepareSocket(fits, owner))).toStrictEqual(Either.right(fits))
    const over = path.join(dir, `${"s".repeat(socketPathLimit - dir.length - 2)}é`)
    expect([over.length, Buffer.byteLength(over)]).toStrictEqual([107, 108])
    expect(await outcome(prepareSocket(over, owner))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "too-long", path: over })
    )
  })

  it("is free, or holds a socket of ours nobody answers, which is removed", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "serve.sock")
    await stale(at)
    expect((await fs.lstat(at)).isSocket()).toBe(true)
    expect(await outcome(prepareSocket(at, owner))).toStrictEqual(Either.right(at))
    await expect(fs.lstat(at)).rejects.toMatchObject({ code: "ENOENT" })
  })

  it("is refused while a server answers on it, and left to that server", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "serve.sock")
    await listening(at)
    expect(await outcome(prepareSocket(at, owner))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "socket-in-use", path: at })
    )
    expect((await fs.lstat(at)).isSocket()).toBe(true)
  })

  it("is refused when it holds anything else: a file, a link, a directory, another account's socket", async () => {
    const dir = await tempDir()
    const file = path.join(dir, "file.sock")
    await fs.writeFile(file, "")
    const foreign = path.join(dir, "foreign.sock")
    await stale(foreign)
    await fs.lchown(foreign, other, other)
    const link = path.join(dir, "link.sock")
    await stale(path.join(dir, "target.sock"))
    await fs.symlink(path.join(dir, "target.sock"), link)
    const sub = await directory(dir, "sub.sock", 0o700)
    const refusals = [
      [file, { reason: "socket-not-socket", path: file }],
      [link, { reason: "socket-not-socket", path: link }],
      [sub, { reason: "socket-not-socket", path: sub }],
      [foreign, { reason: "socket-foreign", path: foreign, found: other }]
    ] as const
    for (const [at, refusal] of refusals) {
      expect(await outcome(prepareSocket(at, owner))).toStrictEqual(
        Either.left({ _tag: "SocketPlaceUnsafe", ...refusal })
      )
    }
    expect((await fs.lstat(foreign)).isSocket()).toBe(true)
  })
})

asRoot("the socket once listening", () => {
  it("is made 0600 for this account alone, or 0660 of the shared group", async () => {
    const dir = await tempDir()
    const mine = path.join(dir, "mine.sock")
    await listening(mine)
    expect(await outcome(restrictSocket(mine, owner))).toStrictEqual(Either.right(undefined))
    expect(await modeOf(mine)).toStrictEqual({ mode: 0o600, uid: 0, gid: 0 })
    const shared = path.join(dir, "shared.sock")
    await listening(shared)
    expect(await outcome(restrictSocket(shared, group))).toStrictEqual(Either.right(undefined))
    expect(await modeOf(shared)).toStrictEqual({ mode: 0o660, uid: 0, gid: other })
  })

  it("is refused when it is no socket, another account's, or gone", async () => {
    const dir = await tempDir()
    const file = path.join(dir, "file.sock")
    await fs.writeFile(file, "")
    const foreign = path.join(dir, "foreign.sock")
    await listening(foreign)
    await fs.chown(foreign, other, 0)
    const gone = path.join(dir, "gone.sock")
    const refusals = [
      [file, owner, { reason: "socket-not-socket", path: file }],
      [foreign, owner, { reason: "socket-foreign", path: foreign, found: other }],
      [gone, owner, { reason: "unusable", path: gone, code: "ENOENT" }],
      // The group is given first: a path gone is not a group buddy is no member of.
      [gone, group, { reason: "unusable", path: gone, code: "ENOENT" }]
    ] as const
    for (const [at, sharing, refusal] of refusals) {
      expect(await outcome(restrictSocket(at, sharing))).toStrictEqual(
        Either.left({ _tag: "SocketPlaceUnsafe", ...refusal })
      )
    }
  })
})

asRoot("a socket a service manager hands over", () => {
  /** A socket at `name` with this mode, owner and group. */
  const handed = async (dir: string, name: string, mode: number, ids: { uid?: number; gid?: number } = {}) => {
    const at = path.join(dir, name)
    await listening(at)
    await fs.chmod(at, mode)
    await fs.chown(at, ids.uid ?? 0, ids.gid ?? 0)
    return at
  }

  it("is used when only its owner may connect, or its owner and the shared group", async () => {
    const dir = await tempDir(0o711)
    for (const mode of [0o600, 0o644, 0o755, 0o640]) {
      const at = await handed(dir, `owner-${mode}.sock`, mode, { gid: other })
      expect([mode, await outcome(checkHandedSocket(at, owner))]).toStrictEqual([mode, Either.right(undefined)])
    }
    for (const mode of [0o660, 0o670, 0o664]) {
      const at = await handed(dir, `group-${mode}.sock`, mode, { gid: other })
      expect([mode, await outcome(checkHandedSocket(at, group))]).toStrictEqual([mode, Either.right(undefined)])
    }
    expect(await modeOf(path.join(dir, "owner-420.sock"))).toStrictEqual({ mode: 0o644, uid: 0, gid: other })
  })

  it("is refused when another may connect (write), with its mode", async () => {
    const dir = await tempDir(0o711)
    const cases: ReadonlyArray<readonly [typeof owner | typeof group, number, number]> = [
      [owner, 0o666, 0],
      [owner, 0o620, 0],
      [owner, 0o602, 0],
      [owner, 0o660, other],
      [group, 0o660, 7],
      [group, 0o662, other],
      [group, 0o602, 7]
    ]
    for (const [sharing, mode, gid] of cases) {
      const at = await handed(dir, `open-${sharing._tag}-${mode}-${gid}.sock`, mode, { gid })
      expect(await outcome(checkHandedSocket(at, sharing))).toStrictEqual(
        Either.left({ _tag: "SocketPlaceUnsafe", reason: "socket-open", path: at, found: mode })
      )
    }
  })

  it("is refused when it is no socket, neither ours nor root's, or gone", async () => {
    const dir = await tempDir()
    const file = path.join(dir, "file.sock")
    await fs.writeFile(file, "")
    await fs.chmod(file, 0o600)
    const foreign = await handed(dir, "foreign.sock", 0o600, { uid: other })
    const gone = path.join(dir, "gone.sock")
    const refusals = [
      [file, { reason: "socket-not-socket", path: file }],
      [foreign, { reason: "socket-foreign", path: foreign, found: other }],
      [gone, { reason: "unusable", path: gone, code: "ENOENT" }]
    ] as const
    for (const [at, refusal] of refusals) {
      expect(await outcome(checkHandedSocket(at, owner))).toStrictEqual(
        Either.left({ _tag: "SocketPlaceUnsafe", ...refusal })
      )
    }
  })
})

describe("a group it cannot give", () => {
  // Root may give any group, except where the kernel lets nobody: /proc/sys takes no chown (EPERM),
  // as an account that is no member of the group is refused (the same as another uid: below).
  it("is not-member on EPERM, and the system's code otherwise", async () => {
    expect(await outcome(restrictSocket("/proc/sys/kernel/hostname", group))).toStrictEqual(Either.left({
      _tag: "SocketPlaceUnsafe",
      reason: "not-member",
      path: "/proc/sys/kernel/hostname",
      found: other
    }))
    const gone = path.join(await tempDir(), "gone.sock")
    expect(await outcome(restrictSocket(gone, group))).toStrictEqual(
      Either.left({ _tag: "SocketPlaceUnsafe", reason: "unusable", path: gone, code: "ENOENT" })
    )
  })
})

describe("a refusal in words", () => {
  const naming = {
    account: (uid: number) => `someone (uid ${uid})`,
    self: "buddy",
    group: Option.some("buddy-proxy"),
    ownDirectory: Option.some("/run/user/7/buddy")
  }
  const words = (
    reason: SocketPlaceUnsafe["reason"],
    more: { found?: number; code?: string; path?: string } = {},
    named: typeof naming | Omit<typeof naming, "group"> & { group: Option.Option<string> } = naming
  ) => placeWords(new SocketPlaceUnsafe({ reason, path: "/run/x", ...more }), named)
  const alone = { ...naming, group: Option.none<string>() }

  it("names the path, what is wrong, and a fix that touches only buddy's own", () => {
    expect([
      words("directory-missing"),
      words("directory-uncreatable", { code: "EACCES" }),
      words("directory-uncreatable", {}, alone),
      words("directory-link"),
      words("directory-not-directory"),
      words("directory-foreign", { found: 33 }),
      words("directory-foreign", { found: 33, path: "/run/user/7/buddy" }),
      words("directory-open", { found: 0o770 }),
      words("directory-open", { found: 0o705, path: "/run/user/7/buddy" }),
      words("directory-open", { found: 0o775 }),
      words("way-foreign", { found: 33, path: "/srv" }),
      words("way-open", { found: 0o775, path: "/srv" }),
      words("way-open", { found: 0o757, path: "/srv" }),
      words("way-closed", { found: 0o700, path: "/run/user/7" }),
      words("way-closed", { found: 0o700, path: "/run/user/7" }, alone),
      words("not-member", { found: 33 }),
      words("not-member", { found: 33 }, alone),
      words("socket-not-socket"),
      words("socket-foreign", { found: 33 }),
      words("socket-open", { found: 0o666 }),
      words("socket-open"),
      words("socket-in-use"),
      words("too-long"),
      words("unusable", { code: "EROFS" }),
      words("unusable")
    ]).toStrictEqual([
      "buddy serve: /run/x does not exist; create it (mkdir -p /run/x) or choose another --socket.",
      "buddy serve: this account (buddy) may not create the socket's directory /run/x (EACCES); make buddy a directory of its own, as root: install -d -o buddy -g buddy-proxy -m 0710 /run/x, or choose another --socket.",
      "buddy serve: this account (buddy) may not create the socket's directory /run/x (EACCES); make buddy a directory of its own, as root: install -d -o buddy -m 0700 /run/x, or choose another --socket.",
      "buddy serve: the socket's directory /run/x is a symbolic link; buddy does not follow one. Choose a real directory with --socket.",
      "buddy serve: the socket's directory /run/x is not a directory; choose another --socket.",
      "buddy serve: the socket's directory /run/x belongs to someone (uid 33); buddy runs as buddy. Choose a --socket in a directory of buddy's own.",
      "buddy serve: the socket's directory /run/user/7/buddy belongs to someone (uid 33); buddy runs as buddy. It is buddy's own place: look at it (sudo ls -la /run/user/7/buddy), then, while no buddy runs, remove it (sudo rm -r /run/user/7/buddy) and start again.",
      "buddy serve: the socket's directory /run/x has mode 0770: the group may enter it. Choose a --socket in a directory closed to others (make buddy a directory of its own, as root: install -d -o buddy -g buddy-proxy -m 0710 DIR).",
      "buddy serve: the socket's directory /run/user/7/buddy has mode 0705: others may enter it. It is buddy's own place: while no buddy runs, remove it (rm -r /run/user/7/buddy); buddy makes it again closed.",
      "buddy serve: the socket's directory /run/x has mode 0775: the group and others may enter it. Choose a --socket in a directory closed to others (make buddy a directory of its own, as root: install -d -o buddy -g buddy-proxy -m 0710 DIR).",
      "buddy serve: /srv, on the way to the socket, belongs to someone (uid 33), who could swap what lies below it; choose a --socket under directories of buddy's or root's only.",
      "buddy serve: /srv, on the way to the socket, has mode 0775: the group may rename what lies below it; choose a --socket under directories only their owner may write.",
      "buddy serve: /srv, on the way to the socket, has mode 0757: others may rename what lies below it; choose a --socket under directories only their owner may write.",
      "buddy serve: /run/user/7, on the way to the socket, has mode 0700: the group buddy-proxy (socketGroup) cannot pass it, so its proxy could not connect. Choose a --socket the group can reach, such as /run/buddy made as docs/operator-guide.md says, or run buddy from its system unit (RuntimeDirectory=buddy).",
      "buddy serve: /run/user/7, on the way to the socket, has mode 0700: the socketGroup's group cannot pass it, so its proxy could not connect. Choose a --socket the group can reach, such as /run/buddy made as docs/operator-guide.md says, or run buddy from its system unit (RuntimeDirectory=buddy).",
      "buddy serve: this account (buddy) is not a member of the group buddy-proxy (socketGroup), so it cannot share /run/x with it; add it (sudo usermod -aG buddy-proxy buddy, or SupplementaryGroups=buddy-proxy in its systemd unit) and start again.",
      "buddy serve: this account (buddy) is not a member of the socketGroup's group, so it cannot share /run/x with it; add it to that group and start again.",
      "buddy serve: /run/x exists and is not a socket; buddy replaces only a socket of its own. Look at it (ls -la /run/x), or choose another --socket.",
      "buddy serve: the socket /run/x belongs to someone (uid 33); buddy runs as buddy. While no buddy runs, remove that socket (sudo rm /run/x), or choose another --socket.",
      "buddy serve: the socket /run/x has mode 0666: accounts the config does not name may connect; give it SocketMode=0600 (or 0660 with SocketGroup= the config's socketGroup).",
      "buddy serve: the socket /run/x has mode 0000: accounts the config does not name may connect; give it SocketMode=0600 (or 0660 with SocketGroup= the config's socketGroup).",
      "buddy serve: another server is listening on /run/x (another buddy serve?); stop it or choose another --socket.",
      "buddy serve: the socket path /run/x is longer than 107 bytes, the most a Unix socket may have; choose a shorter --socket.",
      "buddy serve: /run/x cannot be used for the socket (EROFS); check that buddy may reach it (ls -ld /run/x).",
      "buddy serve: /run/x cannot be used for the socket (EUNKNOWN); check that buddy may reach it (ls -ld /run/x)."
    ])
  })
})

asRoot("the place, where only a child process can show it", () => {
  // A worker thread may not set its umask: the child does, one that takes the owner's own bits.
  it("is made 0700 whatever the umask", async () => {
    const dir = await tempDir()
    const at = path.join(dir, "buddy", "serve.sock")
    expect(await outcome(prepareSocket(at, owner))).toStrictEqual(Either.right(at))
    const child = path.join(dir, "child", "serve.sock")
    expect(JSON.parse(await runChild("./place-child.ts", ["277", child]))).toStrictEqual({ ok: child })
    expect(await modeOf(path.dirname(child))).toStrictEqual({ mode: 0o700, uid: 0, gid: 0 })
  })

  // An account may not make its directory where only root may write: told how root makes it for it.
  // Root meets the same where nobody may write (an immutable parent, chattr +i) as EPERM, here.
  it("as an account that may not write where the directory goes, is refused as directory-uncreatable", async () => {
    const dir = await tempDir()
    const fixed = await directory(dir, "fixed", 0o755)
    execFileSync("chattr", ["+i", fixed])
    cleanups.unshift(async () => execFileSync("chattr", ["-i", fixed]))
    expect(await outcome(prepareSocket(path.join(fixed, "buddy", "serve.sock"), owner))).toStrictEqual(
      Either.left({
        _tag: "SocketPlaceUnsafe",
        reason: "directory-uncreatable",
        path: path.join(fixed, "buddy"),
        code: "EPERM"
      })
    )
    const at = path.join(dir, "buddy", "serve.sock")
    expect(JSON.parse(await runChild("./place-child.ts", ["022", at], { uid: 65534, gid: 65534 }))).toStrictEqual({
      _tag: "SocketPlaceUnsafe",
      reason: "directory-uncreatable",
      path: path.dirname(at),
      code: "EACCES"
    })
  })

  // Root may give any group; an account that is no member of it may not, and is told so.
  it("as an account that is no member of the group, is refused as not-member", async () => {
    const dir = await tempDir()
    await fs.chmod(dir, 0o755)
    const mine = await directory(dir, "mine", 0o711)
    const rootAt = path.join(mine, "buddy", "serve.sock")
    expect(await outcome(prepareSocket(rootAt, group))).toStrictEqual(Either.right(rootAt))
    expect(await outcome(restrictSocket("/proc/sys/kernel/hostname", group))).toMatchObject(
      Either.left({ reason: "not-member" })
    )
    const place = await directory(dir, "place", 0o711, { uid: 65534, gid: 65534 })
    const at = path.join(place, "buddy", "serve.sock")
    expect(JSON.parse(await runChild("./place-child.ts", ["022", at, String(other)], { uid: 65534, gid: 65534 })))
      .toStrictEqual({ _tag: "SocketPlaceUnsafe", reason: "not-member", path: path.dirname(at), found: other })
  })
})
