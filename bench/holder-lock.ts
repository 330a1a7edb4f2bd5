// `npm run bench:lock [-- <rev>]`: the holder lock (D39) against the one it replaced (D23: util-linux's
// flock(1) spawned at every take), in one interleaved run. <rev> (default 9db514c, the last commit
// with the old lock) is extracted beside a link to our node_modules, as bench/versus.ts does.
//   1. Take/release pairs: each lock's live layer on a home of its own, PAIRS pairs per round,
//      ROUNDS rounds (default 10 × 100 = 1 000 pairs each) in a rotated order. Wall time per pair
//      (p50, p90), the whole 1 000, and CPU per pair of this process (user + system; flock's own
//      process is not in it).
//   2. Sign-outs through `buddy serve` (SIGN_OUTS, default 1 000 each, sequential, in blocks of 100
//      alternating between the two): <rev>'s bundle and the working tree's, each a serve process on
//      TCP against the gateway stand-in (bench/standin.mjs), which signs out at every DELETE. SERVE=0
//      skips it.
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { BuddyConfig } from "../src/services/BuddyConfig.js"
import type { HolderLock } from "../src/services/HolderLock.js"
import { startStandin } from "./standin.js"

/** What the bench needs of a revision's lock; the old revision's has the same shape. */
interface Revision {
  readonly BuddyConfig: typeof BuddyConfig
  readonly HolderLock: typeof HolderLock
  readonly HolderLockLive: Layer.Layer<HolderLock, never, BuddyConfig>
}

const rev = process.argv[2] ?? "9db514c"
const rounds = Number(process.env.ROUNDS ?? 10)
const pairs = Number(process.env.PAIRS ?? 100)
const signOuts = Number(process.env.SIGN_OUTS ?? 1000)
const block = 100
const root = fileURLToPath(new URL("../", import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), "buddy-bench-lock-"))
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }))
const before = join(scratch, "before")
mkdirSync(before)
execFileSync("sh", [
  "-c",
  `git -C "${root}" archive "${rev}" src scripts bin fixtures package.json | tar -x -C "${before}"`
])
symlinkSync(join(root, "node_modules"), join(before, "node_modules"))
// The old lock's place hung on the environment: a runtime directory of the bench's own.
const runtime = join(scratch, "run")
mkdirSync(runtime, { mode: 0o700 })
process.env["XDG_RUNTIME_DIR"] = runtime

const load = async (dir: string): Promise<Revision> => ({
  BuddyConfig: (await import(join(dir, "src/services/BuddyConfig.ts"))).BuddyConfig,
  ...(await import(join(dir, "src/services/HolderLock.ts")))
})

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}
const median = (values: ReadonlyArray<number>) => quantile(values, 0.5)
const ms = (value: number) => value.toFixed(3)

