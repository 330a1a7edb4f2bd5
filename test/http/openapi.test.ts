// GET /api/buddy/openapi.json: compared with the document written out below, by hand, from C6
// (not from the code that makes it): exactly the routes that exist, each with exactly the answers
// it can give (start and sign-out cannot say invalid-handle or sign-in-unknown) where it runs
// (mounted in a host, or behind buddy serve's own server, D54), the two headers the same-origin
// rule reads on every POST said in its description (never parameters), and the answer schemas as
// components. Then against the app: every refusal it really gives fits what the document says of
// that operation and status.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { openApiDocument, openApiJson } from "../../src/http/openapi.js"
import { ServedBy } from "../../src/http/served-by.js"
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
  readonly description?: string
  readonly "x-buddy-browser-headers"?: ReadonlyArray<unknown>
  readonly tags: ReadonlyArray<string>
  readonly security: ReadonlyArray<unknown>
  readonly parameters: ReadonlyArray<unknown>
  readonly requestBody?: { readonly required: boolean; readonly content: Content }
  readonly responses: Record<string, { readonly description: string; readonly content: Content }>
}

interface Document {
  readonly openapi: string
  readonly info: { readonly title: string; readonly version: string; readonly description: string }
  readonly tags: ReadonlyArray<{ readonly name: string; readonly description: string }>
  readonly security: ReadonlyArray<unknown>
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, JsonSchema>; readonly securitySchemes: unknown }
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

/** What `buddy serve`'s own server answers to any request, before the app (D36); only its document lists them (D54). */
const server = {
  "400": errors("invalid-request"),
  "403": denied("host-mismatch"),
  "408": errors("request-timeout"),
  "413": errors("body-too-large"),
  "417": errors("expectation-failed"),
  "431": errors("headers-too-large")
}

type Server = "mounted" | "buddy-serve"

/** Every operation is in the group `buddy`, asks no credential and takes no parameter (D54). */
const grouped = { tags: ["buddy"], security: [], parameters: [] }

/** What each operation is, asks and answers, mounted in a host or behind buddy serve: status → the schema of its body. */
const expectedBy = (behind: Server): Record<string, unknown> => {
  const own = behind === "buddy-serve"
  const getting = (operationId: string, success: string) => ({
    operationId,
    ...grouped,
    responses: {
      "200": ref(success),
      ...(own ? server : {}),
      "404": errors("buddy-absent"),
      "500": errors("operation-failed")
    }
  })
  const posting = (
    operationId: string,
    body: string,
    success: string,
    invalid: ReadonlyArray<string>,
    blockedBy: ReadonlyArray<string>
  ) => ({
    operationId,
    ...grouped,
    requestBody: ref(body),
    responses: {
      "200": ref(success),
      "400": errors(...invalid),
      // Behind buddy serve a 403 is either reason, the whole Denied; mounted, only the same-origin rule's.
      "403": own ? ref("Denied") : denied("origin-mismatch"),
      "404": errors("buddy-absent"),
      "409": blocked(...blockedBy),
      "413": errors("body-too-large"),
      "415": errors("invalid-content-type"),
      ...(own ? { "408": server["408"], "417": server["417"], "431": server["431"] } : {}),
      "500": errors("operation-failed"),
      "503": ref("Unavailable")
    }
  })
  const replacing = ["hermes-outdated", "sign-in-running", "lock-unavailable"]
  const holding = ["hermes-outdated", "sign-in-running", "sign-in-unknown"]
  return {
    "get /api/buddy": getting("status", "BuddyAnswer"),
    "get /api/buddy/openapi.json": getting("openApi", "OpenApiDocument"),
    "post /api/buddy/sign-in/start": posting(
      "startSignIn",
      "EmptyBody",
      "SignInStarted",
      ["invalid-request"],
      replacing
    ),
    "post /api/buddy/sign-in/poll": posting(
      "pollSignIn",
      "HandleBody",
      "SignInState",
      ["invalid-request", "invalid-handle"],
      holding
    ),
    "post /api/buddy/sign-in/cancel": posting(
      "cancelSignIn",
      "HandleBody",
      "SignInEnded",
      ["invalid-request", "invalid-handle"],
      holding
    ),
    "post /api/buddy/sign-out": posting("signOut", "EmptyBody", "SignedOut", ["invalid-request"], replacing)
  }
}

/** What a POST's description says of the two headers a browser sets itself, and the vendor extension listing them. */
const browserWords = "A browser sends Origin (exactly the Launchpad's own origin, never Buddy's) and Sec-Fetch-Site " +
  "(what the browser says of the request's initiator) itself on a fetch from the Launchpad's own page, and a script " +
  "cannot set them; without both the answer is 403 origin-mismatch."
