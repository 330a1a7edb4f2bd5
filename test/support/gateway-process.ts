// The fake gateway in another process (fixtures/gateway-process.ts), programmed over IPC: for tests of
// guarantees at the product boundary, where the gateway must not share the event loop of the code under
// test. Importing this registers an afterEach that closes what `gatewayProcess` started.
import { Effect } from "effect"
import type { Scope } from "effect"
import { build, type Loader } from "esbuild"
import { type ChildProcess, fork } from "node:child_process"
import { createHash, randomUUID } from "node:crypto"
import { promises as fsp } from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterEach } from "vitest"
import type {
  FakeGatewayOptions,
  FakeSession,
  Fault,
  FaultRoute,
  GatewayState,
  Received
} from "../../fixtures/fake-gateway.ts"
import type { Method, Ready, Reply } from "../../fixtures/gateway-process.ts"

export interface RemoteGateway {
  readonly home: string
  readonly origin: string
  readonly socketPath: string
  readonly pointerPath: string | undefined
  readonly pid: number
  /** Resolves when the process has exited, however it ended. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  instanceId(): Promise<string>
  state(): Promise<GatewayState>
  contract(): Promise<boolean>
  signedIn(): Promise<boolean>
  received(): Promise<ReadonlyArray<Received>>
  ticketsMinted(): Promise<ReadonlyArray<string>>
  ticketsRedeemed(): Promise<ReadonlyArray<string>>
  sessions(): Promise<ReadonlyArray<FakeSession>>
  /** The fault travels as JSON: any kind fake-gateway.ts knows works. */
  fault(route: FaultRoute, fault: Fault, times?: number): Promise<void>
  clearFaults(): Promise<void>
  clearReceived(): Promise<void>
  /** The most exchanges (control connections and HTTP requests) ever in flight at once, since the last reset. */
  maxInFlight(): Promise<number>
  resetMaxInFlight(): Promise<void>
  expireTickets(): Promise<void>
  setContract(on: boolean): Promise<void>
  setState(state: GatewayState): Promise<void>
  setSignedIn(signedIn: boolean): Promise<void>
  approve(sessionId: string): Promise<boolean>
  deny(sessionId: string): Promise<boolean>
  expire(sessionId: string): Promise<boolean>
  error(sessionId: string): Promise<boolean>
  restart(options?: { readonly contract?: boolean }): Promise<void>
  sweep(): Promise<void>
  /** Kill the process outright (SIGKILL): its sockets die with it, nothing is cleaned. */
  kill(): Promise<void>
  /**
   * Close the gateway cleanly and wait for the process to exit (rejects unless it exits 0). After a
   * kill or a crash it removes what the dead process left instead: a stale socket, the pointer, a
   * temporary home, unless a live gateway (started on the same home) answers there — close that first.
   */
  close(): Promise<void>
}

const REPO = fileURLToPath(new URL("../../", import.meta.url))
const ENTRY = path.join(REPO, "fixtures", "gateway-process.ts")
const READY_MS = 15_000
const CALL_MS = 10_000
const EXIT_MS = 10_000
const KEPT_OUTPUT = 16 * 1024

// The child runs a one-file bundle of the entry, not the sources under tsx: tsx resolves and compiles
// Effect's modules at every start (some 2.5 s of CPU per gateway on this machine), a bundle starts in
// about 0.3 s (the reason dist/buddy.js exists, docs/decisions.md D9). The bundle is cached in a
// private directory, valid while every project file it holds and package-lock.json hash as they did
// when it was built, so an edit to fixtures/ takes effect at the next spawn.
const CACHE = path.join(os.tmpdir(), `buddy-gateway-process-${process.getuid?.() ?? "user"}`)
const INDEX = "current.json"
const STALE_MS = 60 * 60 * 1000

interface Bundle {
  readonly file: string
  /** Every project file bundled (and package-lock.json), with the SHA-256 of the bytes bundled. */
  readonly inputs: ReadonlyArray<readonly [string, string]>
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex")

const stillFresh = async (bundle: Bundle): Promise<boolean> => {
  const now = await Promise.all(bundle.inputs.map(([file]) => fsp.readFile(file).then(sha256, () => "")))
  const exists = await fsp.access(bundle.file).then(() => true, () => false)
  return exists && now.every((hash, i) => hash === bundle.inputs[i]![1])
}

// Code is run from it: only a directory of ours that nobody else may write will do.
const privateCache = async (): Promise<string> => {
  await fsp.mkdir(CACHE, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== "EEXIST") throw e
  })
  const info = await fsp.lstat(CACHE)
  const ours = info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o077) === 0
  return ours ? CACHE : fsp.mkdtemp(path.join(os.tmpdir(), "buddy-gateway-process-"))
}

