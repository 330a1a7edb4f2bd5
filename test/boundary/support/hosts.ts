// The product as it is hosted, for tests at its boundary: `buddy serve`'s own server (serveOn, in a
// child process), the README's two mounting examples and `makeBuddyWebHandler`, each configured
// for a gateway that runs in ANOTHER process (test/support/gateway-process.ts). A host is asked
// through real sockets (the web handler through web Requests, as its hosts call it).
import { HttpServer } from "@effect/platform"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import { build } from "esbuild"
import { promises as fsp } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { launchpad as effectLaunchpad } from "../../../examples/mount-effect.js"
import { launchpad as nodeLaunchpad } from "../../../examples/mount-node.js"
import { makeBuddyWebHandler } from "../../../src/http/hosts.js"
import { BuddyConfig, type BuddyConfigShape } from "../../../src/services/BuddyConfig.js"
import { BIN, REPO, type Running, spawnBuddy } from "../../cli/support/buddy-process.js"

export const LAUNCHPAD = "https://launchpad.example"
export const BUDDY = "https://buddy.example"

export type HostKind = "buddy serve" | "mount-effect example" | "mount-node example" | "web handler"
export const hostKinds: ReadonlyArray<HostKind> = [
  "buddy serve",
  "mount-effect example",
  "mount-node example",
  "web handler"
]

export interface Reply {
  readonly status: number
  readonly body: string
  /** From the request's first byte to its answer's last. */
  readonly ms: number
}

/** Where a host listens: a loopback port (the web handler listens nowhere: 0), or buddy serve's socket. */
export type Address = { readonly port: number } | { readonly socketPath: string }

/** The request options that reach `address`. */
export const reach = (address: Address): http.RequestOptions =>
  "port" in address ? { host: "127.0.0.1", port: address.port } : { socketPath: address.socketPath }

export interface Host {
  readonly kind: HostKind
  readonly address: Address
  /** The serving process, when it is a child of ours. */
  readonly pid: number | undefined
  /** A GET, or a POST from the Launchpad's own page (same origin, JSON) with this body. */
  readonly request: (method: "GET" | "POST", path: string, body?: string) => Promise<Reply>
  /** The journal lines on the host's stdout so far (the serve child only; in-process hosts share ours). */
  readonly journal: () => ReadonlyArray<string> | undefined
  /** What the serve child said on stderr so far (undefined for in-process hosts). */
  readonly stderr: () => ReadonlyArray<string> | undefined
  readonly close: () => Promise<void>
}

export interface DeadlinesMs {
  readonly control: number
  readonly api: number
  readonly start: number
}

export const hostedConfig = (hermesHome: string, deadlines?: DeadlinesMs): BuddyConfigShape =>
  BuddyConfig.forGateway({
    hermesHome,
    launchpadOrigin: LAUNCHPAD,
    buddyOrigin: BUDDY,
    environment: "hosted-personal",
    locale: "en",
    ...(deadlines === undefined ? {} : {
      deadlines: {
        control: Duration.millis(deadlines.control),
        api: Duration.millis(deadlines.api),
        start: Duration.millis(deadlines.start)
      }
    })
  })

const postHeaders = (body: string) => ({
  origin: LAUNCHPAD,
  "sec-fetch-site": "same-origin",
  "content-type": "application/json",
  "content-length": String(Buffer.byteLength(body))
})

