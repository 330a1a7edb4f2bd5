// Summarises a .cpuprofile: wall time split into idle (waiting: the event loop had nothing to run),
// garbage collection, and the rest by where the code comes from (Effect's runtime, Effect's Schema,
// Node's own modules, our src/, the bench), plus the top functions by self time.
//   node bench/profile-summary.mjs FILE.cpuprofile [top=15]
import { readFileSync } from "node:fs"

const profile = JSON.parse(readFileSync(process.argv[2], "utf8"))
const top = Number(process.argv[3] ?? 15)
const file = (url) =>
  url.replace(/^.*node_modules\//, "").replace(/^.*\/bench\/\.profile-(serve-)?\d+\.[cm]js/, "bundle").replace(
    /^file:\/\/.*?\/main\//,
    ""
  )

const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const self = new Map()
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i + 1] ?? 0
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt)
}

const category = ({ callFrame: { url, functionName } }) => {
  if (functionName === "(idle)") return "idle (waiting)"
  if (functionName === "(garbage collector)") return "garbage collection"
  if (functionName === "(program)") return "V8/native (program)"
  if (url.includes("/effect/dist/") && /Schema|ParseResult|SchemaAST/.test(url)) return "Effect Schema"
  if (url.includes("/effect/dist/")) return "Effect runtime"
  if (url.includes("node_modules/")) return "other dependencies"
  if (url.startsWith("node:")) return "Node (net, http, fs, streams…)"
  if (url === "") return "native (no script)"
  if (url.includes("/src/") || url.includes("/bench/.profile-")) return "buddy src/ (and the bench loop)"
  return "other (bench, loader)"
}

const total = [...self.values()].reduce((a, b) => a + b, 0)
const categories = new Map()
const functions = new Map()
for (const [id, time] of self) {
  const node = byId.get(id)
  const key = category(node)
  categories.set(key, (categories.get(key) ?? 0) + time)
  const { functionName, url, lineNumber } = node.callFrame
  const name = `${functionName || "(anonymous)"} ${file(url)}:${lineNumber + 1}`
  functions.set(name, (functions.get(name) ?? 0) + time)
}

const pct = (time) => `${((100 * time) / total).toFixed(1).padStart(5)} %`
console.log(`sampled ${(total / 1000).toFixed(0)} ms`)
console.log("\nby category (self time)")
for (const [key, time] of [...categories].sort((a, b) => b[1] - a[1])) console.log(`${pct(time)}  ${key}`)
console.log(`\ntop ${top} functions by self time`)
for (const [key, time] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(time)}  ${key}`)
