// The throughput floor for `GET /api/buddy`: a bare node:http server that answers every request with
// one raw status read (bench/floor.mjs) against the stand-in, and Buddy's JSON. No routing, no checks.
//   node bench/bare-server.mjs <socket> <home>   prints {"port":…} once it listens; exits when stdin closes.
import { createServer } from "node:http"
import { rawRead } from "./floor.mjs"

const [socketPath, home] = process.argv.slice(2)

const server = createServer((request, response) => {
  request.resume()
  rawRead(socketPath, home).then(
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
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`))
process.stdin.on("end", () => process.exit(0)).resume()