/** One request on its own connection (no agent), timed. */
export const requestOn = (address: Address, method: "GET" | "POST", pathname: string, body?: string) =>
  new Promise<Reply>((resolve, reject) => {
    const started = performance.now()
    const req = http.request(
      {
        ...reach(address),
        method,
        path: pathname,
        agent: false,
        headers: body === undefined ? {} : postHeaders(body)
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, ms: performance.now() - started }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

// `serveOn` exactly as `buddy serve` runs it (the server with its own limits, BuddyLive, the journal
// on stdout), with the deadlines a test gives: bundled once, run in a child per host.
const serveProgram = `
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Duration, Effect } from "effect"
import { readFileSync } from "node:fs"
import { serveOn } from "./src/serve/serving.js"
import { BuddyConfig } from "./src/services/BuddyConfig.js"
const { deadlines, ...file } = JSON.parse(readFileSync(process.argv[2], "utf8"))
const config = BuddyConfig.forGateway({
  ...file,
  deadlines: { control: Duration.millis(deadlines.control), api: Duration.millis(deadlines.api), start: Duration.millis(deadlines.start) }
})
serveOn(config, { _tag: "Socket", path: process.argv[3] }).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain)
`
let serveBundle: Promise<string> | undefined
const bundled = () => (serveBundle ??= (async () => {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "buddy-boundary-"))
  const outfile = path.join(dir, "serve.mjs")
  await build({
    stdin: { contents: serveProgram, resolveDir: REPO, loader: "ts", sourcefile: "boundary-serve.ts" },
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    banner: { js: "import { createRequire } from \"node:module\"; const require = createRequire(import.meta.url);" }
  })
  process.once("exit", () => void fsp.rm(dir, { recursive: true, force: true }))
  return outfile
})())

const journalOf = (serve: Running) => () => serve.stdoutNow().filter((line) => line.startsWith("{"))

export interface ServeOptions {
  /** The real executable under Node's inspector on a free loopback port (its address on stderr). */
  readonly inspect?: boolean
}

/** The serve child's lines; `buddy` is the real executable with default deadlines, otherwise serveOn. */
const serveHost = async (home: string, deadlines: DeadlinesMs | undefined, options: ServeOptions): Promise<Host> => {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "buddy-boundary-config-"))
  const file = path.join(dir, "config.json")
  const fields = {
    hermesHome: home,
    launchpadOrigin: LAUNCHPAD,
    buddyOrigin: BUDDY,
    environment: "hosted-personal",
    locale: "en"
  }
  await fsp.writeFile(file, JSON.stringify(deadlines === undefined ? fields : { ...fields, deadlines }))
  const socketPath = path.join(dir, "runtime", "serve.sock")
  const serve = deadlines === undefined
    ? spawnBuddy(["serve", "--config", file, "--socket", socketPath], {
      stoppedByCaller: true,
      ...(options.inspect === true ? { command: [process.execPath, "--inspect=127.0.0.1:0", BIN] } : {})
    })
    : spawnBuddy([await bundled(), file, socketPath], { command: [process.execPath], stoppedByCaller: true })
  await serve.stderrWith("buddy serve: listening on")
  return {
    kind: "buddy serve",
    address: { socketPath },
    pid: serve.child.pid,
    request: (method, pathname, body) => requestOn({ socketPath }, method, pathname, body),
    journal: journalOf(serve),
    stderr: serve.stderrNow,
    close: async () => {
      serve.child.kill("SIGTERM")
      await serve.finished
      await fsp.rm(dir, { recursive: true, force: true })
    }
  }
}

const effectHost = async (config: BuddyConfigShape): Promise<Host> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(effectLaunchpad(config, 0), scope))
  const address = Effect.runSync(Effect.provide(HttpServer.HttpServer, context)).address
  const port = address._tag === "TcpAddress" ? address.port : 0
  return {
    kind: "mount-effect example",
    address: { port },
    pid: undefined,
    request: (method, pathname, body) => requestOn({ port }, method, pathname, body),
    journal: () => undefined,
    stderr: () => undefined,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const nodeHost = async (config: BuddyConfigShape): Promise<Host> => {
  const { close, server } = await nodeLaunchpad(config)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    kind: "mount-node example",
    address: { port },
    pid: undefined,
    request: (method, pathname, body) => requestOn({ port }, method, pathname, body),
    journal: () => undefined,
    stderr: () => undefined,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await close()
    }
  }
}

const webHost = (config: BuddyConfigShape): Host => {
  const { dispose, handler } = makeBuddyWebHandler(config)
  return {
    kind: "web handler",
    address: { port: 0 },
    pid: undefined,
    request: async (method, pathname, body) => {
      const started = performance.now()
      const response = await handler(
        new Request(`${LAUNCHPAD}${pathname}`, {
          method,
          ...(body === undefined ? {} : {
            body,
            headers: { origin: LAUNCHPAD, "sec-fetch-site": "same-origin", "content-type": "application/json" }
          })
        })
      )
      const text = await response.text()
      return { status: response.status, body: text, ms: performance.now() - started }
    },
    journal: () => undefined,
    stderr: () => undefined,
    close: dispose
  }
}

/** The host of this kind for the gateway's home; `deadlines` undefined: the contract's defaults. */
export const startHost = (
  kind: HostKind,
  home: string,
  deadlines?: DeadlinesMs,
  options: ServeOptions = {}
): Promise<Host> => {
  switch (kind) {
    case "buddy serve":
      return serveHost(home, deadlines, options)
    case "mount-effect example":
      return effectHost(hostedConfig(home, deadlines))
    case "mount-node example":
      return nodeHost(hostedConfig(home, deadlines))
    case "web handler":
      return Promise.resolve(webHost(hostedConfig(home, deadlines)))
  }
}
