// GET /api/buddy/openapi.json: compared with the document written out below, by hand, from C6
// (not from the code that makes it): exactly the routes that exist, each with exactly the answers
// it can give (start and sign-out cannot say invalid-handle or sign-in-unknown), the two headers
// the same-origin rule reads on every POST, and the answer schemas as components. Then against the
// app: every refusal it really gives fits what the document says of that operation and status.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { openApiDocument, openApiJson } from "../../src/http/openapi.js"
import { buddyVersion } from "../../src/version.js"
import { gatewayReasons } from "../fuzz/support/closed.js"
import { expectSecure, startedHandle } from "./support/answers.js"
import {
  CANCEL,
  emptyHome,
  get,
  handleBody,
  hostedConfig,
  OPENAPI,
  POLL,
  post,
  serve,
  SIGN_OUT,
  START,
  STATUS
} from "./support/server.js"

interface JsonSchema {
  readonly $ref?: string
  readonly type?: string
  readonly required?: ReadonlyArray<string>
  readonly properties?: Record<string, JsonSchema>
  readonly additionalProperties?: boolean | JsonSchema
  readonly enum?: ReadonlyArray<string>
  readonly anyOf?: ReadonlyArray<JsonSchema>
}

interface Content {
  readonly "application/json": { readonly schema: JsonSchema }
}

interface Operation {
  readonly operationId: string
  readonly parameters?: ReadonlyArray<{ readonly description?: string } & Record<string, unknown>>
  readonly requestBody?: { readonly required: boolean; readonly content: Content }
  readonly responses: Record<string, { readonly description: string; readonly content: Content }>
}

