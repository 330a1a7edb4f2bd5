// GET /api/buddy/openapi.json: generated from the same route table the app dispatches from, so it
// lists exactly the routes that exist, with the answer schemas as components; and each documented
// operation is one the app really serves.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { openApiDocument } from "../../src/http/openapi.js"
import { routes } from "../../src/http/routes.js"
import { buddyVersion } from "../../src/version.js"
import { expectSecure, startedHandle } from "./support/answers.js"
import { get, handleBody, hostedConfig, OPENAPI, post, send, serve, START, STATUS } from "./support/server.js"

interface JsonSchema {
  readonly $ref?: string
  readonly type?: string
  readonly required?: ReadonlyArray<string>
  readonly properties?: Record<string, JsonSchema>
  readonly additionalProperties?: boolean
  readonly enum?: ReadonlyArray<string>
  readonly anyOf?: ReadonlyArray<JsonSchema>
}

interface Operation {
  readonly operationId: string
  readonly requestBody?: { readonly content: { readonly "application/json": { readonly schema: JsonSchema } } }
  readonly responses: Record<
    string,
    { readonly content: { readonly "application/json": { readonly schema: JsonSchema } } }
  >
}

interface Document {
  readonly openapi: string
  readonly info: { readonly version: string }
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

const fetchDocument = Effect.gen(function*() {
  const fake = yield* makeFakeGateway()
  const served = yield* serve(hostedConfig(fake.home))
  const reply = yield* get(served.port, OPENAPI)
  expect(reply.status).toBe(200)
  expectSecure(reply)
  return { ...served, fake, reply, document: JSON.parse(reply.body) as Document }
})

/** Whether `value` fits an object schema of the document (resolving its refs): required, enums, no extras. */
const fits = (document: Document, schema: JsonSchema, value: unknown): boolean => {
  if (schema.$ref !== undefined) {
    const target = document.components.schemas[schema.$ref.replace("#/components/schemas/", "")]
    return target !== undefined && fits(document, target, value)
  }
  if (schema.anyOf !== undefined) return schema.anyOf.some((member) => fits(document, member, value))
  if (schema.enum !== undefined) return typeof value === "string" && schema.enum.includes(value)
  if (schema.type === "string") return typeof value === "string"
  if (schema.type !== "object") return false
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const record = value as Record<string, unknown>
  const properties = schema.properties ?? {}
  if (!(schema.required ?? []).every((key) => key in record)) return false
  if (schema.additionalProperties === false && !Object.keys(record).every((key) => key in properties)) return false
  return Object.entries(record).every(([key, member]) => {
    const property = properties[key]
    return property === undefined || fits(document, property, member)
  })
}

const refsIn = (value: unknown): Array<string> => {
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, member]) =>
    key === "$ref" && typeof member === "string" ? [member] : refsIn(member)
  )
}

const successOf = (document: Document, path: string, method: string) =>
  document.paths[path]?.[method]?.responses["200"]?.content["application/json"].schema

