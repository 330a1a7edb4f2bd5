// `npm run bench:versus-serve -- <rev> [<rev> ...]`: `buddy serve` of each git revision against the
// working tree's, in one run. Each is bundled as the CLI is (./cli-bundle.ts) and started as `buddy serve
// --config` on a socket of its own, against the gateway stand-in in its own process, beside the
// bare server (bench/bare-server.mjs). `GET /api/buddy` goes to each in turn, over a kept-alive
// connection and over a new connection per request, in rounds whose order rotates; each server's
// CPU per request is read from /proc around its own requests. p50 over the bare server's, the
// median over rounds. ROUNDS (default 10) and READS (per round and kind, default
// 150) lengthen or shorten it. LOAD=16,64 adds throughput at those numbers of kept-alive connections
// (bench/load.mjs in its own process, as `npm run bench` measures it): LOAD_ROUNDS rounds (default 6)
// of LOAD_SECONDS (default 3) per server, the servers' order rotating, each server's req/s over the
// bare server's summed over the rounds. ROUNDS=0 leaves the latency out.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { bundleCli } from "./cli-bundle.js"
import { quantile } from "./interleave.js"
import { serveConfig, startChild, startStandin } from "./standin.js"
import { throughputTable } from "./versus-load.js"

const revs = process.argv.slice(2)
if (revs.length === 0) throw new Error("usage: npm run bench:versus-serve -- <git revision> [<git revision> ...]")
const rounds = Number(process.env.ROUNDS ?? 10)
const reads = Number(process.env.READS ?? 150)
const root = fileURLToPath(new URL("../", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "buddy-versus-serve-"))
const children: Array<ChildProcess> = []
const cleanUps: Array<() => void> = []
process.on("exit", () => {
  children.forEach((child) => child.kill("SIGKILL"))
  cleanUps.forEach((cleanUp) => cleanUp())
  rmSync(work, { recursive: true, force: true })
})

// Each revision as a tree of its own, with its package.json (ESM) and tsconfig.json, beside a link
// to our node_modules (bench:versus says why both files, D47.11).
const treeOf = (rev: string, index: number) => {
  const tree = join(work, `before-${index}`)
  mkdirSync(tree)
  execFileSync("sh", [
    "-c",
    `git -C "${root}" archive "${rev}" src package.json tsconfig.json | tar -x -C "${tree}"`
  ])
  symlinkSync(join(root, "node_modules"), join(tree, "node_modules"))
  return tree
}

/** The CLI of the tree at `dir`, bundled beside this file (./cli-bundle.ts). */
const bundled = (dir: string, name: string) =>
  bundleCli(dir, join(root, "bench", `.versus-serve-${process.pid}-${name}.cjs`))

const standin = await startStandin()
cleanUps.push(() => standin.close())
const config = serveConfig(work, standin.home)

/** `buddy serve` from `bundle` on its default socket in a runtime directory of its own. */
const startServe = (bundle: string, name: string) =>
  new Promise<{ socket: string; pid: number }>((resolve, reject) => {
    const runtimeDirectory = join(work, `runtime-${name}`)
    mkdirSync(runtimeDirectory, { mode: 0o700 })
    const socket = join(runtimeDirectory, "serve.sock")
    const child = spawn(process.execPath, [bundle, "serve", "--config", config], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, RUNTIME_DIRECTORY: runtimeDirectory }
    })
    children.push(child)
    child.once("exit", (code) => reject(new Error(`buddy serve (${name}) exited with ${code}`)))
    createInterface({ input: child.stderr! }).on("line", (line) => {
      if (line === `buddy serve: listening on unix:${socket}`) resolve({ socket, pid: child.pid! })
    })
  })

const servers: Record<string, { socket: string; pid: number }> = {}
for (const [index, rev] of revs.entries()) {
  servers[rev] = await startServe(await bundled(treeOf(rev, index), `before-${index}`), `before-${index}`)
}
servers["working tree"] = await startServe(await bundled(root, "after"), "after")
const bare = await startChild<{ socket: string }>("bare-server.mjs", [
  standin.socket,
  standin.home,
  join(work, "bare.sock")
])
cleanUps.push(() => bare.close())
const targets: Record<string, { socket: string; pid: number }> = {
  ...servers,
  "bare server": { socket: bare.ready.socket, pid: bare.process.pid! }
}

/** A process's CPU so far (user + system), in µs, from /proc. */
const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim())
const cpuOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / clockTicks
}

const get = (socketPath: string, agent: Agent | false) =>
  new Promise<void>((resolve, reject) => {
    const req = request({ socketPath, path: "/api/buddy", agent }, (res) => {
      const parts: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => parts.push(chunk))
      res.on("end", () => {
        const body = Buffer.concat(parts).toString("utf8")
        if (res.statusCode === 200 && body.includes("works")) resolve()
        else reject(new Error(`${socketPath} answered ${res.statusCode} ${body}`))
      })
    })
    req.on("error", reject)
    req.end()
  })

const agents = Object.fromEntries(
  Object.keys(targets).map((name) => [name, new Agent({ keepAlive: true, maxSockets: 1 })])
)
const kinds = Object.keys(targets).flatMap((name) => [
  { name, connection: "kept", agent: agents[name]! as Agent | false },
  { name, connection: "new", agent: false as Agent | false }
])
const results = new Map(kinds.map((kind) => [kind, { p50: [] as Array<number>, cpu: [] as Array<number> }]))
for (let r = rounds > 0 ? -1 : 0; r < rounds; r++) {
  for (let k = 0; k < kinds.length; k++) {
    const kind = kinds[(r + 1 + k) % kinds.length]!
    const { pid, socket } = targets[kind.name]!
    const latencies: Array<number> = []
    const cpu = cpuOf(pid)
    for (let i = 0; i < reads; i++) {
      const start = performance.now()
      await get(socket, kind.agent)
      latencies.push(performance.now() - start)
    }
    if (r < 0) continue // the first round warms up
    results.get(kind)!.p50.push(quantile(latencies, 0.5))
    results.get(kind)!.cpu.push((cpuOf(pid) - cpu) / reads)
  }
}
Object.values(agents).forEach((agent) => agent.destroy())

const figure = (name: string, connection: string) => {
  const found = [...results].find(([kind]) => kind.name === name && kind.connection === connection)![1]
  return { p50: quantile(found.p50, 0.5), cpu: quantile(found.cpu, 0.5) }
}
if (rounds > 0) printLatency()
const connections = (process.env.LOAD ?? "").split(",").filter((n) => n !== "").map(Number)
if (connections.length > 0) {
  process.stdout.write(
    await throughputTable(targets, "bare server", connections, {
      rounds: Number(process.env.LOAD_ROUNDS ?? 6),
      seconds: Number(process.env.LOAD_SECONDS ?? 3)
    })
  )
}
process.exit(0)

function printLatency() {
  process.stdout.write(
    "| GET /api/buddy | kept-alive p50 / bare | new connection p50 / bare | CPU µs per request (kept-alive) |\n|---|---|---|---|\n"
  )
  for (const name of Object.keys(targets)) {
    const kept = figure(name, "kept")
    const fresh = figure(name, "new")
    process.stdout.write(
      `| ${name} | ${(kept.p50 / figure("bare server", "kept").p50).toFixed(2)}× | ${
        (fresh.p50 / figure("bare server", "new").p50).toFixed(2)
      }× | ${kept.cpu.toFixed(0)} |\n`
    )
  }
  process.stdout.write(`\n${rounds} rounds × ${reads} requests per kind, interleaved; node ${process.version}\n\n`)
}