const LOADERS: Readonly<Record<string, Loader>> = { ".ts": "ts", ".mts": "ts", ".cts": "ts", ".json": "json" }

const buildBundle = async (dir: string): Promise<Bundle> => {
  const inputs = new Map<string, string>()
  const lock = path.join(REPO, "package-lock.json")
  inputs.set(lock, await fsp.readFile(lock).then(sha256, () => ""))
  const file = path.join(dir, `gateway-process-${process.pid}-${randomUUID()}.mjs`)
  const result = await build({
    absWorkingDir: REPO,
    entryPoints: [ENTRY],
    outfile: file,
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
    // Stack traces of a crashing fake (printed on stderr, quoted by the rejections) name fixtures/ lines.
    sourcemap: "linked",
    sourcesContent: false,
    // As scripts/build.js: a CommonJS dependency may require() Node's own modules.
    banner: { js: "import { createRequire } from \"node:module\"; const require = createRequire(import.meta.url);" },
    plugins: [{
      name: "project-sources",
      setup: (b) =>
        b.onLoad({ filter: /.*/ }, async (args) => {
          if (args.path.split(path.sep).includes("node_modules")) return undefined
          const source = await fsp.readFile(args.path, "utf8")
          inputs.set(args.path, sha256(source))
          // A fixture finds its data beside its source (templates.ts: recorded.json), not beside the bundle.
          const href = JSON.stringify(pathToFileURL(args.path).href)
          return {
            contents: source.replaceAll(/\bimport\.meta\.url\b/g, href),
            loader: LOADERS[path.extname(args.path)] ?? "js"
          }
        })
    }]
  })
  // Each file written beside its name and renamed over it: a concurrent test file never reads half of one.
  const writeWhole = async (target: string, contents: string | Uint8Array) => {
    const partial = `${target}.${process.pid}.tmp`
    await fsp.writeFile(partial, contents, { mode: 0o600 })
    await fsp.rename(partial, target)
  }
  // The map first, the bundle that names it next, the index last.
  const isMap = (out: { readonly path: string }) => out.path.endsWith(".map")
  for (const out of result.outputFiles.filter(isMap)) await writeWhole(out.path, out.contents)
  for (const out of result.outputFiles.filter((out) => !isMap(out))) await writeWhole(out.path, out.contents)
  const bundle: Bundle = { file, inputs: [...inputs] }
  await writeWhole(path.join(dir, INDEX), JSON.stringify(bundle))
  return bundle
}

// Old bundles go after an hour; a gateway already running holds its own in memory.
const pruneOld = async (dir: string, keep: string): Promise<void> => {
  const cutoff = Date.now() - STALE_MS
  for (const name of await fsp.readdir(dir)) {
    const file = path.join(dir, name)
    if (name === INDEX || file === keep || file === `${keep}.map`) continue
    const info = await fsp.stat(file).catch(() => undefined)
    if (info !== undefined && info.mtimeMs < cutoff) await fsp.rm(file, { force: true })
  }
}

let bundled: Promise<string> | undefined
/** The bundle of fixtures/gateway-process.ts to fork (built at most once per test process). */
export const gatewayBundle = (): Promise<string> => {
  bundled ??= (async () => {
    const dir = await privateCache()
    const known = await fsp.readFile(path.join(dir, INDEX), "utf8").then(
      (text) => JSON.parse(text) as Bundle,
      () => undefined
    )
    if (known !== undefined && (await stillFresh(known))) return known.file
    const fresh = await buildBundle(dir)
    await pruneOld(dir, fresh.file)
    return fresh.file
  })()
  // A failed build is not cached: the next spawn tries again.
  bundled.catch(() => {
    bundled = undefined
  })
  return bundled
}

// Every child alive, so that a test process that ends anyhow leaves none behind. SIGTERM lets each
// close its gateway and remove its files; a child whose parent died also closes on the IPC disconnect.
const children = new Set<ChildProcess>()
process.once("exit", () => {
  for (const child of children) child.kill("SIGTERM")
})

const isReply = (message: unknown): message is Reply =>
  typeof message === "object" && message !== null && "id" in message && typeof message.id === "number" &&
  "ok" in message

const isReady = (message: unknown): message is { readonly ready: Ready } =>
  typeof message === "object" && message !== null && "ready" in message

