// The floor for `GET /api/buddy`: a bare node:http server that answers every request with one raw
// status read (bench/floor.mjs) against the stand-in, and Buddy's JSON. No routing, no checks. It
// speaks the protocol buddy speaks: identify once, one mint and one GET per request (D47).
//   node bench/bare-server.mjs <gateway socket> <home> <own socket>   prints {"socket":…} once it listens on
//   its own Unix socket (as buddy serve does); exits when stdin closes.
import { createServer } from "node:http"
import { identifyOnceReader } from "./floor.mjs"

const [socketPath, home, own] = process.argv.slice(2)
const rawRead = identifyOnceReader(socketPath, home)

const server = createServer((request, response) => {
  request.resume()
  rawRead().then(
    (loggedIn) => {
      const body = JSON.stringify({ kind: "buddy", state: loggedIn ? "works" : "waits", signIn: { state: "none" } })
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
      response.end(body)
    },
    () => {
      response.writeHead(503, { "content-type": "application/json" })
      response.end("{\"error\":\"buddy-unavailable\"}")
    }
  )
})
server.listen(own, () => process.stdout.write(`${JSON.stringify({ socket: own })}\n`))
process.stdin.on("end", () => process.exit(0)).resume()
