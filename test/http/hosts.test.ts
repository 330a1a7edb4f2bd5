// The app under a prefix in the hosts that do not cut one off (D43): `buddyHttpAppAt` in a web
// handler, `BuddyRoutes` in HttpLayerRouter; and buddy's operations merged into another OpenAPI
// document by `withBuddyOperations`. The services are stand-ins: only where each request lands is
// under test here (test/examples.test.ts drives every host against the fake gateway).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as OpenApi from "@effect/platform/OpenApi"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { BuddyHttpApp } from "../../src/http/app.js"
import { buddyHttpAppAt, BuddyRoutes, makeBuddyWebHandler } from "../../src/http/hosts.js"
import { openApiDocument, withBuddyOperations } from "../../src/http/openapi.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { hostedConfig, LAUNCHPAD, standInServices } from "./support/server.js"

const services = Layer.mergeAll(
  standInServices({}, "works"),
  BuddyConfig.gatewayLayer(hostedConfig(undefined))
)

const works = "200 {\"kind\":\"buddy\",\"state\":\"works\",\"signIn\":{\"state\":\"none\"},\"locale\":\"cs\"}"
const notFound = "404 {\"error\":\"not-found\"}"

/** `GET path` through `handler`: status and body. */
const getter = (handler: (request: Request) => Promise<Response>) => (path: string) =>
  Effect.promise(async () => {
    const response = await handler(new Request(`${LAUNCHPAD}${path}`))
    return `${response.status} ${await response.text()}`
  })

/** The paths the document served at `path` names. */
const documentPaths = (get: (path: string) => Effect.Effect<string>, path: string) =>
  Effect.map(get(path), (reply) => Object.keys((JSON.parse(reply.slice(4)) as { readonly paths: object }).paths))

describe("buddyHttpAppAt, for a host that hands over every request whole", () => {
  it.scoped("cuts the prefix (its trailing slash dropped) and answers under it; anything else is not Buddy's", () =>
    Effect.gen(function*() {
      const { dispose, handler } = HttpApp.toWebHandlerLayer(buddyHttpAppAt("/launchpad/buddy/"), services)
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const get = getter(handler)
      expect(yield* get("/launchpad/buddy")).toBe(works)
      expect(yield* get("/launchpad/buddy?tab=1")).toBe(works)
      expect(yield* get("/launchpad/buddy/")).toBe(notFound)
      expect(yield* get("/launchpad/buddy/nope")).toBe(notFound)
      for (const outside of ["/launchpad/buddyx", "/launchpad", "/api/buddy", "/", "/x/launchpad/buddy"]) {
        expect(yield* get(outside), outside).toBe(notFound)
      }
      expect(yield* documentPaths(get, "/launchpad/buddy/openapi.json")).toContain("/launchpad/buddy/sign-in/start")
    }))

  it.scoped("makeBuddyWebHandler with prefix undefined serves the app whole, at C6's /api/buddy (D51)", () =>
    Effect.gen(function*() {
      const { dispose, handler } = makeBuddyWebHandler(services, { prefix: undefined })
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const get = getter(handler)
      expect(yield* get("/api/buddy")).toBe(works)
      expect(yield* get("/launchpad/buddy")).toBe(notFound)
    }))

  it.scoped("drops every trailing slash of the prefix, not only the last", () =>
    Effect.gen(function*() {
      const { dispose, handler } = HttpApp.toWebHandlerLayer(buddyHttpAppAt("/launchpad/buddy//"), services)
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const get = getter(handler)
      expect(yield* get("/launchpad/buddy")).toBe(works)
      expect(yield* get("/launchpad/buddy/")).toBe(notFound)
    }))

  it.scopedLive("through node:http's makeHandler, an absolute-form target is cut as its path would be", () =>
    Effect.gen(function*() {
      const handler = yield* NodeHttpServer.makeHandler(buddyHttpAppAt("/launchpad/buddy")).pipe(
        Effect.provide(services)
      )
      const server = createServer(handler)
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const { port } = server.address() as AddressInfo
      const get = (target: string) =>
        Effect.async<string>((resume) => {
          request({ host: "127.0.0.1", port, path: target, agent: false }, (response) => {
            let text = ""
            response.on("data", (chunk: Buffer) => (text += chunk.toString()))
            response.on("end", () => resume(Effect.succeed(`${response.statusCode} ${text}`)))
          }).end()
        })
      expect(yield* get(`http://127.0.0.1:${port}/launchpad/buddy`)).toBe(works)
      expect(yield* get("/launchpad/buddy")).toBe(works)
      expect(yield* get(`http://127.0.0.1:${port}/api/buddy`)).toBe(notFound)
    }))
})

