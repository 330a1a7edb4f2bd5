// `npm run bench:profile-serve [requests=3000]`: the real `buddy serve` profiled under V8's CPU
// profiler (`node --cpu-prof`) while it answers `requests` GET /api/buddy one after another over
// one kept-alive connection, against the gateway stand-in in its own process. The CLI is bundled
// as dist/buddy.js is, but not minified and with its dependencies left in node_modules (so the
// bundle lives beside this file, where they resolve, and is removed afterwards): the profile's
// frames name our functions and Effect's own files, and the summary (bench/profile-summary.mjs)
// splits the time as bench:profile's does.
// Start-up is in the profile too (about a tenth of it at 3 000 requests): read its top functions.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { bundleCli } from "./cli-bundle.js"
import { serveConfig, startStandin } from "./standin.js"

const requests = Number(process.argv[2] ?? 3000)
const root = fileURLToPath(new URL("../", import.meta.url))
const work = mkdtempSync(join(tmpdir(), "buddy-profile-serve-"))
const standin = await startStandin()
let child: ChildProcess | undefined
process.on("exit", () => {
  child?.kill("SIGKILL")
  standin.close()
  rmSync(work, { recursive: true, force: true })
})

const bundle = await bundleCli(root, join(root, "bench", `.profile-serve-${process.pid}.cjs`))
const config = serveConfig(work, standin.home)
const runtimeDirectory = join(work, "runtime")
const profiles = join(work, "profiles")
mkdirSync(profiles)
const socketPath = join(runtimeDirectory, "serve.sock")
child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profiles}`, bundle, "serve", "--config", config], {
  stdio: ["ignore", "ignore", "pipe"],
  env: { ...process.env, RUNTIME_DIRECTORY: runtimeDirectory }
})
await new Promise<void>((resolve, reject) => {
  child!.once("exit", (code) => reject(new Error(`buddy serve exited with ${code}`)))
  createInterface({ input: child!.stderr! }).on("line", (line) => {
    if (line.includes("listening on")) resolve()
  })
})

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const get = () =>
  new Promise<number>((resolve, reject) => {
    const req = request({ socketPath, path: "/api/buddy", agent }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
    req.end()
  })
const began = performance.now()
for (let i = 0; i < requests; i++) {
  const status = await get()
  if (status !== 200) throw new Error(`GET /api/buddy answered ${status}`)
}
const elapsed = performance.now() - began
agent.destroy()
const exited = new Promise((resolve) => child!.once("exit", resolve))
child.kill("SIGINT")
await exited
child = undefined
const [written] = readdirSync(profiles)
process.stdout.write(`${requests} requests in ${elapsed.toFixed(0)} ms (${(elapsed / requests).toFixed(3)} ms each)\n`)
const summary = spawn(process.execPath, [join(root, "bench/profile-summary.mjs"), join(profiles, written!), "40"], {
  stdio: "inherit"
})
await new Promise((resolve) => summary.once("exit", resolve))
process.exit(0)
