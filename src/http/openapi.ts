// The OpenAPI 3.1 document of our routes, generated from the same route table the app dispatches
// from and from the answer Schemas, so it lists exactly the routes that exist and their wire.
import { JSONSchema, type Schema } from "effect"
import { EmptyBody, HandleBody } from "../schema/routes.js"
import { BlockedAnswer, DeniedAnswer, ErrorAnswer, UnavailableAnswer } from "../schema/routes.js"
import type { Route } from "./routes.js"

const descriptions: Record<number, string> = {
  200: "done",
  400: "invalid-request or invalid-handle",
  403: "denied: origin-mismatch (POST from anywhere but the Launchpad's own page)",
  404: "buddy-absent or not-found",
  405: "method-not-allowed (see Allow)",
  409: "blocked: hermes-outdated, sign-in-running or sign-in-unknown",
  413: "body-too-large (16 KiB)",
  415: "invalid-content-type (application/json only)",
  500: "operation-failed",
  503: "buddy-unavailable with the gateway's closed reason"
}

/** The schema of each refusal status. */
const refusalSchemas: Record<number, Schema.Schema.Any> = {
  400: ErrorAnswer,
  403: DeniedAnswer,
  404: ErrorAnswer,
  405: ErrorAnswer,
  409: BlockedAnswer,
  413: ErrorAnswer,
  415: ErrorAnswer,
  500: ErrorAnswer,
  503: UnavailableAnswer
}

type Json = JSONSchema.JsonSchema7

export const openApiDocument = (routes: ReadonlyArray<Route>, version: string) => {
  const definitions: Record<string, Json> = {}
  const schemaOf = (schema: Schema.Schema.Any): Json =>
    JSONSchema.fromAST(schema.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1" })
  const content = (schema: Schema.Schema.Any) => ({ "application/json": { schema: schemaOf(schema) } })
  const operation = (route: Route) => ({
    operationId: route.operationId,
    summary: route.summary,
    ...(route.body === "none"
      ? {}
      : { requestBody: { required: true, content: content(route.body === "empty" ? EmptyBody : HandleBody) } }),
    responses: Object.fromEntries(
      [200, ...route.refusals, 404, 405, 500].map((status) => [
        String(status),
        {
          description: descriptions[status] ?? "",
          content: content(status === 200 ? route.success : refusalSchemas[status] ?? ErrorAnswer)
        }
      ])
    )
  })
  const paths: Record<string, Record<string, ReturnType<typeof operation>>> = {}
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) }
  }
  return {
    openapi: "3.1.0",
    info: { title: "buddy", version, description: "Buddy's ChatGPT sign-in, state and sign-out, for the Launchpad" },
    paths,
    components: { schemas: definitions }
  }
}
