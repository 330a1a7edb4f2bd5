// SignIn on a fresh fake gateway for one test, and the gateway's record of HTTP requests with
// session ids shown as `<id>`: shared by the SignIn suites (sign-in, sign-in-endings).
import { type Context, Effect, Layer } from "effect"
import { type FakeGateway, makeFakeGateway } from "../../../fixtures/fake-gateway.js"
import type { JournalLines } from "../../../src/services/Journal.js"
import { SignIn } from "../../../src/services/SignIn.js"
import { buddyLayer } from "../../support/buddy.js"

export type SignInService = Context.Tag.Service<typeof SignIn>
type Received = FakeGateway["received"][number]

export const httpLines = (fake: FakeGateway) =>
  fake.received.filter((entry): entry is Extract<Received, { channel: "http" }> => entry.channel === "http").map((
    entry
  ) => `${entry.method} ${entry.path.replace(/\/(poll|sessions)\/[^/]+$/, "/$1/<id>")}`)

export const START = "POST /api/providers/oauth/openai-codex/start"
export const POLL = "GET /api/providers/oauth/openai-codex/poll/<id>"
export const CANCEL = "DELETE /api/providers/oauth/sessions/<id>"
export const SIGN_OUT = "DELETE /api/providers/oauth/openai-codex"

/** A fresh fake gateway and SignIn on it, for one test. */
export const withSignIn = <A, E>(
  use: (fake: FakeGateway, signIn: SignInService) => Effect.Effect<A, E, JournalLines>,
  options: Parameters<typeof makeFakeGateway>[0] = {}
) =>
  Effect.gen(function*() {
    const fake = yield* makeFakeGateway(options)
    return yield* Effect.flatMap(SignIn, (signIn) => use(fake, signIn)).pipe(
      Effect.provide(buddyLayer(fake).pipe(Layer.orDie))
    )
  }).pipe(Effect.scoped)
