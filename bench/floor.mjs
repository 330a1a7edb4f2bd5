// The floors: minimal hand-written clients doing only what a status read needs, with node:net and
// node:http: identify, mint one ticket, GET /api/providers/oauth with it, read openai-codex's
// logged_in. No path checks, no deadlines, no schemas: what any client must at least spend. One
// identifies at every read; the other identifies once, as Hermes Desktop's client does (D47), and
// may also make C1's three file-system calls before each mint, as buddy and the Desktop do, with
// nothing checked of what they return: what the walk's own I/O costs (D47.11).

import { lstat, realpath } from "node:fs/promises"
import { request } from "node:http"
import { createConnection } from "node:net"
import { join } from "node:path"

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

const identifyLine = "{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}\n"

/** identify: what a read needs of it, the ticket's params and the API's origin. */
const identifyAt = async (socketPath, home) => {
  const identity = (await exchange(socketPath, identifyLine)).result
  const profile = identity.served_profiles.find((served) => served.home === home)
  return {
    params: { profile_id: profile.profile_id, instance_id: identity.instance_id, purpose: "native-http" },
    origin: identity.api_origin
  }
}

/** One mint, or undefined when the gateway refused it (another instance: identify again). */
export const mintOnce = async (socketPath, params) => {
  const minted = await exchange(
    socketPath,
    `${JSON.stringify({ protocol: 1, id: 1, verb: "session-ticket", params })}\n`
  )
  return minted.ok ? minted.result.ticket : undefined
}

/** The provider list's openai-codex `logged_in`, with one ticket. */
const readWith = async (origin, ticket) => {
  const answer = await get(origin, "/api/providers/oauth", ticket)
  const card = JSON.parse(answer.body.toString("utf8")).providers.find((entry) => entry.id === "openai-codex")
  return card.status.logged_in === true
}

/** One status read against the gateway whose control socket is `socketPath`, for the real home `home`. */
export const rawRead = async (socketPath, home) => {
  const { params, origin } = await identifyAt(socketPath, home)
  return readWith(origin, await mintOnce(socketPath, params))
}

/** C1's three calls in one wait, as buddy's walk asks for them: the home's real path, lstat of it and of its socket. */
const walk = (home) => Promise.all([realpath(home), lstat(home), lstat(join(home, "gateway.sock"))])

/**
 * The protocol Hermes Desktop's client speaks (C2's reuse, D47): identify once, again only after a
 * refused mint; each read one mint and one GET on a new connection, after C1's three calls when
 * `walks`. Returns its read.
 */
export const identifyOnceReader = (socketPath, home, walks = false) => {
  let identity
  const read = async () => {
    identity ??= identifyAt(socketPath, home)
    const { params, origin } = await identity
    if (walks) await walk(home)
    const ticket = await mintOnce(socketPath, params)
    if (ticket !== undefined) return readWith(origin, ticket)
    identity = undefined
    return read()
  }
  return read
}
