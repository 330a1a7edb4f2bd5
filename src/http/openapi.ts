// The OpenAPI 3.1 document of our routes, derived from the one table (src/schema/routes.ts): the
// operations, their bodies and answers, and each refusal's status, so it lists exactly the routes
// that exist and exactly the answers each can give where it runs: the app mounted in a host, or
// behind `buddy serve`'s own server, which answers some requests itself (D54). Typed as
// @effect/platform's `OpenApi.OpenAPISpec`, the type `OpenApi.fromApi` gives a Launchpad, so the
// two merge without a cast. Built once per root and server and kept as its bytes.
import type * as OpenApi from "@effect/platform/OpenApi"
import * as OpenApiJsonSchema from "@effect/platform/OpenApiJsonSchema"
import { Schema } from "effect"
import {
  apiRoot,
  BlockedAnswer,
  DeniedAnswer,
  EmptyBody,
  ErrorAnswer,
  HandleBody,
  type Operation,
  operations,
  type RefusalBody,
  type RefusalName,
  refusals,
  refusalsOf,
  serverRefusals,
  UnavailableAnswer
} from "../schema/routes.js"
import { buddyVersion } from "../version.js"
import type { Server } from "./served-by.js"

/**
 * The body of these refusals, narrowed to them: `{error}` with exactly their names, `{kind:"blocked"}`
 * and `{error:"denied"}` with exactly their reasons; unavailable has one shape.
 */
const bodyOf = (kind: RefusalBody, names: ReadonlyArray<RefusalName>): Schema.Schema.Any => {
  switch (kind) {
    case "error":
      return Schema.Struct({ error: Schema.Literal(...names) })
    case "blocked":
      return Schema.Struct({ kind: BlockedAnswer.fields.kind, reason: Schema.Literal(...names) })
    case "denied":
      return names.length === DeniedAnswer.fields.reason.literals.length
        ? DeniedAnswer
        : Schema.Struct({ error: DeniedAnswer.fields.error, reason: Schema.Literal(...names) })
    case "unavailable":
      return UnavailableAnswer
  }
}

/**
 * The two request headers the same-origin rule (C6 check 3) reads. A browser sets both itself on a
 * fetch from the Launchpad's page and forbids a script to, so they are no parameters (a generated
 * client would demand them): the operation's description says them, and this vendor extension
 * lists them for a tool that reads it.
 */
const browserHeaders = [
  {
    name: "Origin",
    description: "exactly the Launchpad's own origin, never Buddy's",
    schema: { type: "string" }
  },
  {
    name: "Sec-Fetch-Site",
    description: "what the browser says of the request's initiator",
    schema: { type: "string", enum: ["same-origin"] }
  }
] as const

const browserWords =
  `A browser sends ${
    browserHeaders.map(({ description, name }) => `${name} (${description})`).join(" and ")
  } itself on a fetch from the Launchpad's own page, and a script cannot set them; without both the answer is ` +
  `${refusals["origin-mismatch"].status} origin-mismatch.`

/** An operation of ours: the platform's, with the same-origin rule's headers on each POST. */
type BuddyOperation = OpenApi.OpenAPISpecOperation & {
  readonly "x-buddy-browser-headers"?: typeof browserHeaders
}

/** The group every operation of ours is in: its tag, and the prefix of its ids and schemas in a merge. */
const tag = "buddy"

/** The refusal's words in the document of the app behind `server`. */
const wordsOf = (name: RefusalName, server: Server) => {
  const { description, served } = refusals[name]
  return server === "buddy-serve" && served !== undefined ? `${description} (buddy serve: ${served})` : description
}

/**
 * The document for the app under `root` behind `server`, its schemas' references named
 * `${names}<Schema>`.
 */
const make = (root: string, server: Server, names = ""): OpenApi.OpenAPISpec => {
  const definitions: Record<string, OpenApiJsonSchema.JsonSchema> = {}
  const content = (schema: Schema.Schema.Any) => ({
    "application/json": {
      schema: OpenApiJsonSchema.makeWithDefs(schema, { defs: definitions, defsPath: `#/components/schemas/${names}` })
    }
  })
  const answered = (operation: Operation) =>
    server === "buddy-serve" ? [...refusalsOf(operation), ...serverRefusals] : refusalsOf(operation)

  /**
   * Each status the operation can answer with, its refusals grouped under it: the app's, then,
   * behind buddy serve, those of its own server that the app does not give.
   */
  const refusalResponses = (operation: Operation) => {
    const byStatus = new Map<number, Array<RefusalName>>()
    for (const name of new Set(answered(operation))) {
      const status = refusals[name].status
      byStatus.set(status, [...(byStatus.get(status) ?? []), name])
    }
    return [...byStatus.entries()].map(([status, names]) => {
      const kinds = [...new Set(names.map((name) => refusals[name].body))]
      const bodies = kinds.map((kind) => bodyOf(kind, names.filter((name) => refusals[name].body === kind)))
      return [
        String(status),
        {
          description: names.map((name) => `${name}: ${wordsOf(name, server)}`).join("; "),
          content: content(bodies.length === 1 ? bodies[0]! : Schema.Union(...bodies))
        }
      ] as const
    })
  }

  const operationOf = (operation: Operation): BuddyOperation => ({
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.method === "POST" ? { description: browserWords, "x-buddy-browser-headers": browserHeaders } : {}),
    tags: [tag],
    // The app asks no credential; a host that puts it behind its own says so in its document.
    security: [],
    parameters: [],
    ...(operation.body === "none"
      ? {}
      : {
        requestBody: {
          required: true,
          content: content(operation.body === "empty" ? EmptyBody : HandleBody)
        }
      }),
    // Status codes are integer-like keys: an object lists them in ascending order whatever the
    // order they were added in, and so does the JSON.
    responses: Object.fromEntries(
      [["200", { description: "done", content: content(operation.success) }] as const, ...refusalResponses(operation)]
    )
  })

  const paths: Record<string, Partial<Record<"get" | "post", BuddyOperation>>> = {}
  for (const operation of Object.values(operations)) {
    const path = `${root}${operation.path}`
    paths[path] = { ...paths[path], [operation.method === "GET" ? "get" : "post"]: operationOf(operation) }
  }
  const notFound = refusals["not-found"].status
  const notAllowed = refusals["method-not-allowed"].status
  const description = "Buddy's ChatGPT sign-in, state and sign-out, for the Launchpad. Any other path under " +
    `${root} answers ${notFound} ${JSON.stringify(Schema.encodeSync(ErrorAnswer)({ error: "not-found" }))} ` +
    `(${refusals["not-found"].description}); another method on a path answers ${notAllowed} ` +
    `${JSON.stringify(Schema.encodeSync(ErrorAnswer)({ error: "method-not-allowed" }))} ` +
    `(${refusals["method-not-allowed"].description}).`
  return {
    openapi: "3.1.0",
    info: { title: "buddy", version: buddyVersion, description },
    // The tag carries what answers no operation, so it stays with the operations in a merge.
    tags: [{ name: tag, description }],
    security: [],
    paths,
    components: { schemas: definitions, securitySchemes: {} }
  }
}