describe("BuddyRoutes, HttpLayerRouter routes", () => {
  // The services are the app layer's own output, which the router provides to each route.
  const routed = (routes: ReturnType<typeof BuddyRoutes>) =>
    Effect.gen(function*() {
      const { dispose, handler } = HttpLayerRouter.toWebHandler(Layer.merge(routes, services), { disableLogger: true })
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      return getter((request) => handler(request))
    })

  it.scoped("at C6's /api/buddy by default: the router cuts it, the app answers under it", () =>
    Effect.gen(function*() {
      const get = yield* routed(BuddyRoutes())
      expect(yield* get("/api/buddy")).toBe(works)
      expect(yield* get("/api/buddy/nope")).toBe(notFound)
      expect(yield* documentPaths(get, "/api/buddy/openapi.json")).toContain("/api/buddy/sign-out")
      expect((yield* get("/launchpad/buddy")).slice(0, 3)).toBe("404")
      // An explicit undefined is the default (D51).
      const unset = yield* routed(BuddyRoutes({ prefix: undefined }))
      expect(yield* unset("/api/buddy")).toBe(works)
      expect((yield* unset("/launchpad/buddy")).slice(0, 3)).toBe("404")
    }))

  it.scoped("under a prefix, its trailing slash dropped: the routes and the document move with it", () =>
    Effect.gen(function*() {
      const get = yield* routed(BuddyRoutes({ prefix: "/launchpad/buddy/" }))
      expect(yield* get("/launchpad/buddy")).toBe(works)
      expect(yield* get("/launchpad/buddy?tab=1")).toBe(works)
      expect(yield* get("/launchpad/buddy/nope")).toBe(notFound)
      expect(yield* documentPaths(get, "/launchpad/buddy/openapi.json")).toContain("/launchpad/buddy")
      expect(yield* get("/api/buddy")).not.toContain("buddy")
      const twice = yield* routed(BuddyRoutes({ prefix: "/launchpad/buddy//" }))
      expect(yield* twice("/launchpad/buddy")).toBe(works)
    }))
})