const browserHeaders = [
  { name: "Origin", description: "exactly the Launchpad's own origin, never Buddy's", schema: { type: "string" } },
  {
    name: "Sec-Fetch-Site",
    description: "what the browser says of the request's initiator",
    schema: { type: "string", enum: ["same-origin"] }
  }
]

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
const refusalWords = (behind: Server): Record<string, string> => ({
  ...mountedWords,
  ...(behind === "buddy-serve"
    ? {
      "body-too-large": "the body is over 16 KiB, declared or streamed (buddy serve: or a chunk's extensions too long)",
      "invalid-request": "the body is not strict UTF-8 JSON with exactly the listed keys (buddy serve: or the " +
        "request is not HTTP it can parse, a CONNECT, or without Host)"
    }
    : {})
})

const mountedWords: Record<string, string> = {
  "buddy-absent": "no Buddy here: no Buddy origin recorded, or not a hosted personal environment",
  "origin-mismatch": "a POST from anywhere but the Launchpad's own page",
  "invalid-content-type": "Content-Type is not application/json",
  "body-too-large": "the body is over 16 KiB, declared or streamed",
  "invalid-request": "the body is not strict UTF-8 JSON with exactly the listed keys",
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

/** The document's operations in the form of `expectedBy`: descriptions and summaries left out. */
const shapeOf = (document: Document) =>
  Object.fromEntries(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [
        `${method} ${path}`,
        {
          operationId: operation.operationId,
          tags: operation.tags,
          security: operation.security,
          parameters: operation.parameters,
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

/** What every document of the app says, mounted or behind buddy serve: `text` is its bytes. */
const expectDescribes = (document: Document, text: string, behind: Server) => {
  expect(document.openapi).toBe("3.1.0")
  expect(document.info.title).toBe("buddy")
  expect(document.info.version).toBe(buddyVersion)
  expect(shapeOf(document)).toStrictEqual(expectedBy(behind))
  // What the shapes leave out (here, in the test that builds the document: it is built once per
  // process, and the mutation suite credits its code to the test that built it, D11).
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (method === "post") expect(operation.requestBody?.required, `${method} ${path}`).toBe(true)
      // The two headers a browser sets itself are said, never asked for as parameters.
      expect(operation.description, `${method} ${path}`).toBe(method === "post" ? browserWords : undefined)
      expect(operation["x-buddy-browser-headers"], `${method} ${path}`).toStrictEqual(
        method === "post" ? browserHeaders : undefined
      )
    }
  }
  expect(text.indexOf("\"200\":{\"description\":\"done\"")).toBeLessThan(text.indexOf("\"400\":"))
  const description = "Buddy's ChatGPT sign-in, state and sign-out, for the Launchpad. Any other path under " +
    "/api/buddy answers 404 {\"error\":\"not-found\"} (no such path under the root); another method on a path " +
    "answers 405 {\"error\":\"method-not-allowed\"} (the path exists, not with this method; see Allow)."
  expect(document.info.description).toBe(description)
  expect(document.tags).toStrictEqual([{ name: "buddy", description }])
  expect(document.security).toStrictEqual([])
  expect(document.components.securitySchemes).toStrictEqual({})
  // Each refusal's words, after its name, in every status that can carry it.
  const words = refusalWords(behind)
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status === "200") continue
        for (const part of response.description.split("; ")) {
          const name = part.slice(0, part.indexOf(": "))
          expect(part, `${method} ${path} ${status}`).toBe(`${name}: ${words[name]}`)
        }
      }
    }
  }
}

describe("GET /api/buddy/openapi.json", () => {
  it.scopedLive("mounted: the document C6 describes, every operation, its body and exactly the app's answers", () =>
    Effect.gen(function*() {
      const { document, reply } = yield* fetchDocument
      expectDescribes(document, reply.body, "mounted")
    }))

  it("behind buddy serve: the same, with the answers its own server gives (408, 417, 431, host-mismatch…)", () => {
    // The bytes buddy serve serves are these (test/serve/serving.test.ts).
    const text = openApiJson("/api/buddy", "buddy-serve")
    expectDescribes(JSON.parse(text) as Document, text, "buddy-serve")
    expect(openApiJson("/api/buddy", "buddy-serve")).toBe(text)
    expect(openApiJson("/api/buddy", "mounted")).not.toBe(text)
  })

  it("is the mount's where the host provides nothing: a Launchpad never says which server it is", () => {
    expect(Effect.runSync(ServedBy)).toBe("mounted")
  })

  it.scopedLive("has exactly the answer schemas as components, every reference resolving", () =>
    Effect.gen(function*() {
      const { document } = yield* fetchDocument
      const components = Object.keys(document.components.schemas)
      // Denied is buddy serve's (either reason): mounted, a 403 is only the same-origin rule's.
      expect(components.toSorted()).toStrictEqual([
        "BuddyAnswer",
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
        if (name !== "Denied") expect(document.components.schemas[name], name).toStrictEqual(schema)
      }
      const served = JSON.parse(openApiJson("/api/buddy", "buddy-serve")) as Document
      expect(Object.keys(served.components.schemas).toSorted()).toStrictEqual([...components, "Denied"].toSorted())
      for (const [name, schema] of Object.entries(expectedComponents)) {
        expect(served.components.schemas[name], name).toStrictEqual(schema)
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
