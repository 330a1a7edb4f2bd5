// The floor: a minimal hand-written client doing only what a status read needs, with node:net and
// node:http: identify, mint one ticket, GET /api/providers/oauth with it, read openai-codex's
// logged_in. No path checks, no deadlines, no schemas: what any client must at least spend.

import { request } from "node:http"
import { createConnection } from "node:net"

/** One control exchange: one line out, one line back. */
const exchange = (socketPath, line) =>
  new Promise((resolve, reject) => {
    const socket = createConnection(socketPath)
    let text = ""
    socket.setEncoding("utf8")
    socket.on("error", reject)
    socket.on("data", (chunk) => {
      text += chunk
      const end = text.indexOf("\n")
      if (end === -1) return
      socket.destroy()
      resolve(JSON.parse(text.slice(0, end)))
    })
    socket.write(line)
  })

const get = (origin, path, ticket) =>
  new Promise((resolve, reject) => {
    const url = new URL(origin)
    const req = request({
      host: url.hostname,
      port: url.port,
      path,
      agent: false,
      setHost: false,
      headers: [
        "Host",
        url.host,
        "Accept",
        "application/json",
        "X-Hermes-Gateway-Ticket",
        ticket,
        "Connection",
        "close"
      ]
    }, (res) => {
      const parts = []
      res.on("data", (chunk) => parts.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(parts) }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

/** One status read against the gateway whose control socket is `socketPath`, for the real home `home`. */
export const rawRead = async (socketPath, home) => {
  const identity = (await exchange(socketPath, "{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}\n")).result
  const profile = identity.served_profiles.find((served) => served.home === home)
  const params = { profile_id: profile.profile_id, instance_id: identity.instance_id, purpose: "native-http" }
  const minted = await exchange(
    socketPath,
    `${JSON.stringify({ protocol: 1, id: 1, verb: "session-ticket", params })}\n`
  )
  const answer = await get(identity.api_origin, "/api/providers/oauth", minted.result.ticket)
  const card = JSON.parse(answer.body.toString("utf8")).providers.find((entry) => entry.id === "openai-codex")
  return card.status.logged_in === true
}
