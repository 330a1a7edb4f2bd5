// Two edges of the app: the OpenAPI document says which operations take a body and which do not,
// and a path outside /api/buddy is never "buddy-absent" (the app only speaks for Buddy's paths).
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeBuddyWebHandler } from "../../src/http/hosts.js"
import { openApiDocument } from "../../src/http/openapi.js"
import { routes } from "../../src/http/routes.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"

it("only the POST operations document a request body, and each names its exact body", () => {
  const document = openApiDocument() as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>
  }
  for (const route of routes) {
    // Route paths are under the app's root; the document names them where C6 puts it.
    const operation = document.paths[`/api/buddy${route.path}`]?.[route.method.toLowerCase()]
    expect(operation, route.path).toBeDefined()
    if (route.method === "GET") expect(operation?.requestBody, route.path).toBeUndefined()
    else {
      expect(operation?.requestBody?.content["application/json"]?.schema, route.path).toStrictEqual({
        $ref: route.body === "empty" ? "#/components/schemas/EmptyBody" : "#/components/schemas/HandleBody"
      })
    }
  }
})

it.scoped("where Buddy is absent, a path outside /api/buddy is not-found, not buddy-absent", () =>
  Effect.gen(function*() {
    const { dispose, handler } = makeBuddyWebHandler(BuddyConfig.forGateway({ environment: "local" }))
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    const outside = yield* Effect.promise(() => handler(new Request("http://127.0.0.1/api/buddyx")))
    expect(outside.status).toBe(404)
    expect(yield* Effect.promise(() => outside.text())).toBe("{\"error\":\"not-found\"}")
    const inside = yield* Effect.promise(() => handler(new Request("http://127.0.0.1/api/buddy/x")))
    expect(yield* Effect.promise(() => inside.text())).toBe("{\"error\":\"buddy-absent\"}")
  }))
