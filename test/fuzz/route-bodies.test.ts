// Fuzzing our own route bodies (C6 check 4) through the real path: `respond` for each POST route,
// reading a web request's body (so the 16 KiB bound, strict UTF-8, JSON, exactly the listed keys
// and the handle's shape all run as the app runs them). The body gives the route's input or one
// of the closed refusals, and `{}` / `{handle}` pass only in their exact shapes.
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Arbitrary, Effect, Exit, FastCheck, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { respond, type Route, routes } from "../../src/http/routes.js"
import { Handle, HandleBody } from "../../src/schema/routes.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { SignIn } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import { failureOf } from "./support/closed.js"
import { arbitraryBytes, jsonBytes, jsonNearMiss, jsonText, stringNearMiss, textBytes } from "./support/mutate.js"
import { hasExactly, isHandle, isObject, type Json, parseJson, strictUtf8 } from "./support/oracles.js"
import { breathe, fuzzRuns, params, tally } from "./support/runs.js"

const fc = FastCheck

const limit = 16 * 1024
const config = BuddyConfig.forGateway({})

const routeOf = (operationId: string): Route => {
  const route = routes.find((candidate) => candidate.operationId === operationId)
  if (route === undefined) throw new Error(`no route ${operationId}`)
  return route
}

/** The probe's work never asks SignIn or Status: each dies if it ever does. */
const unused = Effect.dieMessage("route-bodies: the probe's work asked a service")
const unusedServices = Layer.mergeAll(
  Layer.succeed(
    SignIn,
    SignIn.of({ start: unused, poll: () => unused, cancel: () => unused, signOut: unused, current: unused })
  ),
  Layer.succeed(Status, Status.of({ read: unused }))
)

/**
 * The route's input for this body, as the app reads it: the route answered by `respond`, with its
 * work replaced by one that keeps what it was given (`{handle}`, or `{}` for a route without one).
 */
const inputFor = (route: Route, body: Uint8Array) => {
  const request = new Request(`http://launchpad.example${route.path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body
  })
  let given: { readonly handle?: string } | undefined
  const kept = Effect.sync(() => HttpServerResponse.empty())
  const probe: Route = route.body === "handle"
    ? { ...route, run: (handle) => Effect.zipRight(Effect.sync(() => void (given = { handle })), kept) }
    : { ...route, run: () => Effect.zipRight(Effect.sync(() => void (given = {})), kept) }
  return Effect.runPromiseExit(
    respond(probe, "/api/buddy").pipe(
      Effect.map(() => given),
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(request)),
      Effect.provideService(BuddyConfig, config),
      Effect.provide(unusedServices)
    )
  )
}

/** What C6 check 4 makes of a body: the handle (empty for `{}` routes), or the refusal. */
const expectedFor = (takes: "empty" | "handle", body: Uint8Array): string => {
  if (body.length > limit) return "body-too-large"
  const text = strictUtf8(body)
  const json = text === undefined ? undefined : parseJson(text)
  const value = json?.value
  if (takes === "empty") return isObject(value) && hasExactly(value, []) ? "input " : "invalid-request"
  if (!isObject(value) || !hasExactly(value, ["handle"])) return "invalid-request"
  const handle = value["handle"]
  if (typeof handle !== "string") return "invalid-request"
  return isHandle(handle) ? `input ${handle}` : "invalid-handle"
}

/** Handles: our own 32 hex, and what the project's `Handle` Schema generates as valid (effect's Arbitrary). */
const hex = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 32, maxLength: 32 }),
  Arbitrary.make(Handle)
)

const handleMisses = fc.oneof(
  hex.chain(stringNearMiss),
  hex.map((handle) => handle.toUpperCase()),
  hex.map((handle) => handle.slice(1)),
  hex.map((handle) => `${handle}0`),
  hex.map((handle) => `${handle}\n`),
  hex.map((handle) => `${handle.slice(0, 31)}g`),
  hex.map((handle) => `${handle.slice(0, 8)}-${handle.slice(8)}`),
  hex.map((handle) => `\uff10${handle.slice(1)}`)
)

/** Bodies around the 16 KiB bound: valid JSON padded to exactly `size` bytes. */
const nearLimit = (valid: Json) =>
  fc.integer({ min: limit - 4, max: limit + 4 }).map((size) => {
    const text = JSON.stringify(valid)
    return new TextEncoder().encode(" ".repeat(Math.max(0, size - text.length)) + text)
  })

const bodies = {
  empty: fc.oneof(
    { arbitrary: jsonBytes(fc.constant({})), weight: 4 },
    {
      arbitrary: fc.constantFrom(
        "[]",
        "null",
        "{\"\":null}",
        "{}{}",
        "{}\n",
        " {} ",
        "\ufeff{}",
        "{\"__proto__\":{}}",
        ""
      ).map((text) => new TextEncoder().encode(text)),
      weight: 2
    },
    { arbitrary: nearLimit({}), weight: 2 },
    { arbitrary: arbitraryBytes, weight: 1 }
  ),
  handle: fc.oneof(
    { arbitrary: hex.chain((handle) => textBytes(JSON.stringify({ handle }))), weight: 2 },
    { arbitrary: hex.chain((handle) => jsonBytes(fc.constant({ handle }), { handle: handleMisses })), weight: 4 },
    { arbitrary: handleMisses.chain((handle) => textBytes(JSON.stringify({ handle }))), weight: 2 },
    {
      arbitrary: hex.chain((handle) => jsonNearMiss({ handle }, { handle: handleMisses })).chain(jsonText).chain(
        textBytes
      ),
      weight: 2
    },
    { arbitrary: hex.chain((handle) => nearLimit({ handle })), weight: 3 },
    { arbitrary: Arbitrary.make(HandleBody).chain((body) => textBytes(JSON.stringify(body))), weight: 1 },
    { arbitrary: arbitraryBytes, weight: 1 }
  )
}

const cases: ReadonlyArray<readonly [string, "empty" | "handle"]> = [
  ["startSignIn", "empty"],
  ["pollSignIn", "handle"],
  ["cancelSignIn", "handle"],
  ["signOut", "empty"]
]

describe("fuzzing our route bodies", () => {
  for (const [operationId, takes] of cases) {
    it(`${operationId} takes its input only from an exact body, and refuses any other with a closed reason`, async () => {
      const route = routeOf(operationId)
      expect(route.body).toBe(takes)
      const seen = tally(`body ${operationId}`)
      await fc.assert(
        fc.asyncProperty(bodies[takes], async (body) => {
          await breathe()
          const exit = await inputFor(route, body)
          const expected = expectedFor(takes, body)
          seen.add(expected.startsWith("input") ? "input" : expected)
          if (Exit.isSuccess(exit)) {
            const input: unknown = exit.value
            const handle = isObject(input) && typeof input["handle"] === "string" ? input["handle"] : ""
            expect(`input ${handle}`).toBe(expected)
            expect(input).toStrictEqual(takes === "empty" ? {} : { handle })
            return
          }
          const failure = failureOf(exit)
          expect(failure._tag).toBe("Refused")
          expect(failure.reason).toBe(expected)
        }),
        params(fuzzRuns)
      )
      seen.report()
      const refusals = takes === "handle" ? ["invalid-handle", "invalid-request"] : ["invalid-request"]
      for (const outcome of ["input", "body-too-large", ...refusals]) expect(seen.seen(outcome)).toBeGreaterThan(0)
    })
  }
})