const built = new Map<string, string>()

/**
 * The document's bytes for the app served under `root` behind `server` (mounted unless buddy
 * serve's), made on the first ask for that root and server.
 */
// Stryker disable next-line StringLiteral: the document tells only "buddy-serve" apart, and the cache key is the same text made again
export const openApiJson = (root: string = apiRoot, server: Server = "mounted"): string => {
  const key = `${server} ${root}`
  const known = built.get(key)
  if (known !== undefined) return known
  const text = JSON.stringify(make(root, server))
  built.set(key, text)
  return text
}

/**
 * The OpenAPI document of the app mounted under `root` (C6's `/api/buddy` unless mounted
 * elsewhere): the answers the app gives in any host. A new object on every call.
 */
// Stryker disable next-line StringLiteral: the document tells only "buddy-serve" apart; any other value is the mounted app's
export const openApiDocument = (root: string = apiRoot): OpenApi.OpenAPISpec => make(root, "mounted")

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const recordOr = (value: unknown): Readonly<Record<string, unknown>> => isRecord(value) ? value : {}
const arrayOr = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []

/** What `withBuddyOperations(prefix)` is: a document in, the same document with buddy's operations out. */
export interface BuddyOperationsMerge {
  /** `OpenApi.fromApi(api)`'s document: an `OpenAPISpec` again. */
  (spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec
  /** Any other document object, as `OpenApi.Transform` hands the Launchpad's `HttpApi`'s over. */
  (spec: Readonly<Record<string, unknown>>): Record<string, unknown>
}

/**
 * buddy's operations, under `prefix` (C6's `/api/buddy` unless mounted elsewhere), merged into a
 * Launchpad's own OpenAPI document: `OpenApi.fromApi(api)`'s, for `OpenApi.Transform` on its
 * `HttpApi`, or any document object. They are the mounted app's: its answers, not `buddy serve`'s.
 * Each operation keeps its shape under the tag `buddy`, its id and its schemas named `buddy.<name>`
 * (HttpApi's `group.endpoint` form) so none meets one of the Launchpad's, and the document's own
 * `security` (a Launchpad puts the app behind its authentication); the tag's description says what
 * answers no operation (not-found, 405). The document given is not changed; a path of its own under
 * the prefix gives way to buddy's.
 */
export const withBuddyOperations = (prefix: string = apiRoot): BuddyOperationsMerge => {
  // Stryker disable next-line StringLiteral: as openApiDocument's
  const buddy = make(prefix, "mounted", `${tag}.`)
  const schemas = Object.fromEntries(
    Object.entries(buddy.components.schemas).map(([name, schema]) => [`${tag}.${name}`, schema])
  )
  function merge(spec: OpenApi.OpenAPISpec): OpenApi.OpenAPISpec
  function merge(spec: Readonly<Record<string, unknown>>): Record<string, unknown>
  function merge(
    spec: OpenApi.OpenAPISpec | Readonly<Record<string, unknown>>
  ): OpenApi.OpenAPISpec | Record<string, unknown> {
    // Stated for the document as a whole, so buddy's operations are under it as the rest are.
    const security = arrayOr(spec["security"])
    const paths = Object.fromEntries(
      Object.entries(buddy.paths).map(([path, methods]) => [
        path,
        Object.fromEntries(
          Object.entries(methods).map((
            [method, operation]
          ) => [method, { ...operation, operationId: `${tag}.${operation.operationId}`, security }])
        )
      ])
    )
    const components = recordOr(spec["components"])
    return {
      ...spec,
      tags: [...arrayOr(spec["tags"]), ...buddy.tags],
      paths: { ...recordOr(spec["paths"]), ...paths },
      components: { ...components, schemas: { ...recordOr(components["schemas"]), ...schemas } }
    }
  }
  return merge
}
