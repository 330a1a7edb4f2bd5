// Run inside a scratch Launchpad project by test/package.test.ts (D43): the examples shipped in the
// installed tarball, compiled there by tsc into `out/`, each host started under a prefix on the
// simulator the tarball ships, and walked through C6 as the Launchpad's page would: the status
// read (and its HEAD), start, poll, cancel and sign-out from its own origin, the document, a path
// outside the prefix. Prints one JSON object: each host's answers, the handle and code masked.
import { HttpServer } from "@effect/platform"
import { ManagedRuntime } from "effect"
import { spawn } from "node:child_process"
import { request } from "node:http"
import * as path from "node:path"
import { createInterface } from "node:readline"

const [home] = process.argv.slice(2)
const LAUNCHPAD = "https://launchpad.example"
const PREFIX = "/launchpad/buddy"

const simulator = spawn(process.execPath, [path.resolve("node_modules/.bin/buddy-simulator"), "--home", home], {
  stdio: ["ignore", "pipe", "inherit"]
})
await new Promise((resolve) => createInterface({ input: simulator.stdout }).once("line", resolve))

// What the examples that read Effect's Config find; the others are given the same as fields.
Object.assign(process.env, {
  BUDDY_LAUNCHPAD_ORIGIN: LAUNCHPAD,
  BUDDY_ORIGIN: "https://buddy.example",
  BUDDY_ENVIRONMENT: "hosted-personal",
  BUDDY_HERMES_HOME: home
})
const settings = {
  hermesHome: home,
  launchpadOrigin: LAUNCHPAD,
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal"
}

const overHttp = (port) => (method, target, headers = {}, body) =>
  new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: target, headers, agent: false }, (res) => {
      let text = ""
      res.on("data", (chunk) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode, body: text }))
    })
    req.on("error", reject)
    req.end(body)
  })

const overWeb = (handler) => async (method, target, headers = {}, body) => {
  const response = await handler(new Request(`${LAUNCHPAD}${target}`, { method, headers, body }))
  return { status: response.status, body: await response.text() }
}

/** A layer that serves, as a runtime: its port and its end. */
const serving = async (layer) => {
  const runtime = ManagedRuntime.make(layer)
  const server = await runtime.runPromise(HttpServer.HttpServer)
  return { port: server.address.port, close: () => runtime.dispose() }
}

const mask = (text) =>
  text.replace(/"handle":"[0-9a-f]{32}"/, "\"handle\":\"H\"").replace(
    /"code":"[A-Z0-9]{4}-[A-Z0-9]{5}"/,
    "\"code\":\"C\""
  )

/** C6 through one host at `root`. */
const walk = async (send, root) => {
  const seen = []
  const say = ({ body, status }) => seen.push(`${status} ${mask(body)}`)
  const post = (target, body) =>
    send("POST", `${root}${target}`, {
      origin: LAUNCHPAD,
      "sec-fetch-site": "same-origin",
      "content-type": "application/json"
    }, body)
  say(await send("GET", root))
  // HEAD wherever GET is (D52): GET's status, no body; a POST path's HEAD is GET's 405.
  say(await send("HEAD", root))
  say(await send("HEAD", `${root}/sign-in/start`))
  const started = await post("/sign-in/start", "{}")
  say(started)
  const handle = JSON.stringify({ handle: JSON.parse(started.body).handle })
  say(await post("/sign-in/poll", handle))
  say(await post("/sign-in/cancel", handle))
  say(await post("/sign-out", "{}"))
  const document = await send("GET", `${root}/openapi.json`)
  seen.push(`${document.status} ${Object.keys(JSON.parse(document.body).paths).join(" ")}`)
  say(await send("GET", `${root}x`))
  return seen
}

const out = (file) => import(path.resolve("out", file))
const results = {}

const router = await out("mount-router.js")
const routed = await serving(router.launchpad(0, PREFIX))
results.mountApp = await walk(overHttp(routed.port), PREFIX)
await routed.close()

const layered = await out("mount-layer-router.js")
const beside = await serving(layered.launchpad(0))
results.layerRouter = await walk(overHttp(beside.port), layered.prefix)
const merged = JSON.parse((await overHttp(beside.port)("GET", "/openapi.json")).body)
results.document = Object.values(merged.paths).flatMap((methods) =>
  Object.values(methods).map((operation) => operation.operationId)
).sort()
await beside.close()

const node = await out("mount-node.js")
const plain = await node.launchpad(settings, PREFIX)
await new Promise((resolve) => plain.server.listen(0, "127.0.0.1", resolve))
results.nodeHttp = await walk(overHttp(plain.server.address().port), PREFIX)
plain.server.close()
await plain.close()

const web = await out("mount-web.js")
const fetching = web.launchpad(settings, PREFIX)
results.webHandler = await walk(overWeb(fetching.handler), PREFIX)
await fetching.dispose()

const whole = await out("mount-effect.js")
const all = await serving(whole.launchpad(settings, 0))
results.routerAll = await walk(overHttp(all.port), "/api/buddy")
await all.close()

simulator.kill()
console.log(JSON.stringify(results))
