// The five routes of C6 as one table: path, method, what the body must be, what each answers.
// The app dispatches from it and the OpenAPI document is generated from it, so the two cannot
// disagree about which routes exist.
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Schema } from "effect"
import {
  BuddyAnswer,
  CancelAnswer,
  EmptyBody,
  Handle,
  HandleBody,
  PollAnswer,
  SignOutAnswer,
  StartAnswer
} from "../schema/routes.js"
import { BuddyConfig } from "../services/BuddyConfig.js"
import { type Refusal, SignIn } from "../services/SignIn.js"
import { Status } from "../services/Status.js"
import { buddyVersion } from "../version.js"
import { answer, securityHeaders } from "./answer.js"
import { decodeBody, readBody } from "./body.js"
import { openApiDocument } from "./openapi.js"
import { refused } from "./refusal.js"

/** What a route receives after checks 1–4: its handle, for the routes that take one. */
type Input = { readonly handle: string }

/** A route's work once admitted: the only place the app asks SignIn or Status. */
type Run = (
  input: Input
) => Effect.Effect<HttpServerResponse.HttpServerResponse, Refusal, SignIn | Status | BuddyConfig>

export interface Route {
  readonly path: string
  readonly method: "GET" | "POST"
  readonly operationId: string
  readonly summary: string
  /** The body it takes, if any. */
  readonly body: "none" | "empty" | "handle"
  /** Its success answer, for the OpenAPI document. */
  readonly success: Schema.Schema.Any
  /** The refusals it can answer besides 404/405/500. */
  readonly refusals: ReadonlyArray<number>
  readonly run: Run
}

const postRefusals = [400, 403, 409, 413, 415, 503]

export const routes: ReadonlyArray<Route> = [
  {
    path: "/api/buddy",
    method: "GET",
    operationId: "status",
    summary: "Buddy's state (works, waits or unknown) and whether a sign-in is held",
    body: "none",
    success: BuddyAnswer,
    refusals: [],
    run: () =>
      Effect.gen(function*() {
        const config = yield* BuddyConfig
        const status = yield* Effect.flatMap(Status, (service) => service.read)
        const held = yield* Effect.flatMap(SignIn, (signIn) => signIn.current)
        return yield* answer(BuddyAnswer, 200, {
          kind: "buddy",
          ...status,
          signIn: { state: held },
          locale: config.locale
        })
      })
  },
  {
    path: "/api/buddy/sign-in/start",
    method: "POST",
    operationId: "startSignIn",
    summary: "Start Buddy's ChatGPT sign-in: the holder gets a handle, the code and OpenAI's page",
    body: "empty",
    success: StartAnswer,
    refusals: postRefusals,
    run: () =>
      Effect.flatMap(SignIn, (signIn) => signIn.start).pipe(
        Effect.flatMap(({ code, handle, page }) =>
          answer(StartAnswer, 200, { kind: "sign-in", state: "pending", handle, code, page })
        )
      )
  },
  {
    path: "/api/buddy/sign-in/poll",
    method: "POST",
    operationId: "pollSignIn",
    summary: "The held sign-in's state, for its holder",
    body: "handle",
    success: PollAnswer,
    refusals: postRefusals,
    run: ({ handle }) =>
      Effect.flatMap(SignIn, (signIn) => signIn.poll(handle)).pipe(
        Effect.flatMap((view) => answer(PollAnswer, 200, { kind: "sign-in", ...view }))
      )
  },
  {
    path: "/api/buddy/sign-in/cancel",
    method: "POST",
    operationId: "cancelSignIn",
    summary: "Cancel the held sign-in on Hermes, for its holder",
    body: "handle",
    success: CancelAnswer,
    refusals: postRefusals,
    run: ({ handle }) =>
      Effect.flatMap(SignIn, (signIn) => signIn.cancel(handle)).pipe(
        Effect.flatMap((cancelled) => answer(CancelAnswer, 200, { kind: "sign-in", ...cancelled }))
      )
  },
  {
    path: "/api/buddy/openapi.json",
    method: "GET",
    operationId: "openApi",
    summary: "This document",
    body: "none",
    success: Schema.Object,
    refusals: [],
    run: () =>
      Effect.sync(() =>
        HttpServerResponse.unsafeJson(openApiDocument(routes, buddyVersion), { headers: securityHeaders })
      )
  },
  {
    path: "/api/buddy/sign-out",
    method: "POST",
    operationId: "signOut",
    summary: "Sign Buddy out of ChatGPT (a held sign-in is cancelled first)",
    body: "empty",
    success: SignOutAnswer,
    refusals: postRefusals,
    run: () =>
      Effect.flatMap(SignIn, (signIn) => signIn.signOut).pipe(
        Effect.flatMap((signedOut) => answer(SignOutAnswer, 200, { kind: "sign-out", ...signedOut }))
      )
  }
]

/** Check 4's body part: read within the limit, decode strictly, then the handle's own shape. */
export const inputOf = (route: Route) =>
  Effect.gen(function*() {
    if (route.body === "none") return { handle: "" }
    const { limits } = yield* BuddyConfig
    const bytes = yield* readBody(limits.requestBody)
    if (route.body === "empty") {
      yield* decodeBody(EmptyBody, bytes)
      return { handle: "" }
    }
    const { handle } = yield* decodeBody(HandleBody, bytes)
    if (Either.isLeft(Schema.decodeUnknownEither(Handle)(handle))) return yield* Effect.fail(refused("invalid-handle"))
    return { handle }
  })
