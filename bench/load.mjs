// A small closed-loop load generator, run in a process of its own: `connections` keep-alive
// connections, each sending the next GET as soon as the last answer is in, for `seconds`.
// Only an answer of 200 that reads Buddy's state as "works" (what the stand-in serves) counts: a
// status read that failed is a 200 too, with state "unknown".
//   node bench/load.mjs <socket> <connections> <seconds>   GET /api/buddy over a Unix socket; prints {"requests":…,"non200":…,"errors":…,"seconds":…}
import { Agent, request } from "node:http"

const [socketPath, connections, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]
const agent = new Agent({ keepAlive: true, maxSockets: connections })
let requests = 0
/** Answers other than a 200 reading "works". */
let non200 = 0
let errors = 0
const start = performance.now()
const end = start + seconds * 1000

const one = () =>
  new Promise((resolve) => {
    const req = request({ socketPath, path: "/api/buddy", agent }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk) => {
        body += chunk
      })
      res.on("end", () => {
        if (res.statusCode === 200 && body.includes("\"state\":\"works\"")) requests++
        else non200++
        resolve()
      })
    })
    req.on("error", () => {
      errors++
      resolve()
    })
    req.end()
  })

const loop = async () => {
  while (performance.now() < end) await one()
}

await Promise.all(Array.from({ length: connections }, loop))
const elapsed = (performance.now() - start) / 1000
process.stdout.write(`${JSON.stringify({ requests, non200, errors, seconds: elapsed })}\n`)
agent.destroy()
