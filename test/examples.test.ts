// The README's mounting examples run as written, and buddy answers the same under each way a
// Launchpad can mount it (D20, D43): HttpRouter.mountApp at /api/buddy and under another prefix
// (mount-router), HttpLayerRouter beside the Launchpad's HttpApi with one OpenAPI document
// (mount-layer-router), node:http with makeHandler (mount-node) and the web handler (mount-web),
// each under a prefix too, and HttpRouter.all at /api/buddy (mount-effect). Each serves the
// Launchpad's own page beside buddy's routes; each is driven through GETs and the same-origin POSTs
// against the fake gateway, with C6's checks on the way. Those whose config comes from Effect's
// Config read it here from a provider of BUDDY_* variables. The README shows the examples verbatim.
import { HttpServer } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import type { AddressInfo } from "node:net"
import { launchpad as effectLaunchpad } from "../examples/mount-effect.js"
import { launchpad as layerRouterLaunchpad, prefix as layerRouterPrefix } from "../examples/mount-layer-router.js"
import { launchpad as nodeLaunchpad } from "../examples/mount-node.js"
import { launchpad as routerLaunchpad } from "../examples/mount-router.js"
import { launchpad as webLaunchpad } from "../examples/mount-web.js"
import { type FakeGateway, makeFakeGateway } from "../fixtures/fake-gateway.js"
import type { BuddyConfigFields } from "../src/services/BuddyConfig.js"
import {
  HERMES_CANCEL,
  HERMES_CARD,
  HERMES_POLL,
  HERMES_SIGN_OUT,
  HERMES_START,
  hermesHttp
} from "./http/support/fake.js"

const LAUNCHPAD = "https://launchpad.example"

interface Reply {
  readonly status: number
  readonly allow: string | null
  readonly body: string
}

/** One request to a mounted Launchpad: method, path (with query), header lines, body. */
type Send = (
  method: string,
  path: string,
  headers?: Readonly<Record<string, string>>,
  body?: string
) => Effect.Effect<Reply>

const overHttp = (port: number): Send => (method, path, headers = {}, body) =>
  Effect.async<Reply>((resume) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let text = ""
      res.on("data", (chunk: Buffer) => (text += chunk.toString()))
      res.on("end", () => {
        const allow = res.headers["allow"]
        resume(Effect.succeed({ status: res.statusCode ?? 0, allow: allow ?? null, body: text }))
      })
    })
    req.end(body)
  })

const configFor = (home: string, environment: BuddyConfigFields["environment"] = "hosted-personal") => ({
  hermesHome: home,
  launchpadOrigin: LAUNCHPAD,
  buddyOrigin: "https://buddy.example",
  environment,
  locale: "en"
} as const)

/** The same config as Effect's Config reads it from the environment (the BUDDY_* variables). */
const fromEnv = (home: string, environment: BuddyConfigFields["environment"] = "hosted-personal") =>
  Layer.setConfigProvider(ConfigProvider.fromMap(
    new Map([
      ["BUDDY_HERMES_HOME", home],
      ["BUDDY_LAUNCHPAD_ORIGIN", LAUNCHPAD],
      ["BUDDY_ORIGIN", "https://buddy.example"],
      ["BUDDY_ENVIRONMENT", environment]
    ]),
    { pathDelim: "_" }
  ))

const sameOrigin = { origin: LAUNCHPAD, "sec-fetch-site": "same-origin", "content-type": "application/json" }

const statusBody = (signIn: string) => `{"kind":"buddy","state":"waits","signIn":{"state":"${signIn}"},"locale":"en"}`
const pendingBody =
  "{\"kind\":\"sign-in\",\"state\":\"pending\",\"code\":\"ABCD-EFGHK\",\"page\":\"https://auth.openai.com/codex/device\"}"
const error = (name: string) => JSON.stringify({ error: name })

/**
 * C6 through a Launchpad that mounted buddy at `root`: its own page, the status read, unknown
 * paths and methods, a POST from elsewhere, then start, poll, cancel and sign-out from its own
 * page, and what Hermes was asked; the document names the paths where they are served.
 */