// Nothing listens at the path (ECONNREFUSED, ENOENT): the socket, if any, is a dead process's.
const nobodyAnswers = (socketPath: string): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.createConnection(socketPath)
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", (e: NodeJS.ErrnoException) => resolve(e.code === "ECONNREFUSED" || e.code === "ENOENT"))
  })

/** Another account to run the gateway as (root only): its home and socket are then that account's. */
export interface RunAs {
  readonly uid: number
  readonly gid: number
}

/**
 * The bundle where `as` may read it: our cache is private, so another account gets a copy (and its
 * map) in a directory of its own, removed with `remove`.
 */
const readableBundle = async (
  as: RunAs | undefined
): Promise<{ readonly file: string; readonly remove: () => Promise<void> }> => {
  const file = await gatewayBundle()
  if (as === undefined) return { file, remove: async () => {} }
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "buddy-gateway-shared-"))
  await fsp.chmod(dir, 0o755)
  for (const from of [file, `${file}.map`]) {
    const to = path.join(dir, path.basename(from))
    await fsp.copyFile(from, to)
    await fsp.chmod(to, 0o644)
  }
  return { file: path.join(dir, path.basename(file)), remove: () => fsp.rm(dir, { recursive: true, force: true }) }
}

/**
 * Starts the fake gateway in a child process, as `as` when given; resolves once it listens (rejects
 * within 15 s if it never does).
 */
export const spawnGateway = async (options: FakeGatewayOptions = {}, as?: RunAs): Promise<RemoteGateway> => {
  const bundle = await readableBundle(as)
  return start(bundle.file, options, as, bundle.remove)
}

