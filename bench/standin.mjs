// A minimal Hermes gateway stand-in for the bench, in a process of its own: a Unix socket at
// <home>/gateway.sock (0600, in a 0700 home of ours, so buddy's C1 checks pass) answering identify
// and session-ticket with Hermes's recorded lines, and a loopback HTTP server answering the
// recorded provider list (a DELETE, the recorded sign-out). No Effect and no checks: it must cost
// the client as little as possible.
//   node bench/standin.mjs <home>   prints {"origin":…,"socket":…,"home":…} once both listen;
//   it exits when its stdin closes (the bench ended, however it ended).
import { randomBytes, randomUUID } from "node:crypto"
import { chmodSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer as createNetServer } from "node:net"
import { join } from "node:path"

const home = realpathSync(process.argv[2])
const socketPath = join(home, "gateway.sock")
const { answers } = JSON.parse(readFileSync(new URL("../fixtures/hermes/recorded.json", import.meta.url), "utf8"))

// The templates' {{name}} placeholders; strings arrive JSON-escaped, without their quotes.
const render = (template, values) => template.replaceAll(/\{\{(\w+)\}\}/g, (_, name) => values[name] ?? "")
const str = (value) => JSON.stringify(value).slice(1, -1)
const instanceId = randomUUID().replaceAll("-", "")
const idMember = ", \"id\": 1"
const body = Buffer.from(render(answers["providers-signed-in"].body, { xai_source_label: "xAI Grok OAuth" }))
// The sign-out's answer (bench/holder-lock.ts): every DELETE signs out.
const signedOut = Buffer.from(answers["sign-out-ok"].body)

const api = createHttpServer((request, response) => {
  request.resume()
  const answer = request.method === "DELETE" ? signedOut : body
  response.writeHead(200, { "content-type": "application/json", "content-length": answer.length })
  response.end(answer)
})
await new Promise((resolve) => api.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${api.address().port}`

const identifyLine = render(answers["identify-ready-contract"].line, {
  pid: String(process.pid),
  start_time: "1",
  home: str(home),
  instance_id: instanceId,
  api_origin: origin,
  id_member: idMember
})
const ticketLine = () =>
  render(answers["ticket-issued"].line, {
    ticket: randomBytes(32).toString("base64url"),
    instance_id: instanceId,
    home: str(home),
    id_member: idMember
  })

const control = createNetServer((socket) => {
  let text = ""
  socket.setEncoding("utf8")
  socket.on("error", () => {})
  socket.on("data", (chunk) => {
    text += chunk
    if (!text.includes("\n")) return
    socket.end(text.includes("\"session-ticket\"") ? ticketLine() : identifyLine)
  })
})
rmSync(socketPath, { force: true })
await new Promise((resolve) => control.listen(socketPath, resolve))
chmodSync(socketPath, 0o600)

const stop = () => {
  rmSync(socketPath, { force: true })
  process.exit(0)
}
process.stdin.on("end", stop).on("close", stop).resume()
process.on("SIGTERM", stop)
process.stdout.write(`${JSON.stringify({ origin, socket: socketPath, home })}\n`)
