// The routes of C6: each operation of the one table (src/schema/routes.ts: path, method, body,
// answers) with the work it does once admitted. The app dispatches from this list and the OpenAPI
// document is generated from the same operations, so the two cannot disagree about what exists.
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either, Schema } from "effect"
import {
  BuddyAnswer,
  CancelAnswer,
  EmptyBody,
  Handle,
  HandleBody,
  type Operation,
  operations,
  PollAnswer,
  SignOutAnswer,
  StartAnswer
} from "../schema/routes.js"
import { BuddyConfig } from "../services/BuddyConfig.js"
import { type Refusal, SignIn } from "../services/SignIn.js"
import { Status } from "../services/Status.js"
import { answer, json } from "./answer.js"
import { decodeBody, readBody } from "./body.js"
import { openApiJson } from "./openapi.js"
import { refused } from "./refusal.js"
import { ServedBy } from "./served-by.js"

/** What a route's work answers, from the services it asks. */
type Work = Effect.Effect<HttpServerResponse.HttpServerResponse, Refusal, SignIn | Status | BuddyConfig>

/**
 * A route: its operation and its work. The work of a route that takes a handle receives it; the
 * others have no parameters and receive the root the app is served under (the document names it).
 */
export type Route =
  | Operation & { readonly body: "none" | "empty"; readonly run: (root: string) => Work }
  | Operation & { readonly body: "handle"; readonly run: (handle: string) => Work }

export const routes: ReadonlyArray<Route> = [
  {
    ...operations.status,
    run: () =>
      Effect.gen(function*() {
        const config = yield* BuddyConfig
        // The held sign-in first: an approval it finds shows in the card read after it (C5).
        const held = yield* Effect.flatMap(SignIn, (signIn) => signIn.current)
        const status = yield* Effect.flatMap(Status, (service) => service.read)
        return yield* answer(BuddyAnswer, 200, {
          kind: "buddy",
          ...status,
          signIn: { state: held },
          locale: config.locale
        })
      })
  },
  {
    ...operations.startSignIn,
    run: () =>
      Effect.flatMap(SignIn, (signIn) => signIn.start).pipe(
        Effect.flatMap(({ code, handle, page }) =>
          answer(StartAnswer, 200, { kind: "sign-in", state: "pending", handle, code, page })
        )
      )
  },
  {
    ...operations.pollSignIn,
    run: (handle) =>
      Effect.flatMap(SignIn, (signIn) => signIn.poll(handle)).pipe(
        Effect.flatMap((view) => answer(PollAnswer, 200, { kind: "sign-in", ...view }))
      )
  },
  {
    ...operations.cancelSignIn,
    run: (handle) =>
      Effect.flatMap(SignIn, (signIn) => signIn.cancel(handle)).pipe(
        Effect.flatMap((cancelled) => answer(CancelAnswer, 200, { kind: "sign-in", ...cancelled }))
      )
  },
  {
    ...operations.openApi,
    // Built once per root (a Launchpad mounts the app under one) and server, then the same bytes
    // every time: buddy serve's lists its own server's answers too (D54).
    run: (root) => Effect.map(ServedBy, (server) => json(openApiJson(root, server), 200))
  },
  {
    ...operations.signOut,
    run: () =>
      Effect.flatMap(SignIn, (signIn) => signIn.signOut).pipe(
        Effect.flatMap((signedOut) => answer(SignOutAnswer, 200, { kind: "sign-out", ...signedOut }))
      )
  }
]

/** Check 4 for `{}`: read within the limit, decode strictly; there is nothing in it to keep. */
const emptyBody = Effect.flatMap(
  BuddyConfig,
  ({ limits }) => Effect.flatMap(readBody(limits.requestBody), (bytes) => decodeBody(EmptyBody, bytes))
)

/** Check 4 for `{handle}`: read within the limit, decode strictly, then the handle's own shape. */
const handleBody = Effect.gen(function*() {
  const { limits } = yield* BuddyConfig
  const { handle } = yield* decodeBody(HandleBody, yield* readBody(limits.requestBody))
  if (Either.isLeft(Schema.decodeUnknownEither(Handle)(handle))) return yield* Effect.fail(refused("invalid-handle"))
  return handle
})

/** Check 4's body part, then the route's work with what it takes. */
export const respond = (route: Route, root: string) =>
  route.body === "handle"
    ? Effect.flatMap(handleBody, route.run)
    : Effect.zipRight(route.body === "empty" ? emptyBody : Effect.void, route.run(root))