// 1. Take/release pairs.
const pairOf = async (revision: Revision) => {
  const home = join(scratch, `home-${Math.random().toString(16).slice(2)}`)
  mkdirSync(home, { mode: 0o700 })
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      revision.HolderLockLive.pipe(Layer.provide(revision.BuddyConfig.gatewayLayer({ hermesHome: home }))),
      scope
    )
  )
  const lock = Context.get(context, revision.HolderLock)
  const once = Effect.zipRight(lock.take, lock.release)
  return {
    pair: () => Effect.runPromise(once),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
const locks = {
  [`flock(1), ${rev}`]: await pairOf(await load(before)),
  "rename, working tree": await pairOf(await load(root))
}
const lockNames = Object.keys(locks)
const lockResults = Object.fromEntries(
  lockNames.map((name) => [name, { wall: [] as Array<number>, cpu: [] as Array<number>, total: 0 }])
)
for (let r = -1; r < rounds; r++) {
  for (let k = 0; k < lockNames.length; k++) {
    const name = lockNames[(r + 1 + k) % lockNames.length]!
    const cpu = process.cpuUsage()
    const started = performance.now()
    const walls: Array<number> = []
    for (let i = 0; i < pairs; i++) {
      const start = performance.now()
      await locks[name]!.pair()
      walls.push(performance.now() - start)
    }
    if (r < 0) continue // warm-up, not counted
    const used = process.cpuUsage(cpu)
    lockResults[name]!.wall.push(...walls)
    lockResults[name]!.cpu.push((used.user + used.system) / pairs / 1000)
    lockResults[name]!.total += performance.now() - started
  }
}
for (const lock of Object.values(locks)) await lock.close()
console.log(`take/release pairs: ${rounds} rounds × ${pairs} pairs each, interleaved (ms)`)
console.log("| lock | p50 per pair | p90 per pair | whole run | CPU per pair (this process) |")
console.log("|---|---|---|---|---|")
for (const name of lockNames) {
  const { cpu, total, wall } = lockResults[name]!
  console.log(
    `| ${name} | ${ms(median(wall))} | ${ms(quantile(wall, 0.9))} | ${total.toFixed(0)} | ${ms(median(cpu))} |`
  )
}

// 2. Sign-outs through buddy serve.
if (process.env["SERVE"] !== "0") {
  execFileSync(process.execPath, [join(before, "scripts/build.js")], { stdio: ["ignore", "ignore", "inherit"] })
  const standin = await startStandin()
  process.on("exit", () => standin.close())
  const launchpad = "https://launchpad.example"
  const config = join(scratch, "config.json")
  writeFileSync(
    config,
    JSON.stringify({
      hermesHome: standin.home,
      launchpadOrigin: launchpad,
      buddyOrigin: "https://buddy.example",
      environment: "hosted-personal",
      locale: "en"
    })
  )
  const serve = (dir: string) =>
    new Promise<{ port: number; stop: () => void }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(dir, "bin/buddy.js"), "serve", "--config", config, "--port", "0"], {
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, XDG_RUNTIME_DIR: runtime }
      })
      process.on("exit", () => child.kill("SIGKILL"))
      child.once("exit", (code) => reject(new Error(`buddy serve exited with ${code}`)))
      createInterface({ input: child.stderr! }).on("line", (line) => {
        if (line.includes("listening on")) {
          resolve({ port: Number(line.slice(line.lastIndexOf(":") + 1)), stop: () => child.kill("SIGTERM") })
        }
      })
    })
  const signOut = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/buddy/sign-out",
        agent: false,
        headers: { "content-type": "application/json", origin: launchpad, "sec-fetch-site": "same-origin" }
      }, (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`sign-out answered ${res.statusCode} ${text}`)))
      })
      req.on("error", reject)
      req.end("{}")
    })
  const servers = { [`flock(1), ${rev}`]: await serve(before), "rename, working tree": await serve(root) }
  const serveNames = Object.keys(servers)
  const serveResults = Object.fromEntries(serveNames.map((name) => [name, { each: [] as Array<number>, total: 0 }]))
  for (let b = -1; b < signOuts / block; b++) {
    for (let k = 0; k < serveNames.length; k++) {
      const name = serveNames[(b + 1 + k) % serveNames.length]!
      const started = performance.now()
      const each: Array<number> = []
      for (let i = 0; i < block; i++) {
        const start = performance.now()
        await signOut(servers[name]!.port)
        each.push(performance.now() - start)
      }
      if (b < 0) continue // warm-up, not counted
      serveResults[name]!.each.push(...each)
      serveResults[name]!.total += performance.now() - started
    }
  }
  for (const server of Object.values(servers)) server.stop()
  console.log(`\nsign-outs through buddy serve: ${signOuts} each, sequential, blocks of ${block} alternating (ms)`)
  console.log("| buddy serve | p50 per sign-out | p90 per sign-out | all of them |")
  console.log("|---|---|---|---|")
  for (const name of serveNames) {
    const { each, total } = serveResults[name]!
    console.log(`| ${name} | ${ms(median(each))} | ${ms(quantile(each, 0.9))} | ${total.toFixed(0)} |`)
  }
}
process.exit(0)
