// C1 (finding the gateway) and C1.4 (not running), on real files and real Unix sockets.
// Every refusal is checked through GatewaySocketLive against a listening peer, and the peer
// must have seen no connection at all: every rule is checked before anything is sent.
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { execFileSync } from "node:child_process"
import { constants as fsConstants } from "node:fs"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import type { GatewayReason } from "../../src/schema/reasons.js"
import { noDeadline } from "../../src/services/deadline.js"
import { configuredHome, homeHash, locate, pointerLimit, privateRealHome } from "../../src/services/gateway-path.js"
import { exchangeOn } from "../../src/services/GatewaySocket.js"
import {
  chmod,
  chownToOther,
  exchangeFor,
  exists,
  identify,
  identifyLine,
  listen,
  makeDir,
  type Peer,
  remove,
  staleSocket,
  symlink,
  tempRoot,
  writeFile
} from "./support/gateway-fixtures.js"

const join = nodePath.join

/** A private temp root with a home in it (mode as given). */
const scene = (homeMode = 0o700) =>
  Effect.gen(function*() {
    const root = yield* tempRoot
    const home = yield* makeDir(join(root, "home"), homeMode)
    return { root, home }
  })

/** The Gen B fallback directory for a home: `<root>/run/hermes-gw-<hash>`. */
const gatewayDir = (root: string, hashedHome: string, mode = 0o700) =>
  makeDir(join(root, "run", `hermes-gw-${homeHash(hashedHome)}`), mode)

/** A Gen B fallback socket for `home` with a listening peer, and the pointer to it. */
const pointerScene = (root: string, home: string) =>
  Effect.gen(function*() {
    const dir = yield* gatewayDir(root, home)
    const socket = join(dir, "control.sock")
    const peer = yield* listen(socket)
    yield* writeFile(join(home, "gateway.sock.path"), socket)
    return { dir, socket, peer }
  })

const pointerOf = (home: string) => join(home, "gateway.sock.path")

const envHome = (dir: string) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["HERMES_HOME", dir]])))

/** An environment with only `$HOME`: no HERMES_HOME. */
const userEnv = (dir: string) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["HOME", dir]])))

/** The exchange is refused with exactly `reason`, and none of `peers` saw a connection. */
const expectRefused = (hermesHome: string | undefined, reason: GatewayReason, ...peers: ReadonlyArray<Peer>) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(exchangeFor(hermesHome))
    expect(error._tag).toBe("GatewayError")
    expect(error.reason).toBe(reason)
    for (const peer of peers) {
      expect(peer.connections).toHaveLength(0)
      expect(peer.bytesReceived()).toBe(0)
    }
  })

/** The exchange went to `peer` (one connection, the identify line) for the real home `home`. */
const expectAccepted = (hermesHome: string | undefined, home: string, peer: Peer) =>
  Effect.gen(function*() {
    const exchanged = yield* exchangeFor(hermesHome)
    expect(exchanged).toStrictEqual({
      located: { home, socket: peer.path },
      reply: { ok: true, protocol: 1, id: 1, result: {} }
    })
    expect(peer.connections).toHaveLength(1)
    expect(peer.connections[0]?.received().toString("utf8")).toBe(identifyLine)
  })

const octal = (mode: number) => `0${mode.toString(8)}`

describe("C1 hash and limits", () => {
  it("the pointer hash is the first 16 hex chars of SHA-256 over the UTF-8 home path", () => {
    expect(homeHash("/home/buddy/.hermes")).toBe("5c220b600b0781fb")
    expect(homeHash("/home/büddy/.hermes")).toBe("439e049654b55f4b")
  })

  it("a pointer may be at most 4096 bytes", () => {
    expect(pointerLimit).toBe(4096)
  })
})