const drive = (send: Send, fake: FakeGateway, root: string, page = true) =>
  Effect.gen(function*() {
    if (page) expect(yield* send("GET", "/")).toMatchObject({ status: 200, body: "the Launchpad" })
    expect(yield* send("GET", root)).toStrictEqual({ status: 200, allow: null, body: statusBody("none") })
    expect(yield* send("GET", `${root}?x=1`)).toStrictEqual({ status: 200, allow: null, body: statusBody("none") })
    expect(yield* send("GET", `${root}/`)).toStrictEqual({ status: 404, allow: null, body: error("not-found") })
    expect(yield* send("GET", `${root}/nope`)).toStrictEqual({ status: 404, allow: null, body: error("not-found") })
    expect(yield* send("GET", `${root}${root}`)).toStrictEqual({ status: 404, allow: null, body: error("not-found") })
    expect(yield* send("GET", `${root}/sign-in/poll`)).toStrictEqual({
      status: 405,
      allow: "POST",
      body: error("method-not-allowed")
    })
    expect(yield* send("POST", `${root}/sign-in/start`, { "content-type": "application/json" }, "{}")).toStrictEqual({
      status: 403,
      allow: null,
      body: "{\"error\":\"denied\",\"reason\":\"origin-mismatch\"}"
    })
    // Only the status reads reached Hermes: nothing refused did.
    expect(hermesHttp(fake).filter((line) => line !== HERMES_CARD)).toStrictEqual([])

    const started = yield* send("POST", `${root}/sign-in/start`, sameOrigin, "{}")
    expect(started.status, started.body).toBe(200)
    const { handle } = JSON.parse(started.body) as { readonly handle: string }
    expect(handle).toMatch(/^[0-9a-f]{32}$/)
    const withHandle = JSON.stringify({ handle })
    expect(yield* send("POST", `${root}/sign-in/poll`, sameOrigin, withHandle)).toMatchObject({
      status: 200,
      body: pendingBody
    })
    expect(yield* send("GET", root)).toMatchObject({ status: 200, body: statusBody("pending") })
    expect(yield* send("POST", `${root}/sign-in/cancel`, sameOrigin, withHandle)).toMatchObject({
      status: 200,
      body: "{\"kind\":\"sign-in\",\"state\":\"cancelled\"}"
    })
    expect(yield* send("POST", `${root}/sign-out`, sameOrigin, "{}")).toMatchObject({
      status: 200,
      body: "{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"
    })
    // The holder's poll, the status read's (C5), and the cancel's own before it cancels (C4.7).
    expect(hermesHttp(fake).filter((line) => line !== HERMES_CARD)).toStrictEqual([
      HERMES_START,
      HERMES_POLL,
      HERMES_POLL,
      HERMES_POLL,
      HERMES_CANCEL,
      HERMES_SIGN_OUT
    ])

    const document = yield* send("GET", `${root}/openapi.json`)
    expect(document.status).toBe(200)
    expect(Object.keys((JSON.parse(document.body) as { readonly paths: object }).paths).toSorted()).toStrictEqual(
      ["", "/openapi.json", "/sign-in/cancel", "/sign-in/poll", "/sign-in/start", "/sign-out"].map((path) =>
        `${root}${path}`
      )
    )
  })

/** Where buddy is absent, every path under the root is buddy-absent, before anything else. */
const driveAbsent = (send: Send, fake: FakeGateway, root: string) =>
  Effect.gen(function*() {
    for (const path of [root, `${root}/nope`, `${root}/sign-in/poll`]) {
      expect(yield* send("GET", path)).toStrictEqual({ status: 404, allow: null, body: error("buddy-absent") })
    }
    expect(yield* send("POST", `${root}/sign-in/start`, sameOrigin, "{}")).toMatchObject({
      status: 404,
      body: error("buddy-absent")
    })
    expect(fake.received).toStrictEqual([])
  })

