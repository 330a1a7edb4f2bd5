// Real files and real Unix sockets for the C1/C2 tests: a private temp root that is removed at
// the end of the test, homes with exact modes, and tiny node:net peers that record every
// connection and every byte they receive, so a test can prove "nothing was sent".
import { Duration, Effect, Layer, type Scope } from "effect"
import * as fsp from "node:fs/promises"
import * as Net from "node:net"
import * as os from "node:os"
import * as nodePath from "node:path"
import { BuddyConfig } from "../../../src/services/BuddyConfig.js"
import { GatewaySocket, GatewaySocketLive } from "../../../src/services/GatewaySocket.js"

/** The uid a file of "another owner" is given (nobody). */
export const otherUid = 65534

/** The request every C1 test sends once the path is accepted. */
export const identify = { protocol: 1, id: 1, verb: "identify" } as const

/** The exact bytes `identify` must be written as (C2). */
export const identifyLine = "{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}\n"

/** A well-formed success line, newline included. */
export const okLine = "{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":{}}\n"

/** A private directory (0700, real path) for one test, removed with everything in it when the test ends. */
export const tempRoot: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const made = await fsp.mkdtemp(nodePath.join(os.tmpdir(), "buddy-gw-"))
    await fsp.chmod(made, 0o700)
    return fsp.realpath(made)
  }),
  (dir) => Effect.promise(() => fsp.rm(dir, { recursive: true, force: true }))
)

/** Makes a directory (and its parents) and sets its exact mode, whatever the umask. */
export const makeDir = (path: string, mode = 0o700) =>
  Effect.promise(async () => {
    await fsp.mkdir(path, { recursive: true })
    await fsp.chmod(path, mode)
    return path
  })

/** Writes a file with an exact mode. */
export const writeFile = (path: string, content: string | Uint8Array, mode = 0o600) =>
  Effect.promise(async () => {
    await fsp.writeFile(path, content)
    await fsp.chmod(path, mode)
    return path
  })

export const chmod = (path: string, mode: number) => Effect.promise(() => fsp.chmod(path, mode))

/** Gives a file to another owner, without following a link. */
export const chownToOther = (path: string) => Effect.promise(() => fsp.lchown(path, otherUid, otherUid))

export const remove = (path: string) => Effect.promise(() => fsp.rm(path, { recursive: true, force: true }))

export const symlink = (target: string, path: string) => Effect.promise(() => fsp.symlink(target, path))

export const exists = (path: string) => Effect.promise(() => fsp.lstat(path).then(() => true, () => false))

/** One connection a peer accepted: what it received, and when the client half-closed or closed it. */
export interface Connection {
  readonly socket: Net.Socket
  readonly chunks: Array<Buffer>
  /** Resolves when the client ended its side ('end'). */
  readonly ended: Promise<void>
  /** Resolves when the connection is fully closed ('close'). */
  readonly closed: Promise<void>
  readonly received: () => Buffer
}

/** What a peer does with each connection it accepts (bytes are recorded before it sees them). */
export type Behaviour = (connection: Connection) => void

export interface Peer {
  readonly path: string
  readonly connections: ReadonlyArray<Connection>
  /** All bytes received on all connections. */
  readonly bytesReceived: () => number
}

/** Answers `reply` as soon as a whole request line is in, then ends its side. */
export const answer = (reply: string | Uint8Array): Behaviour => (connection) => {
  let done = false
  connection.socket.on("data", () => {
    if (done || !connection.received().includes(10)) return
    done = true
    connection.socket.end(reply)
  })
}

/** Answers `reply` once the request line is in, but keeps its side open: the client must close. */
export const answerAndHold = (reply: string | Uint8Array): Behaviour => (connection) => {
  let done = false
  connection.socket.on("data", () => {
    if (done || !connection.received().includes(10)) return
    done = true
    connection.socket.write(reply)
  })
}

/** Reads and never answers. */
export const silent: Behaviour = () => {}

/**
 * A real Unix socket at `path` (mode 0600 unless told otherwise), listening until the test
 * ends, recording every connection.
 */
export const listen = (
  path: string,
  behaviour: Behaviour = answer(okLine),
  mode = 0o600
): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const connections: Array<Connection> = []
    yield* Effect.acquireRelease(
      Effect.async<Net.Server>((resume) => {
        const server = Net.createServer((socket) => {
          const chunks: Array<Buffer> = []
          socket.on("error", () => {})
          const ended = new Promise<void>((resolve) => socket.once("end", () => resolve()))
          const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
          socket.on("data", (chunk: Buffer) => {
            chunks.push(chunk)
          })
          const connection: Connection = { socket, chunks, ended, closed, received: () => Buffer.concat(chunks) }
          connections.push(connection)
          behaviour(connection)
        })
        server.once("error", (error) => resume(Effect.die(error)))
        server.listen(path, () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          for (const connection of connections) connection.socket.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    yield* chmod(path, mode)
    return {
      path,
      connections,
      bytesReceived: () => connections.reduce((total, connection) => total + connection.received().length, 0)
    }
  })

/**
 * A socket file with no listener: a second name (hard link) for a listening socket whose
 * server is then closed. Connecting to it gives ECONNREFUSED.
 */
export const staleSocket = (path: string) =>
  Effect.scoped(Effect.gen(function*() {
    const live = `${path}.live`
    yield* listen(live)
    yield* Effect.promise(() => fsp.link(live, path))
  })).pipe(Effect.zipRight(chmod(path, 0o600)), Effect.as(path))

/** One identify exchange through GatewaySocketLive for a configured home (undefined: HERMES_HOME / ~/.hermes). */
export const exchangeFor = (
  hermesHome: string | undefined,
  options: { readonly control?: Duration.Duration; readonly maxLine?: number } = {}
) =>
  Effect.flatMap(GatewaySocket, (gateway) => gateway.exchange(identify, options.maxLine ?? 1024)).pipe(
    Effect.provide(GatewaySocketLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({
      hermesHome,
      deadlines: { control: options.control ?? Duration.millis(300) }
    }))))
  )
