// Start and sign-out take the body `{}` and nothing else (C6 check 4: "keys other than exactly those
// listed: 400 invalid-request"). `Schema.Struct({})` would have been the `{}` type, any non-nullable
// value, admitting extra keys, arrays, numbers, strings and booleans (fixed in 289f6aa); these pin
// the fix, on the wire and in the OpenAPI document.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { bodies, expectAnswer } from "./support/answers.js"
import { get, hostedConfig, OPENAPI, post, serve, SIGN_OUT, START } from "./support/server.js"

describe("start and sign-out take exactly {}", () => {
  for (const body of ["{\"x\":1}", "{\"handle\":\"0123456789abcdef0123456789abcdef\"}", "[]", "1", "\"x\"", "true"]) {
    it.scopedLive(`${body}: 400 invalid-request on start and sign-out, Hermes never asked`, () =>
      Effect.gen(function*() {
        const fake = yield* makeFakeGateway({ signedIn: true })
        const { journal, port } = yield* serve(hostedConfig(fake.home))
        expectAnswer(yield* post(port, START, body), 400, bodies.invalidRequest)
        expectAnswer(yield* post(port, SIGN_OUT, body), 400, bodies.invalidRequest)
        expect(fake.received).toStrictEqual([])
        expect(fake.signedIn).toBe(true)
        expect(yield* journal).toStrictEqual([])
      }))
  }

  it.scopedLive("the OpenAPI document's EmptyBody is an object without members", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      const document = JSON.parse((yield* get(port, OPENAPI)).body) as {
        readonly components: { readonly schemas: Record<string, unknown> }
      }
      expect(document.components.schemas["EmptyBody"]).toMatchObject({ type: "object", additionalProperties: false })
    }))
})