/** The port an @effect/platform example's server layer listens on, for the test's scope. */
const listening = <E>(layer: Layer.Layer<HttpServer.HttpServer, E>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(layer)
    const address = (yield* Effect.provide(HttpServer.HttpServer, context)).address
    return address._tag === "TcpAddress" ? address.port : 0
  })

describe("the @effect/platform example: HttpRouter.all at /api/buddy", () => {
  it.scopedLive("serves the Launchpad and buddy's routes together, GETs and same-origin POSTs", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(effectLaunchpad(configFor(fake.home), 0))
      yield* drive(overHttp(port), fake, "/api/buddy")
    }))

  it.scopedLive("answers buddy-absent on every path under /api/buddy where Buddy is absent", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(effectLaunchpad(configFor(fake.home, "local"), 0))
      yield* driveAbsent(overHttp(port), fake, "/api/buddy")
    }))
})

describe("the router example: HttpRouter.mountApp", () => {
  it.scopedLive("at /api/buddy: the router cuts the prefix and every route still answers", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(routerLaunchpad(0).pipe(Layer.provide(fromEnv(fake.home))))
      yield* drive(overHttp(port), fake, "/api/buddy")
    }))

  it.scopedLive("under another prefix: the routes and the document move with it", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(routerLaunchpad(0, "/launchpad/buddy").pipe(Layer.provide(fromEnv(fake.home))))
      yield* drive(overHttp(port), fake, "/launchpad/buddy")
      // C6's own path is the Launchpad's now, not buddy's: the router answers it, not the app.
      expect((yield* overHttp(port)("GET", "/api/buddy")).status).toBe(404)
      expect((yield* overHttp(port)("GET", "/api/buddy")).body).not.toContain("buddy")
    }))

  it.scopedLive("answers buddy-absent on every path under the prefix where Buddy is absent", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(routerLaunchpad(0).pipe(Layer.provide(fromEnv(fake.home, "local"))))
      yield* driveAbsent(overHttp(port), fake, "/api/buddy")
    }))
})

describe("the plain node:http example: makeHandler", () => {
  const serveNode = (config: BuddyConfigFields, prefix?: `/${string}`) =>
    Effect.gen(function*() {
      const { close, server } = yield* Effect.promise(() => nodeLaunchpad(config, prefix))
      yield* Effect.addFinalizer(() => Effect.promise(close))
      yield* Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
      return overHttp((server.address() as AddressInfo).port)
    })

  it.scopedLive("serves the Launchpad and buddy's routes together, GETs and same-origin POSTs", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      yield* drive(yield* serveNode(configFor(fake.home)), fake, "/api/buddy")
    }))

  it.scopedLive("answers buddy-absent on every path under /api/buddy where Buddy is absent", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      yield* driveAbsent(yield* serveNode(configFor(fake.home, "local")), fake, "/api/buddy")
    }))

  it.scopedLive("under a prefix: makeHandler serves buddyHttpAppAt, and the routes and the document move with it", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const send = yield* serveNode(configFor(fake.home), "/launchpad/buddy")
      yield* drive(send, fake, "/launchpad/buddy")
      expect(yield* send("GET", "/api/buddy")).toMatchObject({ status: 200, body: "the Launchpad" })
    }))

  it.scopedLive("leaves the Launchpad's own paths that only begin like buddy's to the Launchpad", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const send = yield* serveNode(configFor(fake.home))
      for (const path of ["/api/buddyx", "/api/buddy-admin", "/api/buddy.json"]) {
        expect(yield* send("GET", path)).toMatchObject({ status: 200, body: "the Launchpad" })
      }
      expect((yield* send("GET", "/api/buddy?x=1")).body).toContain("\"kind\":\"buddy\"")
      expect(fake.received.filter((entry) => entry.channel === "http")).toHaveLength(1)
    }))
})