describe("withBuddyOperations, buddy's operations in a Launchpad's document", () => {
  type Document = {
    readonly tags: ReadonlyArray<{ readonly name: string; readonly description?: string }>
    readonly paths: Record<string, Record<string, { readonly operationId: string; readonly tags?: Array<string> }>>
    readonly components: Record<string, Record<string, unknown>>
  }
  const launchpad = {
    openapi: "3.1.0",
    info: { title: "the Launchpad", version: "1" },
    tags: [{ name: "pages" }],
    paths: {
      "/": { get: { operationId: "pages.home", tags: ["pages"] } },
      "/x/buddy": { get: { operationId: "mine", tags: ["pages"] } }
    },
    components: { schemas: { Denied: { type: "string" } }, securitySchemes: { cookie: { type: "apiKey" } } }
  }

  it("adds buddy's operations under the prefix, tagged and named buddy.*, keeping every part of the Launchpad's", () => {
    const before = JSON.stringify(launchpad)
    const merged = withBuddyOperations("/x/buddy")(launchpad) as unknown as Document
    expect(JSON.stringify(launchpad)).toBe(before)
    expect(merged).toMatchObject({ openapi: "3.1.0", info: { title: "the Launchpad", version: "1" } })
    expect(merged.tags).toStrictEqual([
      { name: "pages" },
      {
        name: "buddy",
        description: openApiDocument("/x/buddy").info.description
      }
    ])
    const ids = Object.entries(merged.paths).flatMap(([path, methods]) =>
      Object.values(methods).map((operation) => `${path} ${operation.operationId} ${operation.tags?.join()}`)
    )
    expect(ids.toSorted()).toStrictEqual([
      "/ pages.home pages",
      "/x/buddy buddy.status buddy",
      "/x/buddy/openapi.json buddy.openApi buddy",
      "/x/buddy/sign-in/cancel buddy.cancelSignIn buddy",
      "/x/buddy/sign-in/poll buddy.pollSignIn buddy",
      "/x/buddy/sign-in/start buddy.startSignIn buddy",
      "/x/buddy/sign-out buddy.signOut buddy"
    ])
    expect(merged.components["securitySchemes"]).toStrictEqual({ cookie: { type: "apiKey" } })
    expect(merged.components["schemas"]?.["Denied"]).toStrictEqual({ type: "string" })
    const text = JSON.stringify(merged)
    const references = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]!)
    expect(references.length).toBeGreaterThan(5)
    expect(references.filter((name) => !name.startsWith("buddy."))).toStrictEqual([])
    expect(references.filter((name) => !(name in merged.components["schemas"]!))).toStrictEqual([])
    // The same schemas as buddy's own document, under their buddy.* names.
    const own = openApiDocument("/x/buddy")
    expect(Object.keys(merged.components["schemas"]!).filter((name) => name.startsWith("buddy.")).toSorted())
      .toStrictEqual(Object.keys(own.components.schemas).map((name) => `buddy.${name}`).toSorted())
  })

  it("makes a whole document of an empty one, at C6's /api/buddy by default", () => {
    const merged = withBuddyOperations()({}) as unknown as Document
    expect(Object.keys(merged.paths)).toContain("/api/buddy/sign-in/start")
    expect(merged.tags.map((tag) => tag.name)).toStrictEqual(["buddy"])
    expect(Object.keys(merged.components["schemas"] ?? {}).length).toBeGreaterThan(5)
    expect(
      Object.keys((withBuddyOperations()({ components: null }) as unknown as Document).components["schemas"] ?? {})
    )
      .toContain("buddy.BuddyAnswer")
    const odd = withBuddyOperations()({ tags: "x", paths: [], components: { schemas: 1 } }) as unknown as Document
    expect(odd.tags.map((tag) => tag.name)).toStrictEqual(["buddy"])
    expect(Object.keys(odd.paths).length).toBe(6)
  })

  /** A Launchpad's own HttpApi, as `OpenApi.fromApi` documents it. */
  const LaunchpadApi = HttpApi.make("launchpad").add(
    HttpApiGroup.make("pages").add(HttpApiEndpoint.get("home", "/").addSuccess(Schema.String))
  )

  it("takes OpenApi.fromApi's document and gives an OpenAPISpec back, as OpenApi.Transform does, with the mounted app's answers", () => {
    // Typed as the platform types it: this line is the compile-time check (TS2345 before D54).
    const merged: OpenApi.OpenAPISpec = withBuddyOperations("/x/buddy")(OpenApi.fromApi(LaunchpadApi))
    const transformed = OpenApi.fromApi(LaunchpadApi.annotate(OpenApi.Transform, withBuddyOperations("/x/buddy")))
    expect(transformed).toStrictEqual(merged)
    expect(merged.paths["/"]?.get?.operationId).toBe("pages.home")
    const start = merged.paths["/x/buddy/sign-in/start"]?.post
    expect(start?.operationId).toBe("buddy.startSignIn")
    expect(start?.tags).toStrictEqual(["buddy"])
    expect(start?.parameters).toStrictEqual([])
    expect(Object.keys(start?.responses ?? {})).toStrictEqual(
      ["200", "400", "403", "404", "409", "413", "415", "500", "503"]
    )
    expect(Object.keys(merged.paths["/x/buddy"]?.get?.responses ?? {})).toStrictEqual(["200", "404", "500"])
    // Nothing of buddy serve's own server: its statuses and host-mismatch are not the mount's to give.
    expect(JSON.stringify(merged)).not.toMatch(/"(408|417|431)"|host-mismatch|buddy serve/)
    expect(merged.tags.map((group) => group.name)).toStrictEqual(["pages", "buddy"])
  })

  it("puts buddy's operations under the document's own security, as the Launchpad's own operations are", () => {
    const spec: OpenApi.OpenAPISpec = {
      ...OpenApi.fromApi(LaunchpadApi),
      security: [{ cookie: [] }],
      components: { schemas: {}, securitySchemes: { cookie: { type: "apiKey", name: "session", in: "cookie" } } }
    }
    const merged = withBuddyOperations("/x/buddy")(spec)
    const securities = Object.entries(merged.paths).flatMap(([path, methods]) =>
      path.startsWith("/x/buddy") ? Object.values(methods).map((operation) => operation.security) : []
    )
    expect(securities).toStrictEqual(Array.from({ length: 6 }, () => [{ cookie: [] }]))
    expect(merged.components.securitySchemes).toStrictEqual(spec.components.securitySchemes)
    // Its own document asks no credential.
    expect(Object.values(openApiDocument().paths).flatMap((methods) => Object.values(methods).map((op) => op.security)))
      .toStrictEqual(Array.from({ length: 6 }, () => []))
  })
})