describe("C1.1 the home", () => {
  it.scopedLive("with no override, HERMES_HOME is the home", () =>
    Effect.gen(function*() {
      const { home } = yield* scene()
      const peer = yield* listen(join(home, "gateway.sock"))
      yield* expectAccepted(undefined, home, peer).pipe(envHome(home))
    }))

  it.scopedLive("an override wins over HERMES_HOME", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const other = yield* makeDir(join(root, "env-home"))
      const ours = yield* listen(join(home, "gateway.sock"))
      const theirs = yield* listen(join(other, "gateway.sock"))
      yield* expectAccepted(home, home, ours).pipe(envHome(other))
      expect(theirs.connections).toHaveLength(0)
    }))

  it.scopedLive("with neither override nor HERMES_HOME, the home is ~/.hermes", () =>
    Effect.gen(function*() {
      const { root } = yield* scene()
      const user = yield* makeDir(join(root, "user"))
      expect(yield* configuredHome(undefined).pipe(userEnv(user))).toBe(join(user, ".hermes"))
      const hermes = yield* makeDir(join(user, ".hermes"))
      const peer = yield* listen(join(hermes, "gateway.sock"))
      yield* expectAccepted(undefined, hermes, peer).pipe(userEnv(user))
    }))

  it.scopedLive("with neither override nor HERMES_HOME and no ~/.hermes, the gateway is not running", () =>
    Effect.gen(function*() {
      const { root } = yield* scene()
      const user = yield* makeDir(join(root, "user"))
      const error = yield* Effect.flip(locate(undefined, noDeadline).pipe(userEnv(user)))
      expect(error.reason).toBe("not-running")
      expect(yield* exists(join(user, ".hermes"))).toBe(false)
    }))

  it.scopedLive("a symlinked home is followed and its real path is the home", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const link = join(root, "link-home")
      yield* symlink(home, link)
      const peer = yield* listen(join(home, "gateway.sock"))
      expect(yield* locate(link, noDeadline)).toStrictEqual({ home, socket: join(home, "gateway.sock") })
      yield* expectAccepted(link, home, peer)
    }))

  it.scopedLive("through a symlinked home, a pointer hashed over the real path is accepted", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const link = join(root, "link-home")
      yield* symlink(home, link)
      const { peer } = yield* pointerScene(root, home)
      yield* expectAccepted(link, home, peer)
    }))

  it.scopedLive("through a symlinked home, a pointer hashed over the link's path is refused", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const link = join(root, "link-home")
      yield* symlink(home, link)
      const dir = yield* gatewayDir(root, link)
      const socket = join(dir, "control.sock")
      const peer = yield* listen(socket)
      yield* writeFile(join(home, "gateway.sock.path"), socket)
      yield* expectRefused(link, "unsafe-pointer", peer)
    }))

  it.scopedLive("a symlinked home whose real directory is another owner's is refused", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const link = join(root, "link-home")
      yield* symlink(home, link)
      const peer = yield* listen(join(home, "gateway.sock"))
      yield* chownToOther(home)
      yield* expectRefused(link, "unsafe-home", peer)
    }))

  for (const mode of [0o700, 0o750, 0o701, 0o755, 0o711, 0o500]) {
    it.scopedLive(`a home of mode ${octal(mode)} (no group or other write) is accepted`, () =>
      Effect.gen(function*() {
        const { home } = yield* scene()
        const peer = yield* listen(join(home, "gateway.sock"))
        yield* chmod(home, mode)
        yield* expectAccepted(home, home, peer)
      }))
  }

  for (const mode of [0o770, 0o720, 0o702, 0o777, 0o722, 0o1777]) {
    it.scopedLive(`a home of mode ${octal(mode)} (writable by group or others) is refused unsafe-home`, () =>
      Effect.gen(function*() {
        const { home } = yield* scene()
        const peer = yield* listen(join(home, "gateway.sock"))
        yield* chmod(home, mode)
        yield* expectRefused(home, "unsafe-home", peer)
      }))
  }

  it.scopedLive("a home owned by another uid is refused unsafe-home", () =>
    Effect.gen(function*() {
      const { home } = yield* scene()
      const peer = yield* listen(join(home, "gateway.sock"))
      yield* chownToOther(home)
      yield* expectRefused(home, "unsafe-home", peer)
    }))

  it.scopedLive("a home that is a regular file is refused unsafe-home", () =>
    Effect.gen(function*() {
      const { root } = yield* scene()
      const file = yield* writeFile(join(root, "file-home"), "not a directory", 0o700)
      yield* expectRefused(file, "unsafe-home")
    }))

  it.scopedLive("a missing home means the gateway is not running", () =>
    Effect.gen(function*() {
      const { root } = yield* scene()
      yield* expectRefused(join(root, "missing"), "not-running")
      expect(yield* exists(join(root, "missing"))).toBe(false)
    }))

  it.scopedLive("a home whose real path cannot be had (a file on the way) is refused unsafe-home", () =>
    Effect.gen(function*() {
      const { root } = yield* scene()
      const file = yield* writeFile(join(root, "file"), "not a directory", 0o700)
      yield* expectRefused(join(file, "home"), "unsafe-home")
    }))
})

