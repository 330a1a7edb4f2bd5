// The OpenAPI 3.1 document of our routes, derived from the one table (src/schema/routes.ts): the
// operations, their bodies and answers, and each refusal's status, so it lists exactly the routes
// that exist and exactly the answers each can give. Built once per root and kept as its bytes.
import { JSONSchema, Schema } from "effect"
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

type Json = JSONSchema.JsonSchema7

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

/** The two request headers the same-origin rule (C6 check 3) reads; a browser sends both itself. */
const sameOriginHeaders = [
  {
    name: "Origin",
    in: "header",
    required: true,
    description: "exactly the Launchpad's own origin (never Buddy's)",
    schema: { type: "string" }
  },
  {
    name: "Sec-Fetch-Site",
    in: "header",
    required: true,
    description: "what the browser says of the request's initiator",
    schema: { type: "string", enum: ["same-origin"] }
  }
] as const

// Stryker disable next-line StringLiteral: the targets differ only for tuples and JSON-in-string content, which no answer of C6 has
const target = "openApi3.1"

/** The document for the app under `root`, its schemas' references named `${names}<Schema>`. */
const make = (root: string, names = "") => {
  const definitions: Record<string, Json> = {}
  const schemaOf = (schema: Schema.Schema.Any): Json =>
    JSONSchema.fromAST(schema.ast, { definitions, definitionPath: `#/components/schemas/${names}`, target })
  const content = (schema: Schema.Schema.Any) => ({ "application/json": { schema: schemaOf(schema) } })

  /**
   * Each status the operation can answer with, its refusals grouped under it: the app's, then those
   * of `buddy serve`'s own server that the app does not give (their descriptions say so).
   */
  const refusalResponses = (operation: Operation) => {
    const byStatus = new Map<number, Array<RefusalName>>()
    for (const name of new Set([...refusalsOf(operation), ...serverRefusals])) {
      const status = refusals[name].status
      byStatus.set(status, [...(byStatus.get(status) ?? []), name])
    }
    return [...byStatus.entries()].map(([status, names]) => {
      const kinds = [...new Set(names.map((name) => refusals[name].body))]
      const bodies = kinds.map((kind) => bodyOf(kind, names.filter((name) => refusals[name].body === kind)))
      return [
        String(status),
        {
          description: names.map((name) => `${name}: ${refusals[name].description}`).join("; "),
          content: content(bodies.length === 1 ? bodies[0]! : Schema.Union(...bodies))
        }
      ] as const
    })
  }

  const operationOf = (operation: Operation) => ({
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.method === "POST" ? { parameters: sameOriginHeaders } : {}),
    ...(operation.body === "none"
      ? {}
      : { requestBody: { required: true, content: content(operation.body === "empty" ? EmptyBody : HandleBody) } }),
    // Status codes are integer-like keys: an object lists them in ascending order whatever the
    // order they were added in, and so does the JSON.
    responses: Object.fromEntries(
      [["200", { description: "done", content: content(operation.success) }] as const, ...refusalResponses(operation)]
    )
  })

  const paths: Record<string, Record<string, ReturnType<typeof operationOf>>> = {}
  for (const operation of Object.values(operations)) {
    const path = `${root}${operation.path}`
    paths[path] = { ...paths[path], [operation.method.toLowerCase()]: operationOf(operation) }
  }
  const notFound = refusals["not-found"].status
  const notAllowed = refusals["method-not-allowed"].status
  return {
    openapi: "3.1.0",
    info: {
      title: "buddy",
      version: buddyVersion,
      description: "Buddy's ChatGPT sign-in, state and sign-out, for the Launchpad. Any other path under " +
        `${root} answers ${notFound} ${JSON.stringify(Schema.encodeSync(ErrorAnswer)({ error: "not-found" }))} ` +
        `(${refusals["not-found"].description}); another method on a path answers ${notAllowed} ` +
        `${JSON.stringify(Schema.encodeSync(ErrorAnswer)({ error: "method-not-allowed" }))} ` +
        `(${refusals["method-not-allowed"].description}).`
    },
    paths,
    components: { schemas: definitions }
  }
}

const built = new Map<string, string>()

/** The document's bytes for the app served under `root`, made on the first ask for that root. */
export const openApiJson = (root: string = apiRoot): string => {
  const known = built.get(root)
  if (known !== undefined) return known
  const text = JSON.stringify(make(root))
  built.set(root, text)
  return text
}

/** The OpenAPI document of the app served under `root` (C6's `/api/buddy` unless mounted elsewhere). */
export const openApiDocument = (root: string = apiRoot): unknown => JSON.parse(openApiJson(root))

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The name buddy's operations, schemas and tag go by in another document. */
const tag = "buddy"

/**
 * buddy's operations, under `prefix` (C6's `/api/buddy` unless mounted elsewhere), merged into a
 * Launchpad's own OpenAPI document: for `OpenApi.Transform` on its `HttpApi`, or applied to any
 * document object. Each operation keeps its shape under the tag `buddy`, its id and its schemas
 * named `buddy.<name>` (HttpApi's `group.endpoint` form) so none meets one of the Launchpad's; the
 * tag's description says what answers no operation (not-found, 405). The document given is not
 * changed; a path of its own under the prefix gives way to buddy's.
 */
export const withBuddyOperations = (prefix: string = apiRoot) => (spec: Record<string, unknown>) => {
  const document = make(prefix, `${tag}.`)
  const paths = Object.fromEntries(
    Object.entries(document.paths).map(([path, operations]) => [
      path,
      Object.fromEntries(
        Object.entries(operations).map((
          [method, operation]
        ) => [method, { ...operation, operationId: `${tag}.${operation.operationId}`, tags: [tag] }])
      )
    ])
  )
  const schemas = Object.fromEntries(
    Object.entries(document.components.schemas).map(([name, schema]) => [`${tag}.${name}`, schema])
  )
  const components = isRecord(spec["components"]) ? spec["components"] : {}
  return {
    ...spec,
    tags: [...(Array.isArray(spec["tags"]) ? spec["tags"] : []), { name: tag, description: document.info.description }],
    paths: { ...(isRecord(spec["paths"]) ? spec["paths"] : {}), ...paths },
    components: {
      ...components,
      schemas: { ...(isRecord(components["schemas"]) ? components["schemas"] : {}), ...schemas }
    }
  }
}