describe("GET /api/buddy/openapi.json", () => {
  it.scopedLive("lists exactly the paths and methods of the route table", () =>
    Effect.gen(function*() {
      const { document } = yield* fetchDocument
      expect(document.openapi).toBe("3.1.0")
      expect(document.info.version).toBe(buddyVersion)
      const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)
      )
      expect(documented.toSorted()).toStrictEqual(routes.map((route) => `${route.method} ${route.path}`).toSorted())
      expect(documented.toSorted()).toStrictEqual([
        "GET /api/buddy",
        "GET /api/buddy/openapi.json",
        "POST /api/buddy/sign-in/cancel",
        "POST /api/buddy/sign-in/poll",
        "POST /api/buddy/sign-in/start",
        "POST /api/buddy/sign-out"
      ])
    }))

  it.scopedLive("is the document generated from the route table, byte for byte", () =>
    Effect.gen(function*() {
      const { reply } = yield* fetchDocument
      expect(reply.body).toBe(JSON.stringify(openApiDocument(routes, buddyVersion)))
    }))

  it.scopedLive("has the answer schemas as components, every reference resolving, each route's success its own", () =>
    Effect.gen(function*() {
      const { document } = yield* fetchDocument
      const components = Object.keys(document.components.schemas)
      for (
        const name of [
          "BuddyAnswer",
          "SignInStarted",
          "SignInState",
          "SignInCancelled",
          "SignedOut",
          "Blocked",
          "Unavailable",
          "Denied",
          "Error",
          "HandleBody",
          "EmptyBody"
        ]
      ) expect(components).toContain(name)
      for (const ref of refsIn(document)) {
        expect(components).toContain(ref.replace("#/components/schemas/", ""))
      }
      expect(successOf(document, "/api/buddy", "get")).toStrictEqual({ $ref: "#/components/schemas/BuddyAnswer" })
      expect(successOf(document, "/api/buddy/sign-in/start", "post")).toStrictEqual({
        $ref: "#/components/schemas/SignInStarted"
      })
      expect(successOf(document, "/api/buddy/sign-in/poll", "post")).toStrictEqual({
        $ref: "#/components/schemas/SignInState"
      })
      expect(successOf(document, "/api/buddy/sign-in/cancel", "post")).toStrictEqual({
        $ref: "#/components/schemas/SignInCancelled"
      })
      expect(successOf(document, "/api/buddy/sign-out", "post")).toStrictEqual({
        $ref: "#/components/schemas/SignedOut"
      })
      const poll = document.paths["/api/buddy/sign-in/poll"]?.["post"]
      expect(poll?.requestBody?.content["application/json"].schema).toStrictEqual({
        $ref: "#/components/schemas/HandleBody"
      })
      expect(Object.keys(poll?.responses ?? {}).toSorted()).toStrictEqual(
        ["200", "400", "403", "404", "405", "409", "413", "415", "500", "503"]
      )
      expect(poll?.responses["403"]?.content["application/json"].schema).toStrictEqual({
        $ref: "#/components/schemas/Denied"
      })
      expect(poll?.responses["409"]?.content["application/json"].schema).toStrictEqual({
        $ref: "#/components/schemas/Blocked"
      })
      expect(poll?.responses["503"]?.content["application/json"].schema).toStrictEqual({
        $ref: "#/components/schemas/Unavailable"
      })
    }))

  it.scopedLive("describes the answers the app really gives", () =>
    Effect.gen(function*() {
      const { document, port } = yield* fetchDocument
      const schema = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` })
      const status = JSON.parse((yield* get(port, STATUS)).body) as unknown
      expect(fits(document, schema("BuddyAnswer"), status)).toBe(true)
      const started = yield* post(port, START, "{}")
      const handle = startedHandle(started)
      expect(fits(document, schema("SignInStarted"), JSON.parse(started.body))).toBe(true)
      const polled = yield* post(port, "/api/buddy/sign-in/poll", handleBody(handle))
      expect(fits(document, schema("SignInState"), JSON.parse(polled.body))).toBe(true)
      const denied = yield* post(port, START, "{}", [])
      expect(fits(document, schema("Denied"), JSON.parse(denied.body))).toBe(true)
      expect(fits(document, schema("Error"), JSON.parse((yield* get(port, "/api/buddy/x")).body))).toBe(true)
      // And the check has teeth: a body with an extra member does not fit.
      expect(fits(document, schema("SignedOut"), { kind: "sign-out", state: "signed-out", x: 1 })).toBe(false)
    }))

  it.scopedLive("every documented operation exists: none answers 404 or 405", () =>
    Effect.gen(function*() {
      const { document, port } = yield* fetchDocument
      const handle = startedHandle(yield* post(port, START, "{}"))
      for (const [path, methods] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          const schema = operation.requestBody?.content["application/json"].schema.$ref
          const reply = method === "get"
            ? yield* get(port, path)
            : schema === "#/components/schemas/HandleBody"
            ? yield* post(port, path, handleBody(handle))
            : method === "post"
            ? yield* post(port, path, "{}")
            : yield* send(port, { method: method.toUpperCase(), path, headers: [["Host", "127.0.0.1"]] })
          expect([200, 409], `${method} ${path}: ${reply.body}`).toContain(reply.status)
          expectSecure(reply)
        }
      }
    }))
})