const start = (
  bundle: string,
  options: FakeGatewayOptions,
  as: RunAs | undefined,
  removeBundle: () => Promise<void>
): Promise<RemoteGateway> =>
  new Promise((resolveSpawn, rejectSpawn) => {
    const child = fork(bundle, [JSON.stringify(options)], {
      execArgv: ["--enable-source-maps"],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      ...(as === undefined ? {} : { uid: as.uid, gid: as.gid })
    })
    children.add(child)
    let output = ""
    const keep = (chunk: string) => {
      output = (output + chunk).slice(-KEPT_OUTPUT)
    }
    child.stdout!.setEncoding("utf8").on("data", keep)
    child.stderr!.setEncoding("utf8").on("data", keep)
    const said = () => (output.trim() === "" ? "(no output)" : output.trim())

    const pending = new Map<number, { readonly settle: (reply: Reply | Error) => void }>()
    let nextId = 1
    let ready: Ready | undefined
    let ended: string | undefined
    let killed = false

    const exited = new Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>(
      (resolve) => {
        // "close" comes after the stdio pipes drained, so `said()` holds the last words.
        child.once("close", (code, signal) => {
          children.delete(child)
          void removeBundle()
          ended = signal === null ? `exited with ${code}` : `was killed by ${signal}`
          const died = new Error(`gateway process ${child.pid} ${ended}; it said: ${said()}`)
          for (const call of pending.values()) call.settle(died)
          pending.clear()
          resolve({ code, signal })
        })
      }
    )

    const readyTimer = setTimeout(() => {
      child.kill("SIGKILL")
      rejectSpawn(new Error(`gateway process not ready within ${READY_MS} ms; it said: ${said()}`))
    }, READY_MS)
    void exited.then(() => {
      clearTimeout(readyTimer)
      if (ready === undefined) {
        rejectSpawn(new Error(`gateway process ${ended} before it was ready; it said: ${said()}`))
      }
    })

    child.on("message", (message: unknown) => {
      if (isReply(message)) pending.get(message.id)?.settle(message)
      else if (isReady(message) && ready === undefined) {
        ready = message.ready
        clearTimeout(readyTimer)
        resolveSpawn(remote(ready))
      }
    })

    const call = (method: Method | "close", args: ReadonlyArray<unknown> = []): Promise<unknown> =>
      new Promise((resolve, reject) => {
        if (ended !== undefined) {
          return reject(new Error(`gateway process ${child.pid} ${ended}: cannot ${method}; it said: ${said()}`))
        }
        const id = nextId++
        const timer = setTimeout(() => {
          pending.delete(id)
          reject(
            new Error(`gateway process ${child.pid}: no answer to ${method} within ${CALL_MS} ms; it said: ${said()}`)
          )
        }, CALL_MS)
        pending.set(id, {
          settle: (reply) => {
            clearTimeout(timer)
            pending.delete(id)
            if (reply instanceof Error) reject(reply)
            else if (reply.ok) resolve(reply.value)
            else reject(new Error(`gateway ${method}: ${reply.error}`))
          }
        })
        // JSON turns an undefined argument into null, which no default parameter takes: leave it out.
        const sent = [...args]
        while (sent.length > 0 && sent.at(-1) === undefined) sent.pop()
        child.send({ id, method, args: sent }, (e) => {
          if (e !== null) pending.get(id)?.settle(new Error(`gateway process ${child.pid}: ${method} not sent: ${e}`))
        })
      })
    const get = <A>(method: Method, ...args: ReadonlyArray<unknown>) => () => call(method, args) as Promise<A>
    const act = (method: Method) => async (...args: ReadonlyArray<unknown>): Promise<void> => {
      await call(method, args)
    }

    const waitExit = async () => {
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), EXIT_MS).unref())
      return Promise.race([exited, timer])
    }

    // What fake-gateway.ts's close would have removed, for a process that could not do it itself.
    const removeLeftovers = async (at: Ready) => {
      if (!(await nobodyAnswers(at.socketPath))) return
      await fsp.rm(at.socketPath, { force: true })
      if (at.pointerPath !== undefined) {
        await fsp.rm(at.pointerPath, { force: true })
        await fsp.rmdir(path.dirname(at.socketPath)).catch(() => undefined)
      }
      if (options.home === undefined) await fsp.rm(at.home, { recursive: true, force: true })
    }

    const remote = (at: Ready): RemoteGateway => ({
      home: at.home,
      origin: at.origin,
      socketPath: at.socketPath,
      pointerPath: at.pointerPath,
      pid: at.pid,
      exited,
      instanceId: get<string>("instanceId"),
      state: get<GatewayState>("state"),
      contract: get<boolean>("contract"),
      signedIn: get<boolean>("signedIn"),
      received: get<ReadonlyArray<Received>>("received"),
      ticketsMinted: get<ReadonlyArray<string>>("ticketsMinted"),
      ticketsRedeemed: get<ReadonlyArray<string>>("ticketsRedeemed"),
      sessions: get<ReadonlyArray<FakeSession>>("sessions"),
      fault: act("fault"),
      clearFaults: act("clearFaults"),
      clearReceived: act("clearReceived"),
      maxInFlight: get<number>("maxInFlight"),
      resetMaxInFlight: act("resetMaxInFlight"),
      expireTickets: act("expireTickets"),
      setContract: act("setContract"),
      setState: act("setState"),
      setSignedIn: act("setSignedIn"),
      approve: (id) => get<boolean>("approve", id)(),
      deny: (id) => get<boolean>("deny", id)(),
      expire: (id) => get<boolean>("expire", id)(),
      error: (id) => get<boolean>("error", id)(),
      restart: act("restart"),
      sweep: act("sweep"),
      kill: async () => {
        if (ended === undefined) {
          killed = true
          child.kill("SIGKILL")
        }
        await exited
      },
      close: () => (closing ??= close(at))
    })
    let closing: Promise<void> | undefined
    const close = async (at: Ready): Promise<void> => {
      if (ended === undefined && !killed) {
        const answered = await call("close").then(() => true, () => false)
        const exit = await waitExit()
        if (exit !== "timeout" && exit.code === 0 && answered) return
        if (exit === "timeout") child.kill("SIGKILL")
        await exited
        await removeLeftovers(at)
        throw new Error(`gateway process ${child.pid} did not close cleanly (${ended}); it said: ${said()}`)
      }
      // Killed or crashed: nothing closed the gateway.
      await exited
      await removeLeftovers(at)
    }
  })

const cleanups: Array<() => Promise<unknown>> = []
// Last started, first closed (as a scope does): a gateway restarted on a killed one's home closes
// before the killed one's temporary home is removed.
afterEach(async () => {
  const failures: Array<unknown> = []
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((e: unknown) => failures.push(e))
  if (failures.length > 0) throw failures[0]
})

/** A fake gateway in another process (as another account: `as`), closed after the test. */
export const gatewayProcess = async (options: FakeGatewayOptions = {}, as?: RunAs): Promise<RemoteGateway> => {
  const gateway = await spawnGateway(options, as)
  cleanups.push(() => gateway.close())
  return gateway
}

/** The same, closed when the Effect scope closes. */
export const remoteGateway = (options: FakeGatewayOptions = {}): Effect.Effect<RemoteGateway, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => spawnGateway(options)), (gateway) => Effect.promise(() => gateway.close()))