interface Document {
  readonly openapi: string
  readonly info: { readonly title: string; readonly version: string; readonly description: string }
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

// ---- The document as C6 says it must be, written out. ----

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const errors = (...names: ReadonlyArray<string>) => ({
  type: "object",
  required: ["error"],
  properties: { error: { type: "string", enum: names } },
  additionalProperties: false
})
const blocked = (...reasons: ReadonlyArray<string>) => ({
  type: "object",
  required: ["kind", "reason"],
  properties: { kind: { type: "string", enum: ["blocked"] }, reason: { type: "string", enum: reasons } },
  additionalProperties: false
})

const denied = (...reasons: ReadonlyArray<string>) => ({
  type: "object",
  required: ["error", "reason"],
  properties: { error: { type: "string", enum: ["denied"] }, reason: { type: "string", enum: reasons } },
  additionalProperties: false
})

/** What `buddy serve`'s own server answers to any request, before the app (D36). */
const server = {
  "400": errors("invalid-request"),
  "403": denied("host-mismatch"),
  "408": errors("request-timeout"),
  "413": errors("body-too-large"),
  "417": errors("expectation-failed"),
  "431": errors("headers-too-large")
}

const sameOriginHeaders = [
  { name: "Origin", in: "header", required: true, schema: { type: "string" } },
  { name: "Sec-Fetch-Site", in: "header", required: true, schema: { type: "string", enum: ["same-origin"] } }
]

/** What each operation is, asks and answers: status → the schema of its body. */
const expected: Record<string, unknown> = {
  "get /api/buddy": {
    operationId: "status",
    responses: {
      "200": ref("BuddyAnswer"),
      ...server,
      "404": errors("buddy-absent"),
      "500": errors("operation-failed")
    }
  },
  "get /api/buddy/openapi.json": {
    operationId: "openApi",
    responses: {
      "200": ref("OpenApiDocument"),
      ...server,
      "404": errors("buddy-absent"),
      "500": errors("operation-failed")
    }
  },
  "post /api/buddy/sign-in/start": {
    operationId: "startSignIn",
    parameters: sameOriginHeaders,
    requestBody: ref("EmptyBody"),
    responses: {
      "200": ref("SignInStarted"),
      "400": errors("invalid-request"),
      "403": ref("Denied"),
      "404": errors("buddy-absent"),
      "409": blocked("hermes-outdated", "sign-in-running", "lock-unavailable"),
      "413": errors("body-too-large"),
      "415": errors("invalid-content-type"),
      "408": server["408"],
      "417": server["417"],
      "431": server["431"],
      "500": errors("operation-failed"),
      "503": ref("Unavailable")
    }
  },
  "post /api/buddy/sign-in/poll": {
    operationId: "pollSignIn",
    parameters: sameOriginHeaders,
    requestBody: ref("HandleBody"),
    responses: {
      "200": ref("SignInState"),
      "400": errors("invalid-request", "invalid-handle"),
      "403": ref("Denied"),
      "404": errors("buddy-absent"),
      "409": blocked("hermes-outdated", "sign-in-running", "sign-in-unknown"),
      "413": errors("body-too-large"),
      "415": errors("invalid-content-type"),
      "408": server["408"],
      "417": server["417"],
      "431": server["431"],
      "500": errors("operation-failed"),
      "503": ref("Unavailable")
    }
  },
  "post /api/buddy/sign-in/cancel": {
    operationId: "cancelSignIn",
    parameters: sameOriginHeaders,
    requestBody: ref("HandleBody"),
    responses: {
      "200": ref("SignInEnded"),
      "400": errors("invalid-request", "invalid-handle"),
      "403": ref("Denied"),
      "404": errors("buddy-absent"),
      "409": blocked("hermes-outdated", "sign-in-running", "sign-in-unknown"),
      "413": errors("body-too-large"),
      "415": errors("invalid-content-type"),
      "408": server["408"],
      "417": server["417"],
      "431": server["431"],
      "500": errors("operation-failed"),
      "503": ref("Unavailable")
    }
  },
  "post /api/buddy/sign-out": {
    operationId: "signOut",
    parameters: sameOriginHeaders,
    requestBody: ref("EmptyBody"),
    responses: {
      "200": ref("SignedOut"),
      "400": errors("invalid-request"),
      "403": ref("Denied"),
      "404": errors("buddy-absent"),
      "409": blocked("hermes-outdated", "sign-in-running", "lock-unavailable"),
      "413": errors("body-too-large"),
      "415": errors("invalid-content-type"),
      "408": server["408"],
      "417": server["417"],
      "431": server["431"],
      "500": errors("operation-failed"),
      "503": ref("Unavailable")
    }
  }
}

/** Components written out where the document's answers rest on them alone. */
const expectedComponents: Record<string, unknown> = {
  Denied: {
    type: "object",
    required: ["error", "reason"],
    properties: {
      error: { type: "string", enum: ["denied"] },
      reason: { type: "string", enum: ["origin-mismatch", "host-mismatch"] }
    },
    additionalProperties: false
  },
  Unavailable: {
    type: "object",
    required: ["error", "reason"],
    properties: {
      error: { type: "string", enum: ["buddy-unavailable"] },
      reason: { type: "string", enum: [...gatewayReasons] }
    },
    additionalProperties: false
  },
  EmptyBody: { type: "object", required: [], properties: {}, additionalProperties: false },
  HandleBody: {
    type: "object",
    required: ["handle"],
    properties: { handle: { type: "string" } },
    additionalProperties: false
  },
  SignInEnded: {
    type: "object",
    required: ["kind", "state"],
    properties: {
      kind: { type: "string", enum: ["sign-in"] },
      state: { type: "string", enum: ["signed-in", "expired", "refused", "lost", "failed", "cancelled"] }
    },
    additionalProperties: false
  },
  SignedOut: {
    type: "object",
    required: ["kind", "state"],
    properties: { kind: { type: "string", enum: ["sign-out"] }, state: { type: "string", enum: ["signed-out"] } },
    additionalProperties: false
  },
  BuddyAnswer: {
    type: "object",
    required: ["kind", "state", "signIn", "locale"],
    properties: {
      kind: { type: "string", enum: ["buddy"] },
      state: { type: "string", enum: ["works", "waits", "unknown"] },
      reason: { type: "string", enum: [...gatewayReasons] },
      signIn: {
        type: "object",
        required: ["state"],
        properties: { state: { type: "string", enum: ["none", "pending"] } },
        additionalProperties: false
      },
      locale: { type: "string", enum: ["cs", "en"] }
    },
    additionalProperties: false
  },
  SignInStarted: {
    type: "object",
    required: ["kind", "state", "handle", "code", "page"],
    properties: {
      kind: { type: "string", enum: ["sign-in"] },
      state: { type: "string", enum: ["pending"] },
      handle: {
        type: "string",
        description: "a string matching the pattern ^[0-9a-f]{32}$",
        pattern: "^[0-9a-f]{32}$"
      },
      code: { type: "string" },
      page: { type: "string" }
    },
    additionalProperties: false
  },
  SignInState: {
    anyOf: [
      {
        type: "object",
        required: ["kind", "state", "code", "page"],
        properties: {
          kind: { type: "string", enum: ["sign-in"] },
          state: { type: "string", enum: ["pending"] },
          code: { type: "string" },
          page: { type: "string" }
        },
        additionalProperties: false
      },
      {
        type: "object",
        required: ["kind", "state"],
        properties: {
          kind: { type: "string", enum: ["sign-in"] },
          state: { type: "string", enum: ["signed-in", "expired", "refused", "lost", "failed", "cancelled"] }
        },
        additionalProperties: false
      }
    ]
  },
  OpenApiDocument: {
    type: "object",
    required: ["openapi"],
    properties: { openapi: { type: "string", enum: ["3.1.0"] } },
    additionalProperties: { $id: "/schemas/unknown", title: "unknown" }
  }
}

/** What the document says of each refusal, after its name: the words a page's developer reads. */
const refusalWords: Record<string, string> = {
  "buddy-absent": "no Buddy here: no Buddy origin recorded, or not a hosted personal environment",
  "origin-mismatch": "a POST from anywhere but the Launchpad's own page",
  "invalid-content-type": "Content-Type is not application/json",
  "body-too-large": "the body is over 16 KiB, declared or streamed (buddy serve: or a chunk's extensions too long)",
  "invalid-request": "the body is not strict UTF-8 JSON with exactly the listed keys (buddy serve: or the request " +
    "is not HTTP it can parse, a CONNECT, or without Host)",
  "invalid-handle": "the handle is not 32 lowercase hex characters",
  "hermes-outdated": "Hermes lacks the cancellation contract: nothing changed",
  "sign-in-running": "a held sign-in could not be ended: nothing changed",
  "sign-in-unknown": "the handle is not the current holder's",
  "lock-unavailable": "the holder lock cannot be taken (its place beside Hermes's home is not buddy's, or the " +
    "system refuses): nothing changed",
  "buddy-unavailable": "the gateway could not be reached or failed (C7 reason)",
  "operation-failed": "anything unforeseen",
  "host-mismatch": "buddy serve: Host (or an absolute target) names neither this server nor the Launchpad",
  "expectation-failed": "buddy serve: an Expect other than 100-continue",
  "request-timeout": "buddy serve: headers not in within 10 s, or the request within 30 s",
  "headers-too-large": "buddy serve: the request line and headers are over 16 KiB"
}

/** The document's operations in the form of `expected`: descriptions and summaries left out. */
const shapeOf = (document: Document) =>
  Object.fromEntries(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [
        `${method} ${path}`,
        {
          operationId: operation.operationId,
          ...(operation.parameters === undefined
            ? {}
            : {
              parameters: operation.parameters.map(({ description: _, ...rest }) => rest)
            }),
          ...(operation.requestBody === undefined
            ? {}
            : { requestBody: operation.requestBody.content["application/json"].schema }),
          responses: Object.fromEntries(
            Object.entries(operation.responses).map(([status, response]) => [
              status,
              response.content["application/json"].schema
            ])
          )
        }
      ])
    )
  )

