// The layers a Launchpad builds (D43): BuddyLive from its fields and BuddyLiveConfig from Effect's
// Config, checked; each says once, on Effect's logger, when its config has no Buddy and which field
// is why; the journal is a layer of the Launchpad's choosing. Driven through the app against the
// fake gateway, with every log line captured.
import * as HttpApp from "@effect/platform/HttpApp"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyHttpApp } from "../../src/http/app.js"
import { BuddyLive, BuddyLiveConfig } from "../../src/http/live.js"
import { BuddyConfig, type BuddyConfigFields } from "../../src/services/BuddyConfig.js"
import { Journal } from "../../src/services/Journal.js"
import { SignIn } from "../../src/services/SignIn.js"
import type { Status } from "../../src/services/Status.js"
import { LAUNCHPAD } from "./support/server.js"

const fields = (home: string, more: Partial<BuddyConfigFields> = {}): BuddyConfigFields => ({
  hermesHome: home,
  launchpadOrigin: LAUNCHPAD,
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal",
  ...more
})

/** Every line Effect's logger is given while `layer` serves GET /api/buddy `reads` times; the answers. */
const served = <E>(layer: Layer.Layer<SignIn | Status | BuddyConfig, E>, reads = 3) =>
  Effect.gen(function*() {
    const logged: Array<readonly [string, unknown]> = []
    const capture = Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ logLevel, message }) => logged.push([logLevel.label, message]))
    )
    const { dispose, handler } = HttpApp.toWebHandlerLayer(BuddyHttpApp, Layer.provideMerge(layer, capture))
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    const answers: Array<string> = []
    for (let read = 0; read < reads; read++) {
      const response = yield* Effect.promise(() => handler(new Request(`${LAUNCHPAD}/api/buddy`)))
      answers.push(`${response.status} ${yield* Effect.promise(() => response.text())}`)
    }
    return { logged, answers }
  })

describe("BuddyLive, a Launchpad's fields", () => {
  it.scopedLive("without buddyOrigin: says so once, naming the field, and every route is buddy-absent", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { answers, logged } = yield* served(BuddyLive({ ...fields(fake.home), buddyOrigin: undefined }))
      expect(answers).toStrictEqual(Array(3).fill("404 {\"error\":\"buddy-absent\"}"))
      expect(logged).toStrictEqual([[
        "WARN",
        [
          "buddy: the config has no buddyOrigin, so Buddy is absent here and every route of the app answers 404 " +
          "buddy-absent; give buddyOrigin (Buddy's own origin) where Buddy runs."
        ]
      ]])
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("in an environment without Buddy: says so once, naming the environment", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { logged } = yield* served(BuddyLive(fields(fake.home, { environment: "hosted-organization-team" })))
      expect(logged).toStrictEqual([[
        "WARN",
        [
          "buddy: the config's environment is hosted-organization-team, not hosted-personal, so Buddy is absent " +
          "here and every route of the app answers 404 buddy-absent."
        ]
      ]])
    }))

  it.scopedLive("with Buddy here: says nothing, and answers", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { answers, logged } = yield* served(BuddyLive(fields(fake.home)), 1)
      expect(answers[0]).toMatch(/^200 \{"kind":"buddy","state":"waits"/)
      expect(logged).toStrictEqual([])
    }))

  it.scopedLive("checks a hand-built config: a relative home or an unknown field fails the layer, in words", () =>
    Effect.gen(function*() {
      const shape = { ...BuddyConfig.forGateway(fields("/srv/hermes")), hermesHome: "hermes" }
      const relative = yield* Effect.flip(Layer.build(BuddyLive(shape)))
      expect(relative).toMatchObject({ _tag: "ConfigInvalid", reason: "hermes-home" })
      expect(relative.message).toContain("hermesHome must be an absolute path")
      const extra = { ...fields("/srv/hermes"), port: 8080 } as BuddyConfigFields
      expect(yield* Effect.flip(Layer.build(BuddyLive(extra)))).toMatchObject({ reason: "unknown-field" })
    }))

  it.scopedLive("writes the journal through the layer it is given (Journal.layer)", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const lines: Array<string> = []
      const layer = BuddyLive(fields(fake.home), Journal.layer((line) => Effect.sync(() => lines.push(line))))
      const started = yield* Effect.flatMap(SignIn, (signIn) => signIn.start).pipe(Effect.provide(layer))
      expect(started.handle).toMatch(/^[0-9a-f]{32}$/)
      expect(lines).toStrictEqual(["{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}"])
    }))
})

describe("BuddyLiveConfig, the fields from Effect's Config", () => {
  const provider = (env: Record<string, string>) =>
    Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)), { pathDelim: "_" }))

  it.scopedLive("serves from the BUDDY_* variables, and says once when BUDDY_ORIGIN is missing", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const env = {
        BUDDY_LAUNCHPAD_ORIGIN: LAUNCHPAD,
        BUDDY_ENVIRONMENT: "hosted-personal",
        BUDDY_HERMES_HOME: fake.home
      }
      const present = yield* served(
        BuddyLiveConfig().pipe(Layer.provide(provider({ ...env, BUDDY_ORIGIN: "https://buddy.example" }))),
        1
      )
      expect(present.answers[0]).toMatch(/^200 \{"kind":"buddy"/)
      const absent = yield* served(BuddyLiveConfig().pipe(Layer.provide(provider(env))))
      expect(absent.answers).toStrictEqual(Array(3).fill("404 {\"error\":\"buddy-absent\"}"))
      expect(absent.logged.map(([level, message]) => [level, String(message).slice(0, 38)])).toStrictEqual([
        ["WARN", "buddy: the config has no buddyOrigin, "]
      ])
    }))
})