describe("HEAD in every host, under a prefix: GET's status and headers, no body (D52)", () => {
  /** Status, headers (Date aside) and body of `method path` through a web handler. */
  const webAnswer = (handler: (request: Request) => Promise<Response>) => (method: string, path: string) =>
    Effect.promise(async () => {
      const response = await handler(new Request(`${LAUNCHPAD}${path}`, { method }))
      const headers = [...response.headers.entries()].filter(([name]) => name !== "date")
      return { status: response.status, headers, body: await response.text() }
    })

  /** The same through a node:http server on 127.0.0.1 for the scope. */
  const nodeAnswer = (handler: Parameters<typeof createServer>[1]) =>
    Effect.gen(function*() {
      const server = createServer(handler)
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const { port } = server.address() as AddressInfo
      return (method: string, path: string) =>
        Effect.async<{ readonly status: number; readonly headers: Array<[string, string]>; readonly body: string }>(
          (resume) => {
            request({ host: "127.0.0.1", port, method, path, agent: false }, (response) => {
              let body = ""
              response.on("data", (chunk: Buffer) => (body += chunk.toString()))
              response.on("end", () => {
                const raw = response.rawHeaders
                const headers: Array<[string, string]> = []
                for (let i = 0; i + 1 < raw.length; i += 2) {
                  if (raw[i]!.toLowerCase() !== "date") headers.push([raw[i]!.toLowerCase(), raw[i + 1]!])
                }
                resume(Effect.succeed({ status: response.statusCode ?? 0, headers, body }))
              })
            }).end()
          }
        )
    })

  type Ask = (method: string, path: string) => Effect.Effect<{
    readonly status: number
    readonly headers: ReadonlyArray<readonly [string, string]>
    readonly body: string
  }>

  /** HEAD and GET of each path under `root`: the same status and headers, HEAD's body empty. */
  const sameAsGet = (ask: Ask, root: string) =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      for (const path of [root, `${root}/openapi.json`, `${root}/sign-in/start`, `${root}/nope`]) {
        const got = yield* ask("GET", path)
        const head = yield* ask("HEAD", path)
        expect([path, head.status, head.headers]).toStrictEqual([path, got.status, got.headers])
        expect(head.body).toBe("")
        expect(got.body).not.toBe("")
        seen.push(`${head.status}`)
      }
      const allow = (yield* ask("HEAD", `${root}/sign-in/start`)).headers.filter(([name]) => name === "allow")
      expect(allow).toStrictEqual([["allow", "POST"]])
      const other = (yield* ask("DELETE", root)).headers.filter(([name]) => name === "allow")
      expect(other).toStrictEqual([["allow", "GET, HEAD"]])
      return seen
    })

  const answered = ["200", "200", "405", "404"]

  it.scoped("buddyHttpAppAt in a web handler, and makeBuddyWebHandler", () =>
    Effect.gen(function*() {
      const at = HttpApp.toWebHandlerLayer(buddyHttpAppAt("/launchpad/buddy"), services)
      const made = makeBuddyWebHandler(services, { prefix: "/launchpad/buddy" })
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([at.dispose(), made.dispose()])))
      expect(yield* sameAsGet(webAnswer(at.handler), "/launchpad/buddy")).toStrictEqual(answered)
      expect(yield* sameAsGet(webAnswer(made.handler), "/launchpad/buddy")).toStrictEqual(answered)
    }))

  it.scoped("BuddyRoutes in HttpLayerRouter, and HttpRouter.mountApp", () =>
    Effect.gen(function*() {
      const routed = HttpLayerRouter.toWebHandler(
        Layer.merge(BuddyRoutes({ prefix: "/launchpad/buddy" }), services),
        { disableLogger: true }
      )
      const mounted = HttpApp.toWebHandlerLayer(
        yield* HttpRouter.empty.pipe(HttpRouter.mountApp("/launchpad/buddy", BuddyHttpApp), HttpRouter.toHttpApp),
        services
      )
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([routed.dispose(), mounted.dispose()])))
      expect(yield* sameAsGet(webAnswer((request) => routed.handler(request)), "/launchpad/buddy")).toStrictEqual(
        answered
      )
      expect(yield* sameAsGet(webAnswer(mounted.handler), "/launchpad/buddy")).toStrictEqual(answered)
    }))

  it.scopedLive("node:http's makeHandler under a prefix, Content-Length as GET's", () =>
    Effect.gen(function*() {
      const handler = yield* NodeHttpServer.makeHandler(buddyHttpAppAt("/launchpad/buddy")).pipe(
        Effect.provide(services)
      )
      const ask = yield* nodeAnswer(handler)
      expect(yield* sameAsGet(ask, "/launchpad/buddy")).toStrictEqual(answered)
      const head = yield* ask("HEAD", "/launchpad/buddy")
      expect(head.headers).toContainEqual(["content-length", String(works.length - 4)])
    }))
})