describe("C1.1 alone, for the holder lock (privateRealHome, D39), answers as the walk does", () => {
  const reasonOf = (home: string) => Effect.map(Effect.flip(privateRealHome(home, noDeadline)), (error) => error.reason)

  it.scopedLive("our private home is its real path, a link followed", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      yield* symlink(home, join(root, "link"))
      expect(yield* privateRealHome(join(root, "link"), noDeadline)).toBe(home)
    }))

  it.scopedLive("missing: not running; a file on the way, a file, open to others: unsafe-home", () =>
    Effect.gen(function*() {
      const { root } = yield* scene()
      const file = yield* writeFile(join(root, "file"), "not a directory", 0o700)
      const open = yield* makeDir(join(root, "open"), 0o770)
      expect(yield* reasonOf(join(root, "missing"))).toBe("not-running")
      expect(yield* reasonOf(join(file, "home"))).toBe("unsafe-home")
      expect(yield* reasonOf(file)).toBe("unsafe-home")
      expect(yield* reasonOf(open)).toBe("unsafe-home")
    }))
})

describe("C1.2 the direct socket <home>/gateway.sock", () => {
  for (const mode of [0o600, 0o700, 0o400]) {
    it.scopedLive(`a socket of ours with mode ${octal(mode)} is accepted`, () =>
      Effect.gen(function*() {
        const { home } = yield* scene()
        const peer = yield* listen(join(home, "gateway.sock"), undefined, mode)
        expect((yield* locate(home, noDeadline)).socket).toBe(join(home, "gateway.sock"))
        yield* expectAccepted(home, home, peer)
      }))
  }

  it.scopedLive("the direct socket is preferred to a valid pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const direct = yield* listen(join(home, "gateway.sock"))
      const pointed = yield* pointerScene(root, home)
      yield* expectAccepted(home, home, direct)
      expect(pointed.peer.connections).toHaveLength(0)
    }))

  for (const mode of [0o660, 0o606, 0o640, 0o604, 0o610, 0o601, 0o666]) {
    it.scopedLive(`a socket with mode ${octal(mode)} is refused unsafe-socket`, () =>
      Effect.gen(function*() {
        const { home } = yield* scene()
        const peer = yield* listen(join(home, "gateway.sock"), undefined, mode)
        yield* expectRefused(home, "unsafe-socket", peer)
      }))
  }

  it.scopedLive("a socket owned by another uid is refused unsafe-socket", () =>
    Effect.gen(function*() {
      const { home } = yield* scene()
      const peer = yield* listen(join(home, "gateway.sock"))
      yield* chownToOther(join(home, "gateway.sock"))
      yield* expectRefused(home, "unsafe-socket", peer)
    }))

  it.scopedLive("a symlink to a good socket is refused unsafe-socket and the target gets no connection", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const elsewhere = yield* makeDir(join(root, "elsewhere"))
      const target = yield* listen(join(elsewhere, "real.sock"))
      yield* symlink(join(elsewhere, "real.sock"), join(home, "gateway.sock"))
      const pointed = yield* pointerScene(root, home)
      yield* expectRefused(home, "unsafe-socket", target, pointed.peer)
    }))

  it.scopedLive("a dangling symlink at gateway.sock is refused unsafe-socket, with no fallback to the pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      yield* symlink(join(root, "nowhere.sock"), join(home, "gateway.sock"))
      const pointed = yield* pointerScene(root, home)
      yield* expectRefused(home, "unsafe-socket", pointed.peer)
    }))

  it.scopedLive("a regular file at gateway.sock is refused unsafe-socket, with no fallback to a valid pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      yield* writeFile(join(home, "gateway.sock"), "")
      const pointed = yield* pointerScene(root, home)
      yield* expectRefused(home, "unsafe-socket", pointed.peer)
    }))

  it.scopedLive("a directory at gateway.sock is refused unsafe-socket, with no fallback to a valid pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      yield* makeDir(join(home, "gateway.sock"))
      const pointed = yield* pointerScene(root, home)
      yield* expectRefused(home, "unsafe-socket", pointed.peer)
    }))

  it.scopedLive("an unsafe socket is refused with no fallback to a valid pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const direct = yield* listen(join(home, "gateway.sock"), undefined, 0o660)
      const pointed = yield* pointerScene(root, home)
      yield* expectRefused(home, "unsafe-socket", direct, pointed.peer)
    }))
})

