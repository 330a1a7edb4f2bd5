// What the holder lock's in-process tests share (D39): a Hermes home of the test's own, lock layers
// built as separate processes have them (each its own scope), a socket that is dead the way a
// killed holder leaves it, and the lock's refusals reduced to what they say.
import { Context, Effect, Layer, Option, Scope } from "effect"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import { BuddyConfig } from "../../../src/services/BuddyConfig.js"
import type { GatewayError } from "../../../src/services/GatewayError.js"
import type { HolderBusy } from "../../../src/services/HolderBusy.js"
import { HolderLock, HolderLockLive, type LockSystem } from "../../../src/services/HolderLock.js"
import { holderLockLayer } from "../../../src/services/HolderLock.js"

/** A private root with a Hermes home (0700) in it; removed after the test. */
export const lockScene = Effect.acquireRelease(
  Effect.promise(async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-holder-"))
    await fs.chmod(root, 0o700)
    const home = path.join(root, "hermes")
    await fs.mkdir(home, { mode: 0o700 })
    return { root, home, area: path.join(home, ".buddy-lock"), holder: path.join(home, ".buddy-lock", "holder") }
  }),
  ({ root }) => Effect.promise(() => fs.rm(root, { recursive: true, force: true }))
)

/** One lock layer with a scope of its own, as one process has it; `system` plays another system. */
export const lockFor = (home: string, system?: LockSystem) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      (system === undefined ? HolderLockLive : holderLockLayer(system)).pipe(
        Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home }))
      ),
      scope
    )
    return { lock: Context.get(context, HolderLock), scope }
  })

/** What a refused take says: the reason, the holder, and the place with only the members it has. */
export const said = (error: HolderBusy | GatewayError) =>
  error._tag === "GatewayError"
    ? { gateway: error.reason }
    : {
      reason: error.reason,
      holder: Option.getOrUndefined(error.holder),
      place: Option.getOrUndefined(error.place)
    }

/** A refused take, as `said` puts it. */
export const refusalOf = (take: Effect.Effect<void, HolderBusy | GatewayError>) => Effect.map(Effect.flip(take), said)

/** What `place` the lock refused, with `problem` and the members given. */
export const unavailableAt = (placePath: string, problem: string, detail: Record<string, unknown> = {}) => ({
  reason: "unavailable",
  holder: undefined,
  place: { path: placePath, problem, ...detail }
})

/** Held elsewhere, by `pid`. */
export const heldByPid = (pid: number | undefined) => ({ reason: "held", holder: pid, place: undefined })

/**
 * A Unix socket at `file` that refuses every connection, as a holder killed with kill -9 leaves its
 * own: listened to under another name, moved to `file`, and closed (the close unlinks only the name it
 * was bound to, which is gone).
 */
export const deadSocket = (file: string) =>
  Effect.promise(async () => {
    const bound = `${file}.bind`
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(bound, resolve))
    await fs.rename(bound, file)
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

/** A socket at `file` that accepts, as a live process's; closed with the test's scope. */
export const liveSocket = (file: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = net.createServer((connection) => connection.destroy())
      await new Promise<void>((resolve) => server.listen(file, resolve))
      return server
    }),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

/**
 * A socket at `file` whose process is stopped (kill -STOP): it listens, with a queue of one, on a
 * thread whose event loop is blocked, so nothing is accepted; two connections fill the queue and
 * every further one fails EAGAIN at once. Freed with the test's scope.
 */
export const stoppedSocket = (file: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const flag = new Int32Array(new SharedArrayBuffer(4))
      const worker = new Worker(
        `const { workerData, parentPort } = require("node:worker_threads")
        const server = require("node:net").createServer()
        server.listen({ path: workerData.file, backlog: 1 }, () => {
          parentPort.postMessage("listening")
          Atomics.wait(new Int32Array(workerData.flag), 0, 0)
        })`,
        { eval: true, workerData: { file, flag: flag.buffer } }
      )
      await new Promise((resolve) => worker.once("message", resolve))
      const queued = await Promise.all([0, 1].map(() =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect({ path: file }, () => resolve(socket))
        })
      ))
      return { flag, worker, queued }
    }),
    ({ flag, queued, worker }) =>
      Effect.promise(async () => {
        queued.forEach((socket) => socket.destroy())
        Atomics.store(flag, 0, 1)
        Atomics.notify(flag, 0)
        await worker.terminate()
      })
  )

/** A directory of the lock as buddy makes one: 0700, its socket (dead unless said), and `pid` when given. */
export const lockDirectory = (
  directory: string,
  options: { readonly pid?: string; readonly socket?: "dead" | "live" | "stopped" } = {}
) =>
  Effect.gen(function*() {
    yield* Effect.promise(() => fs.mkdir(directory, { recursive: true, mode: 0o700 }))
    const socket = path.join(directory, "s")
    if (options.socket === "live") yield* liveSocket(socket)
    else if (options.socket === "stopped") yield* stoppedSocket(socket)
    else yield* deadSocket(socket)
    if (options.pid !== undefined) {
      yield* Effect.promise(() => fs.writeFile(path.join(directory, "pid"), options.pid!, { mode: 0o600 }))
    }
  })

/** The names in a directory, sorted; none when it is missing. */
export const namesIn = (directory: string) =>
  Effect.promise(() => fs.readdir(directory).then((names) => names.toSorted(), () => [] as Array<string>))