const fetchDocument = Effect.gen(function*() {
  const fake = yield* makeFakeGateway()
  const served = yield* serve(hostedConfig(fake.home))
  const reply = yield* get(served.port, OPENAPI)
  expect(reply.status).toBe(200)
  expectSecure(reply)
  return { ...served, fake, reply, document: JSON.parse(reply.body) as Document }
})

/** Whether `value` fits a schema of the document (resolving its refs): required, enums, no extras. */
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

describe("GET /api/buddy/openapi.json", () => {
  it.scopedLive("is the document C6 describes: every operation, its headers, its body and exactly its answers", () =>
    Effect.gen(function*() {
      const { document, reply } = yield* fetchDocument
      expect(document.openapi).toBe("3.1.0")
      expect(document.info.title).toBe("buddy")
      expect(document.info.version).toBe(buddyVersion)
      expect(shapeOf(document)).toStrictEqual(expected)
      // What the shapes leave out (here, in the test that builds the document: it is built once per
      // process, and the mutation suite credits its code to the test that built it, D11).
      for (const [path, methods] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          if (method === "post") expect(operation.requestBody?.required, `${method} ${path}`).toBe(true)
        }
      }
      expect(reply.body.indexOf("\"200\":{\"description\":\"done\"")).toBeLessThan(reply.body.indexOf("\"400\":"))
      expect(document.info.description).toBe(
        "Buddy's ChatGPT sign-in, state and sign-out, for the Launchpad. Any other path under /api/buddy answers " +
          "404 {\"error\":\"not-found\"} (no such path under the root); another method on a path answers 405 " +
          "{\"error\":\"method-not-allowed\"} (the path exists, not with this method; see Allow)."
      )
      // Each refusal's words, after its name, in every status that can carry it.
      for (const [path, methods] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            if (status === "200") continue
            for (const part of response.description.split("; ")) {
              const name = part.slice(0, part.indexOf(": "))
              expect(part, `${method} ${path} ${status}`).toBe(`${name}: ${refusalWords[name]}`)
            }
          }
        }
      }
    }))

  it.scopedLive("has exactly the answer schemas as components, every reference resolving", () =>
    Effect.gen(function*() {
      const { document } = yield* fetchDocument
      const components = Object.keys(document.components.schemas)
      expect(components.toSorted()).toStrictEqual([
        "BuddyAnswer",
        "Denied",
        "EmptyBody",
        "HandleBody",
        "OpenApiDocument",
        "SignInEnded",
        "SignInStarted",
        "SignInState",
        "SignedOut",
        "Unavailable"
      ])
      for (const [name, schema] of Object.entries(expectedComponents)) {
        expect(document.components.schemas[name], name).toStrictEqual(schema)
      }
      for (const reference of refsIn(document)) {
        expect(components).toContain(reference.replace("#/components/schemas/", ""))
      }
    }))

  it.scopedLive("is built once: the same bytes on every request, the same string every time it is asked", () =>
    Effect.gen(function*() {
      const { port, reply } = yield* fetchDocument
      expect((yield* get(port, OPENAPI)).body).toBe(reply.body)
      expect(openApiJson()).toBe(reply.body)
      expect(Object.is(openApiJson(), openApiJson())).toBe(true)
      expect(openApiDocument()).toStrictEqual(JSON.parse(reply.body))
    }))

  it.scopedLive("describes the successes the app really gives", () =>
    Effect.gen(function*() {
      const { document, port } = yield* fetchDocument
      const success = (path: string, method: string) =>
        document.paths[path]?.[method]?.responses["200"]?.content["application/json"].schema ?? {}
      const status = JSON.parse((yield* get(port, STATUS)).body) as unknown
      expect(fits(document, success(STATUS, "get"), status)).toBe(true)
      const started = yield* post(port, START, "{}")
      const handle = startedHandle(started)
      expect(fits(document, success(START, "post"), JSON.parse(started.body))).toBe(true)
      const polled = yield* post(port, POLL, handleBody(handle))
      expect(fits(document, success(POLL, "post"), JSON.parse(polled.body))).toBe(true)
      const cancelled = yield* post(port, CANCEL, handleBody(handle))
      expect(fits(document, success(CANCEL, "post"), JSON.parse(cancelled.body))).toBe(true)
      const signedOut = yield* post(port, SIGN_OUT, "{}")
      expect(fits(document, success(SIGN_OUT, "post"), JSON.parse(signedOut.body))).toBe(true)
      // And the check has teeth: a body with an extra member, or another operation's, does not fit.
      expect(fits(document, success(SIGN_OUT, "post"), { kind: "sign-out", state: "signed-out", x: 1 })).toBe(false)
      expect(fits(document, success(SIGN_OUT, "post"), JSON.parse(cancelled.body))).toBe(false)
    }))

  it.scopedLive("every refusal the app gives fits what the document says of that operation and status", () =>
    Effect.gen(function*() {
      const { document, port } = yield* fetchDocument
      const documented = (path: string, status: number) =>
        document.paths[path]?.["post"]?.responses[String(status)]?.content["application/json"].schema
      const check = (path: string, reply: { readonly status: number; readonly body: string }) => {
        const schema = documented(path, reply.status)
        expect(schema, `${path} ${reply.status} is documented`).toBeDefined()
        expect(fits(document, schema ?? {}, JSON.parse(reply.body)), `${path} ${reply.body}`).toBe(true)
      }
      const json = ["Content-Type", "application/json"] as const
      const origin = [["Origin", "https://launchpad.example"], ["Sec-Fetch-Site", "same-origin"]] as const
      for (const path of [START, POLL, CANCEL, SIGN_OUT]) {
        const body = path === START || path === SIGN_OUT ? "{}" : handleBody("0".repeat(32))
        check(path, yield* post(port, path, body, [json]))
        check(path, yield* post(port, path, body, [...origin, ["Content-Type", "text/plain"]]))
        check(path, yield* post(port, path, "[]"))
        check(path, yield* post(port, path, " ".repeat(16 * 1024 + 1)))
      }
      check(POLL, yield* post(port, POLL, handleBody("ABC")))
      check(POLL, yield* post(port, POLL, handleBody("0".repeat(32))))
      check(CANCEL, yield* post(port, CANCEL, handleBody("0".repeat(32))))
      // invalid-handle and sign-in-unknown are not start's or sign-out's to give.
      expect(fits(document, documented(START, 400) ?? {}, { error: "invalid-handle" })).toBe(false)
      expect(fits(document, documented(SIGN_OUT, 409) ?? {}, { kind: "blocked", reason: "sign-in-unknown" })).toBe(
        false
      )
    }))

  it.scopedLive("hermes-outdated, unavailable and buddy-absent fit the document too", () =>
    Effect.gen(function*() {
      const { document } = yield* fetchDocument
      const schema = (path: string, status: number) =>
        document.paths[path]?.["post"]?.responses[String(status)]?.content["application/json"].schema ?? {}
      const outdated = yield* makeFakeGateway({ contract: false })
      const old = yield* serve(hostedConfig(outdated.home))
      const refusedStart = yield* post(old.port, START, "{}")
      expect(refusedStart.status).toBe(409)
      expect(fits(document, schema(START, 409), JSON.parse(refusedStart.body))).toBe(true)
      const nowhere = yield* serve(hostedConfig(yield* emptyHome))
      const unavailable = yield* post(nowhere.port, SIGN_OUT, "{}")
      expect(unavailable.status).toBe(503)
      expect(fits(document, schema(SIGN_OUT, 503), JSON.parse(unavailable.body))).toBe(true)
      const absent = yield* serve(hostedConfig(outdated.home, { environment: "local" }))
      const refused = yield* post(absent.port, START, "{}")
      expect(refused.status).toBe(404)
      expect(fits(document, schema(START, 404), JSON.parse(refused.body))).toBe(true)
    }))
})