describe("the web handler example: makeBuddyWebHandler", () => {
  const webSend = (config: BuddyConfigFields, prefix?: `/${string}`) =>
    Effect.gen(function*() {
      const { dispose, handler } = webLaunchpad(config, prefix)
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const send: Send = (method, path, headers = {}, body) =>
        Effect.promise(async () => {
          const response = await handler(
            new Request(`${LAUNCHPAD}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
          )
          return { status: response.status, allow: response.headers.get("allow"), body: await response.text() }
        })
      return send
    })

  it.scopedLive("answers buddy's routes, GETs and same-origin POSTs", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      yield* drive(yield* webSend(configFor(fake.home)), fake, "/api/buddy", false)
    }))

  it.scopedLive("under a prefix: cuts it off, and what is outside it is not-found, not Buddy's", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const send = yield* webSend(configFor(fake.home), "/launchpad/buddy")
      yield* drive(send, fake, "/launchpad/buddy", false)
      for (const path of ["/api/buddy", "/launchpad/buddyx", "/launchpad", "/"]) {
        expect(yield* send("GET", path)).toStrictEqual({ status: 404, allow: null, body: error("not-found") })
      }
    }))

  it.scopedLive("answers buddy-absent on every path under /api/buddy where Buddy is absent", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      yield* driveAbsent(yield* webSend(configFor(fake.home, "local")), fake, "/api/buddy")
    }))
})

describe("the HttpLayerRouter example: beside the Launchpad's HttpApi, one OpenAPI document", () => {
  it.scopedLive("serves the Launchpad's API and buddy's routes under the prefix, GETs and same-origin POSTs", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(layerRouterLaunchpad(0).pipe(Layer.provide(fromEnv(fake.home))))
      yield* drive(overHttp(port), fake, layerRouterPrefix)
      expect((yield* overHttp(port)("GET", "/api/buddy")).status).toBe(404)
    }))

  it.scopedLive("the Launchpad's document holds its own operation and buddy's, every reference resolved", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(layerRouterLaunchpad(0).pipe(Layer.provide(fromEnv(fake.home))))
      const reply = yield* overHttp(port)("GET", "/openapi.json")
      expect(reply.status).toBe(200)
      const document = JSON.parse(reply.body) as {
        readonly paths: Record<string, Record<string, { readonly operationId: string }>>
        readonly components: { readonly schemas: Record<string, unknown> }
      }
      const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => `${method} ${path} ${operation.operationId}`)
      )
      expect(operations.toSorted()).toStrictEqual([
        "get / pages.home",
        `get ${layerRouterPrefix} buddy.status`,
        `get ${layerRouterPrefix}/openapi.json buddy.openApi`,
        `post ${layerRouterPrefix}/sign-in/cancel buddy.cancelSignIn`,
        `post ${layerRouterPrefix}/sign-in/poll buddy.pollSignIn`,
        `post ${layerRouterPrefix}/sign-in/start buddy.startSignIn`,
        `post ${layerRouterPrefix}/sign-out buddy.signOut`
      ])
      const references = [...reply.body.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) =>
        match[1]!
      )
      expect(references.filter((name) => name.startsWith("buddy.")).length).toBeGreaterThan(5)
      expect(references.filter((name) => !(name in document.components.schemas))).toStrictEqual([])
    }))

  it.scopedLive("answers buddy-absent on every path under the prefix where Buddy is absent", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const port = yield* listening(layerRouterLaunchpad(0).pipe(Layer.provide(fromEnv(fake.home, "local"))))
      yield* driveAbsent(overHttp(port), fake, layerRouterPrefix)
    }))
})

it("the README shows the examples exactly as they are in examples/", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
  for (const file of ["mount-router.ts", "mount-layer-router.ts", "mount-node.ts", "mount-web.ts", "mount-effect.ts"]) {
    const code = readFileSync(new URL(`../examples/${file}`, import.meta.url), "utf8")
    const body = code.split("\n").filter((line) => !line.startsWith("//")).join("\n").trim()
    expect(readme, file).toContain(body)
  }
})