describe("C1.3 the pointer <home>/gateway.sock.path", () => {
  it.scopedLive("a valid pointer to hermes-gw-<hash>/control.sock is followed", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer, socket } = yield* pointerScene(root, home)
      expect((yield* locate(home, noDeadline)).socket).toBe(socket)
      yield* expectAccepted(home, home, peer)
    }))

  for (
    const [name, wrap] of [
      ["a trailing newline", (path: string) => `${path}\n`],
      ["a trailing CRLF", (path: string) => `${path}\r\n`],
      ["surrounding spaces, tabs and newlines", (path: string) => ` \t\n${path} \t\n`]
    ] as const
  ) {
    it.scopedLive(`a pointer with ${name} is accepted (whitespace is stripped)`, () =>
      Effect.gen(function*() {
        const { root, home } = yield* scene()
        const { peer, socket } = yield* pointerScene(root, home)
        yield* writeFile(pointerOf(home), wrap(socket))
        yield* expectAccepted(home, home, peer)
      }))
  }

  it.scopedLive("a pointer of mode 0400 is accepted", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer } = yield* pointerScene(root, home)
      yield* chmod(pointerOf(home), 0o400)
      yield* expectAccepted(home, home, peer)
    }))

  for (const mode of [0o640, 0o604, 0o644, 0o660, 0o610]) {
    it.scopedLive(`a pointer of mode ${octal(mode)} is refused unsafe-pointer`, () =>
      Effect.gen(function*() {
        const { root, home } = yield* scene()
        const { peer } = yield* pointerScene(root, home)
        yield* chmod(pointerOf(home), mode)
        yield* expectRefused(home, "unsafe-pointer", peer)
      }))
  }

  it.scopedLive("a pointer owned by another uid is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer } = yield* pointerScene(root, home)
      yield* chownToOther(pointerOf(home))
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer that is a symlink to a valid pointer file is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer, socket } = yield* pointerScene(root, home)
      const real = yield* writeFile(join(root, "real.path"), socket)
      yield* remove(pointerOf(home))
      yield* symlink(real, pointerOf(home))
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer that is a dangling symlink is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      yield* symlink(join(root, "nowhere.path"), pointerOf(home))
      yield* expectRefused(home, "unsafe-pointer")
    }))

  it.scopedLive("a pointer that is a directory is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const dir = yield* gatewayDir(root, home)
      const peer = yield* listen(join(dir, "control.sock"))
      yield* makeDir(pointerOf(home))
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer that is a FIFO holding a valid path is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const dir = yield* gatewayDir(root, home)
      const socket = join(dir, "control.sock")
      const peer = yield* listen(socket)
      yield* Effect.sync(() => execFileSync("mkfifo", ["-m", "600", pointerOf(home)]))
      // Held open read-write (which never blocks on Linux) with the path waiting in it.
      const writer = yield* Effect.acquireRelease(
        Effect.promise(() => fsp.open(pointerOf(home), fsConstants.O_RDWR)),
        (handle) => Effect.promise(() => handle.close())
      )
      yield* Effect.promise(() => writer.write(socket))
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  // Opened without O_NONBLOCK, a FIFO nobody writes to holds the open, and the libuv thread making
  // it, until a writer comes: the read would end as a timeout, and four such reads would stall
  // every fs call of the process for good.
  it.scopedLive("a pointer that is a FIFO nobody writes to is refused unsafe-pointer at once, not waited on", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer } = yield* pointerScene(root, home)
      yield* remove(pointerOf(home))
      yield* Effect.acquireRelease(
        Effect.sync(() => execFileSync("mkfifo", ["-m", "600", pointerOf(home)])),
        // Were an open left waiting on it, a writer releases it.
        () =>
          Effect.promise(() =>
            fsp.open(pointerOf(home), fsConstants.O_WRONLY | fsConstants.O_NONBLOCK).then(
              (handle) => handle.close(),
              () => undefined
            )
          )
      )
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer whose path holds a NUL byte is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer } = yield* pointerScene(root, home)
      yield* writeFile(pointerOf(home), `${root}/run\u0000x/hermes-gw-${homeHash(home)}/control.sock`)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer of exactly 4096 bytes (the path padded with spaces) is accepted", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer, socket } = yield* pointerScene(root, home)
      const content = socket.padEnd(4096, " ")
      expect(Buffer.byteLength(content)).toBe(4096)
      yield* writeFile(pointerOf(home), content)
      yield* expectAccepted(home, home, peer)
    }))

  it.scopedLive("a pointer of 4097 bytes (the path padded with spaces) is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer, socket } = yield* pointerScene(root, home)
      const content = socket.padEnd(4097, " ")
      expect(Buffer.byteLength(content)).toBe(4097)
      yield* writeFile(pointerOf(home), content)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer that is not valid UTF-8 is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      // A lenient decoder would read the 0xFF byte as U+FFFD, which names this real directory.
      const lenientDir = yield* makeDir(join(root, "bad\uFFFD", `hermes-gw-${homeHash(home)}`))
      const peer = yield* listen(join(lenientDir, "control.sock"))
      const bytes = Buffer.concat([
        Buffer.from(join(root, "bad")),
        Buffer.from([0xff]),
        Buffer.from(`/hermes-gw-${homeHash(home)}/control.sock`)
      ])
      yield* writeFile(pointerOf(home), bytes)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("an empty pointer is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { home } = yield* scene()
      yield* writeFile(pointerOf(home), "")
      yield* expectRefused(home, "unsafe-pointer")
    }))

  it.scopedLive("a relative pointer is refused unsafe-pointer, even one that resolves to the socket", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer, socket } = yield* pointerScene(root, home)
      const relative = nodePath.relative(process.cwd(), socket)
      expect(nodePath.isAbsolute(relative)).toBe(false)
      yield* writeFile(pointerOf(home), relative)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer with another home's hash is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const other = yield* makeDir(join(root, "other-home"))
      const dir = yield* gatewayDir(root, other)
      const socket = join(dir, "control.sock")
      const peer = yield* listen(socket)
      yield* writeFile(pointerOf(home), socket)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer with the hash in upper case is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const dir = yield* makeDir(join(root, "run", `hermes-gw-${homeHash(home).toUpperCase()}`))
      const socket = join(dir, "control.sock")
      const peer = yield* listen(socket)
      yield* writeFile(pointerOf(home), socket)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointer to the right directory but a file not named control.sock is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const dir = yield* gatewayDir(root, home)
      const socket = join(dir, "gateway.sock")
      const peer = yield* listen(socket)
      yield* writeFile(pointerOf(home), socket)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a Gen A pointer to hermes-gw-<hash>.sock is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const run = yield* makeDir(join(root, "run"))
      const socket = join(run, `hermes-gw-${homeHash(home)}.sock`)
      const peer = yield* listen(socket)
      yield* writeFile(pointerOf(home), socket)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  for (
    const [name, spell] of [
      ["a '..' part", (root: string, rest: string) => `${root}/run/x/../${rest}`],
      ["a '.' part", (root: string, rest: string) => `${root}/run/./${rest}`],
      ["a doubled slash", (root: string, rest: string) => `${root}/run//${rest}`]
    ] as const
  ) {
    it.scopedLive(`a non-normalized pointer with ${name} is refused unsafe-pointer`, () =>
      Effect.gen(function*() {
        const { root, home } = yield* scene()
        yield* makeDir(join(root, "run", "x"))
        const { peer } = yield* pointerScene(root, home)
        yield* writeFile(pointerOf(home), spell(root, `hermes-gw-${homeHash(home)}/control.sock`))
        yield* expectRefused(home, "unsafe-pointer", peer)
      }))
  }

  it.scopedLive("a pointed directory that is a symlink to a good directory is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const good = yield* makeDir(join(root, "good-dir"))
      const peer = yield* listen(join(good, "control.sock"))
      yield* makeDir(join(root, "run"))
      const linkDir = join(root, "run", `hermes-gw-${homeHash(home)}`)
      yield* symlink(good, linkDir)
      yield* writeFile(pointerOf(home), join(linkDir, "control.sock"))
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  for (const mode of [0o750, 0o701, 0o705, 0o770, 0o777]) {
    it.scopedLive(`a pointed directory of mode ${octal(mode)} is refused unsafe-pointer`, () =>
      Effect.gen(function*() {
        const { root, home } = yield* scene()
        const { peer, dir } = yield* pointerScene(root, home)
        yield* chmod(dir, mode)
        yield* expectRefused(home, "unsafe-pointer", peer)
      }))
  }

  it.scopedLive("a pointed directory owned by another uid is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer, dir } = yield* pointerScene(root, home)
      yield* chownToOther(dir)
      yield* expectRefused(home, "unsafe-pointer", peer)
    }))

  it.scopedLive("a pointed directory that is a regular file is refused unsafe-pointer", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      yield* makeDir(join(root, "run"))
      const file = yield* writeFile(join(root, "run", `hermes-gw-${homeHash(home)}`), "")
      yield* writeFile(pointerOf(home), join(file, "control.sock"))
      yield* expectRefused(home, "unsafe-pointer")
    }))

  it.scopedLive("a pointed socket that is a symlink to a good socket is refused unsafe-socket", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const elsewhere = yield* makeDir(join(root, "elsewhere"))
      const peer = yield* listen(join(elsewhere, "real.sock"))
      const dir = yield* gatewayDir(root, home)
      yield* symlink(join(elsewhere, "real.sock"), join(dir, "control.sock"))
      yield* writeFile(pointerOf(home), join(dir, "control.sock"))
      yield* expectRefused(home, "unsafe-socket", peer)
    }))

  for (const mode of [0o666, 0o660, 0o640, 0o604]) {
    it.scopedLive(`a pointed socket of mode ${octal(mode)} is refused unsafe-socket`, () =>
      Effect.gen(function*() {
        const { root, home } = yield* scene()
        const { peer, socket } = yield* pointerScene(root, home)
        yield* chmod(socket, mode)
        yield* expectRefused(home, "unsafe-socket", peer)
      }))
  }

  it.scopedLive("a pointed socket owned by another uid is refused unsafe-socket", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const { peer, socket } = yield* pointerScene(root, home)
      yield* chownToOther(socket)
      yield* expectRefused(home, "unsafe-socket", peer)
    }))

  it.scopedLive("a pointed control.sock that is a regular file is refused unsafe-socket", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const dir = yield* gatewayDir(root, home)
      const socket = yield* writeFile(join(dir, "control.sock"), "")
      yield* writeFile(pointerOf(home), socket)
      yield* expectRefused(home, "unsafe-socket")
    }))

  it.scopedLive("a pointed directory that is missing means the gateway is not running", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      yield* writeFile(pointerOf(home), join(root, "run", `hermes-gw-${homeHash(home)}`, "control.sock"))
      yield* expectRefused(home, "not-running")
    }))

  it.scopedLive("a pointed socket that is missing means the gateway is not running", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const dir = yield* gatewayDir(root, home)
      yield* writeFile(pointerOf(home), join(dir, "control.sock"))
      yield* expectRefused(home, "not-running")
      expect(yield* exists(join(dir, "control.sock"))).toBe(false)
    }))
})

describe("C1.4 not running", () => {
  it.scopedLive("neither gateway.sock nor a pointer means the gateway is not running", () =>
    Effect.gen(function*() {
      const { home } = yield* scene()
      const error = yield* Effect.flip(locate(home, noDeadline))
      expect(error.reason).toBe("not-running")
      yield* expectRefused(home, "not-running")
      expect(yield* exists(join(home, "gateway.sock"))).toBe(false)
    }))

  it.scopedLive("a stale gateway.sock with no listener is not running (ECONNREFUSED)", () =>
    Effect.gen(function*() {
      const { home } = yield* scene()
      const stale = yield* staleSocket(join(home, "gateway.sock"))
      const error = yield* Effect.flip(exchangeOn(stale, identify, 1024, noDeadline))
      expect(error.reason).toBe("not-running")
      yield* expectRefused(home, "not-running")
    }))

  it.scopedLive("a stale pointed control.sock with no listener is not running (ECONNREFUSED)", () =>
    Effect.gen(function*() {
      const { root, home } = yield* scene()
      const dir = yield* gatewayDir(root, home)
      const stale = yield* staleSocket(join(dir, "control.sock"))
      yield* writeFile(pointerOf(home), stale)
      yield* expectRefused(home, "not-running")
    }))
})
