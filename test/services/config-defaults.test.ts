// BuddyConfig's defaults (C2, C3, C6 "Config"): what a gateway-only config that names nothing holds
// (`forGateway`), and that each piece overrides only itself; and what a Launchpad's config
// (`make`, `layer`) requires and refuses. Pinned here so a changed default fails a test.
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { configFrom } from "../../src/http/app.js"
import { BuddyConfig, defaultDeadlines, defaultLimits } from "../../src/services/BuddyConfig.js"

describe("BuddyConfig.make", () => {
  it("a config that names nothing is local, English, the loopback Launchpad, no home or Buddy origin", () => {
    const config = BuddyConfig.forGateway({})
    expect({
      hermesHome: config.hermesHome,
      launchpadOrigin: config.launchpadOrigin,
      buddyOrigin: config.buddyOrigin,
      environment: config.environment,
      locale: config.locale
    }).toStrictEqual({
      hermesHome: undefined,
      launchpadOrigin: "http://127.0.0.1",
      buddyOrigin: undefined,
      environment: "local",
      locale: "en"
    })
  })

  it("the default deadlines are 5 s per control exchange, 5 s per API call and 15 s for the start", () => {
    const { deadlines } = BuddyConfig.forGateway({})
    expect(Duration.toMillis(deadlines.control)).toBe(5_000)
    expect(Duration.toMillis(deadlines.api)).toBe(5_000)
    expect(Duration.toMillis(deadlines.start)).toBe(15_000)
    expect(deadlines).toStrictEqual(defaultDeadlines)
  })

  it("the default limits are 512 KiB identify, 64 KiB ticket, 256 KiB answer and 16 KiB request body", () => {
    const { limits } = BuddyConfig.forGateway({})
    expect(limits).toStrictEqual({
      identifyLine: 524_288,
      ticketLine: 65_536,
      answer: 262_144,
      requestBody: 16_384
    })
    expect(limits).toStrictEqual(defaultLimits)
  })

  it("every field given is kept as given", () => {
    const config = BuddyConfig.forGateway({
      hermesHome: "/srv/hermes",
      launchpadOrigin: "https://launchpad.example",
      buddyOrigin: "https://buddy.example",
      environment: "hosted-personal",
      locale: "cs"
    })
    expect(config.hermesHome).toBe("/srv/hermes")
    expect(config.launchpadOrigin).toBe("https://launchpad.example")
    expect(config.buddyOrigin).toBe("https://buddy.example")
    expect(config.environment).toBe("hosted-personal")
    expect(config.locale).toBe("cs")
  })

  it("one deadline or one limit given overrides only itself", () => {
    const config = BuddyConfig.forGateway({ deadlines: { api: Duration.millis(7) }, limits: { answer: 9 } })
    expect(Duration.toMillis(config.deadlines.api)).toBe(7)
    expect(Duration.toMillis(config.deadlines.control)).toBe(5_000)
    expect(Duration.toMillis(config.deadlines.start)).toBe(15_000)
    expect(config.limits).toStrictEqual({ identifyLine: 524_288, ticketLine: 65_536, answer: 9, requestBody: 16_384 })
  })
})

describe("BuddyConfig.make, a Launchpad's config: checked, never defaulted to an absent Buddy (D31)", () => {
  const good = { launchpadOrigin: "https://launchpad.example", environment: "hosted-personal" } as const

  it.effect("the origins and environment it is given, with the contract's defaults for the rest", () =>
    Effect.gen(function*() {
      const config = yield* BuddyConfig.make({ ...good, buddyOrigin: "https://buddy.example" })
      expect(config).toStrictEqual({
        hermesHome: undefined,
        launchpadOrigin: "https://launchpad.example",
        buddyOrigin: "https://buddy.example",
        environment: "hosted-personal",
        locale: "en",
        deadlines: defaultDeadlines,
        limits: defaultLimits
      })
      const layered = yield* Effect.provide(BuddyConfig, BuddyConfig.layer({ ...good, locale: "cs" }))
      expect(layered.locale).toBe("cs")
    }))

  it.effect("each field that cannot serve is its own ConfigInvalid reason, with no value in it", () =>
    Effect.gen(function*() {
      const reasonOf = (fields: Parameters<typeof BuddyConfig.make>[0]) =>
        Effect.map(Effect.flip(BuddyConfig.make(fields)), (error) => [error._tag, error.reason, Object.keys(error)])
      expect(yield* reasonOf({ ...good, launchpadOrigin: "launchpad.example" })).toStrictEqual([
        "ConfigInvalid",
        "launchpad-origin",
        ["reason", "_tag"]
      ])
      expect((yield* reasonOf({ ...good, launchpadOrigin: "https://launchpad.example/" }))[1]).toBe("launchpad-origin")
      expect((yield* reasonOf({ ...good, buddyOrigin: "https://buddy.example/app" }))[1]).toBe("buddy-origin")
      expect((yield* reasonOf({ ...good, buddyOrigin: good.launchpadOrigin }))[1]).toBe("same-origins")
      const unchecked = { ...good, environment: "workstation" } as unknown as Parameters<typeof BuddyConfig.make>[0]
      expect((yield* reasonOf(unchecked))[1]).toBe("environment")
      const locale = { ...good, locale: "de" } as unknown as Parameters<typeof BuddyConfig.make>[0]
      expect((yield* reasonOf(locale))[1]).toBe("locale")
      expect(yield* Effect.flip(Layer.build(BuddyConfig.layer({ ...good, launchpadOrigin: "x" })).pipe(Effect.scoped)))
        .toMatchObject({ _tag: "ConfigInvalid", reason: "launchpad-origin" })
    }))
})

describe("configFrom, a config file's fields as the app's config", () => {
  it.effect("is BuddyConfig.make's check and answer: the file's fields, the defaults for the rest", () =>
    Effect.gen(function*() {
      const file = {
        launchpadOrigin: "https://launchpad.example",
        buddyOrigin: "https://buddy.example",
        environment: "hosted-personal",
        locale: "cs"
      } as const
      const config = yield* configFrom(file)
      expect(config).toStrictEqual(yield* BuddyConfig.make(file))
      expect(config.launchpadOrigin).toBe("https://launchpad.example")
      const refused = yield* Effect.flip(configFrom({ ...file, buddyOrigin: file.launchpadOrigin }))
      expect(refused.reason).toBe("same-origins")
    }))
})
