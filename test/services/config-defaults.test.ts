// BuddyConfig's defaults (C2, C3, C6 "Config"): what a gateway-only config that names nothing holds
// (`forGateway`), and that each piece overrides only itself; and what a Launchpad's config
// (`make`, `layer`) requires and refuses. Pinned here so a changed default fails a test.
import { describe, expect, it } from "@effect/vitest"
import { Cause, Config, ConfigProvider, Duration, Effect, Layer } from "effect"
import { configFrom } from "../../src/http/app.js"
import { BuddyConfig, ConfigInvalid, defaultDeadlines, defaultLimits } from "../../src/services/BuddyConfig.js"

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
      // From code, each optional field may be an explicit undefined, its default (D51).
      const unset = yield* configFrom({
        ...file,
        hermesHome: undefined,
        buddyOrigin: undefined,
        socketGroup: undefined
      })
      expect(unset).toStrictEqual(yield* BuddyConfig.make({ ...file, buddyOrigin: undefined }))
      expect([unset.hermesHome, unset.buddyOrigin]).toStrictEqual([undefined, undefined])
    }))
})

describe("BuddyConfig.make refuses what a Launchpad cannot have meant (D43)", () => {
  const good = { launchpadOrigin: "https://launchpad.example", environment: "hosted-personal" } as const
  /** JavaScript, or an object built elsewhere: what no compiler checked. */
  const unchecked = (fields: unknown) => BuddyConfig.make(fields as Parameters<typeof BuddyConfig.make>[0])
  const reasonOf = (fields: unknown) => Effect.map(Effect.flip(unchecked(fields)), (error) => error.reason)

  it.effect("a relative hermesHome, a field it does not know, and deadlines, limits or fields of no known shape", () =>
    Effect.gen(function*() {
      expect(yield* reasonOf({ ...good, hermesHome: "hermes" })).toBe("hermes-home")
      expect(yield* reasonOf({ ...good, hermesHome: "./srv/hermes" })).toBe("hermes-home")
      expect(yield* reasonOf({ ...good, hermesHome: 7 })).toBe("hermes-home")
      expect((yield* BuddyConfig.make({ ...good, hermesHome: "/srv/hermes" })).hermesHome).toBe("/srv/hermes")
      expect(yield* reasonOf({ ...good, buddyorigin: "https://buddy.example" })).toBe("unknown-field")
      expect(yield* reasonOf({ ...good, socketGroup: "www-data" })).toBe("unknown-field")
      expect(yield* reasonOf({ ...good, deadlines: { contol: Duration.seconds(1) } })).toBe("deadlines")
      expect(yield* reasonOf({ ...good, deadlines: { api: 5000 } })).toBe("deadlines")
      expect(yield* reasonOf({ ...good, limits: { answer: 0 } })).toBe("limits")
      expect(yield* reasonOf({ ...good, limits: { answer: 1.5 } })).toBe("limits")
      expect(yield* reasonOf({ ...good, limits: { body: 10 } })).toBe("limits")
      expect(yield* reasonOf({ environment: "hosted-personal" })).toBe("launchpad-origin")
      expect(yield* reasonOf({ launchpadOrigin: good.launchpadOrigin })).toBe("environment")
      expect(yield* reasonOf(null)).toBe("not-an-object")
      expect(yield* reasonOf("https://launchpad.example")).toBe("not-an-object")
      // What the optional fields may hold: undefined where the type says so, the values they name.
      const given = yield* BuddyConfig.make({
        ...good,
        hermesHome: undefined,
        buddyOrigin: undefined,
        locale: "cs",
        deadlines: { api: Duration.millis(7) },
        limits: { answer: 1 }
      })
      expect([given.locale, Duration.toMillis(given.deadlines.api), given.limits.answer]).toStrictEqual(["cs", 7, 1])
    }))

  // `{ ...defaults, ...fields.deadlines }` would put an undefined over a default and serve with no
  // deadline: an undefined field is its default instead (D51), as `buddyOrigin: undefined` always was,
  // so a Launchpad's `deadlines: { api: cond ? d : undefined }` gets 5 s.
  it.effect("undefined deadlines or limits, and each undefined deadline or limit, are the defaults (D51)", () =>
    Effect.gen(function*() {
      const none = yield* unchecked({ ...good, deadlines: undefined, limits: undefined, locale: undefined })
      expect([none.deadlines, none.limits, none.locale]).toStrictEqual([defaultDeadlines, defaultLimits, "en"])
      const deadlines = { control: Duration.millis(1), api: Duration.millis(2), start: Duration.millis(3) }
      for (const name of ["control", "api", "start"] as const) {
        const config = yield* BuddyConfig.make({ ...good, deadlines: { ...deadlines, [name]: undefined } })
        expect([name, config.deadlines]).toStrictEqual([name, { ...deadlines, [name]: defaultDeadlines[name] }])
      }
      const limits = { identifyLine: 1, ticketLine: 2, answer: 3, requestBody: 4 }
      for (const name of ["identifyLine", "ticketLine", "answer", "requestBody"] as const) {
        const config = yield* BuddyConfig.make({ ...good, limits: { ...limits, [name]: undefined } })
        expect([name, config.limits]).toStrictEqual([name, { ...limits, [name]: defaultLimits[name] }])
      }
      // and so for what uses only the gateway client
      const gateway = BuddyConfig.forGateway({ deadlines: { api: undefined }, limits: { answer: undefined } })
      expect([gateway.deadlines, gateway.limits]).toStrictEqual([defaultDeadlines, defaultLimits])
      // What is not undefined is still checked.
      expect(yield* reasonOf({ ...good, deadlines: null })).toBe("deadlines")
      expect(yield* reasonOf({ ...good, limits: { answer: null } })).toBe("limits")
    }))

  it.effect("ConfigInvalid's message says its reason in words, and no value", () =>
    Effect.gen(function*() {
      const secret = "customer-4711"
      const messageOf = (fields: unknown) => Effect.map(Effect.flip(unchecked(fields)), (error) => error.message)
      const words = {
        "launchpad-origin": yield* messageOf({ ...good, launchpadOrigin: `https://${secret}.example/` }),
        "buddy-origin": yield* messageOf({ ...good, buddyOrigin: `${secret}.example` }),
        "same-origins": yield* messageOf({ ...good, buddyOrigin: good.launchpadOrigin }),
        environment: yield* messageOf({ ...good, environment: secret }),
        locale: yield* messageOf({ ...good, locale: secret }),
        "hermes-home": yield* messageOf({ ...good, hermesHome: secret }),
        deadlines: yield* messageOf({ ...good, deadlines: { contol: secret } }),
        limits: yield* messageOf({ ...good, limits: { answer: secret } }),
        "unknown-field": yield* messageOf({ ...good, buddyorigin: secret }),
        "not-an-object": yield* messageOf(secret)
      }
      expect(words).toStrictEqual({
        "launchpad-origin":
          "buddy's config cannot serve: launchpadOrigin must be the Launchpad's origin as a browser " +
          "sends it: scheme, host and optional port, nothing after (https://launchpad.example).",
        "buddy-origin": "buddy's config cannot serve: buddyOrigin must be Buddy's origin as a browser sends it: " +
          "scheme, host and optional port, nothing after (https://buddy.example).",
        "same-origins":
          "buddy's config cannot serve: launchpadOrigin and buddyOrigin must differ: Buddy's own page may not drive " +
          "his sign-in.",
        environment: "buddy's config cannot serve: environment must be one of hosted-personal, " +
          "hosted-organization-personal, hosted-organization-team, local.",
        locale: "buddy's config cannot serve: locale must be one of cs, en.",
        "hermes-home":
          "buddy's config cannot serve: hermesHome must be an absolute path: a relative one would move with the " +
          "working directory.",
        deadlines: "buddy's config cannot serve: deadlines may name only control, api and start, each a Duration; " +
          "\"contol\" is none of them (did you mean \"control\"?).",
        limits: "buddy's config cannot serve: limits may name only identifyLine, ticketLine, answer and " +
          "requestBody, each a whole number of bytes above 0.",
        "unknown-field": "buddy's config cannot serve: the config has a field buddy does not know; it takes " +
          "hermesHome, launchpadOrigin, buddyOrigin, environment, locale, deadlines, limits; \"buddyorigin\" is none " +
          "of them (did you mean \"buddyOrigin\"?).",
        "not-an-object":
          "buddy's config cannot serve: the config must be an object with launchpadOrigin and environment."
      })
      // What NodeRuntime.runMain prints of it: the words, not "An error has occurred".
      const printed = Cause.pretty(Cause.fail(yield* Effect.flip(unchecked({ ...good, hermesHome: secret }))))
      expect(printed).toContain("ConfigInvalid: buddy's config cannot serve: hermesHome must be an absolute path")
      expect(printed).not.toContain(secret)
    }))
})

describe("a key buddy does not know is named with the known ones near it (D50)", () => {
  const good = { launchpadOrigin: "https://launchpad.example", environment: "hosted-personal" } as const
  const invalid = (fields: unknown) => Effect.flip(BuddyConfig.make(fields as Parameters<typeof BuddyConfig.make>[0]))

  it.effect("at the top, in deadlines and in limits, with every near one, or none", () =>
    Effect.gen(function*() {
      const seen = (error: ConfigInvalid) => [error.reason, error.unknownKey, error.nearest]
      expect(seen(yield* invalid({ ...good, buddyorigin: "https://buddy.example" }))).toStrictEqual([
        "unknown-field",
        "buddyorigin",
        ["buddyOrigin"]
      ])
      // A misspelt required field is named as misspelt, not as missing.
      expect(seen(yield* invalid({ launchpadorigin: good.launchpadOrigin, environment: "local" }))).toStrictEqual([
        "unknown-field",
        "launchpadorigin",
        ["launchpadOrigin"]
      ])
      expect(seen(yield* invalid({ ...good, deadlines: { contol: Duration.seconds(1) } }))).toStrictEqual([
        "deadlines",
        "contol",
        ["control"]
      ])
      expect(seen(yield* invalid({ ...good, limits: { answers: 10 } }))).toStrictEqual(["limits", "answers", [
        "answer"
      ]])
      expect(seen(yield* invalid({ ...good, socketGroup: "www-data" }))).toStrictEqual([
        "unknown-field",
        "socketGroup",
        []
      ])
      // A wrong value of a known field names no key.
      expect(seen(yield* invalid({ ...good, limits: { answer: 0 } }))).toStrictEqual(["limits", undefined, undefined])
      expect((yield* invalid({ ...good, socketGroup: "www-data" })).message).toBe(
        "buddy's config cannot serve: the config has a field buddy does not know; it takes hermesHome, " +
          "launchpadOrigin, buddyOrigin, environment, locale, deadlines, limits; \"socketGroup\" is none of them."
      )
    }))

  it.effect("the key said bounded to 40 characters, quoted, its controls escaped", () =>
    Effect.gen(function*() {
      const key = `a"\\\n\u001b\u007f\u2028${"x".repeat(60)}`
      const message = (yield* invalid({ ...good, [key]: 1 })).message
      expect(message).toContain(String.raw`; "a\"\\\u000a\u001b\u007f\u2028` + `${"x".repeat(33)}"… is none of them.`)
      expect((yield* invalid({ ...good, [key]: 1 })).unknownKey).toBe(key)
      expect((yield* invalid({ ...good, ["y".repeat(40)]: 1 })).message).toContain(`"${"y".repeat(40)}" is none`)
    }))

  it("a ConfigInvalid a host makes itself with a key and no near ones names the key alone", () => {
    expect(new ConfigInvalid({ reason: "unknown-field", unknownKey: "zz" }).message).toMatch(
      /; "zz" is none of them\.$/
    )
  })

  it.effect("several near ones are each named", () =>
    Effect.gen(function*() {
      expect((yield* invalid({ ...good, l: 1 })).message).toContain(
        `; "l" is none of them (did you mean "launchpadOrigin" or "locale" or "limits"?).`
      )
    }))
})

describe("BuddyConfig.layerConfig, the fields from Effect's Config", () => {
  const fromEnv = (env: Record<string, string>) =>
    Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)), { pathDelim: "_" }))
  const read = (env: Record<string, string>) =>
    Effect.provide(BuddyConfig, BuddyConfig.layerConfig().pipe(Layer.provide(fromEnv(env))))

  it.effect("reads BUDDY_LAUNCHPAD_ORIGIN, BUDDY_ORIGIN, BUDDY_ENVIRONMENT, BUDDY_LOCALE and BUDDY_HERMES_HOME", () =>
    Effect.gen(function*() {
      const config = yield* read({
        BUDDY_LAUNCHPAD_ORIGIN: "https://launchpad.example",
        BUDDY_ORIGIN: "https://buddy.example",
        BUDDY_ENVIRONMENT: "hosted-personal",
        BUDDY_LOCALE: "cs",
        BUDDY_HERMES_HOME: "/srv/hermes"
      })
      expect(config).toStrictEqual({
        hermesHome: "/srv/hermes",
        launchpadOrigin: "https://launchpad.example",
        buddyOrigin: "https://buddy.example",
        environment: "hosted-personal",
        locale: "cs",
        deadlines: defaultDeadlines,
        limits: defaultLimits
      })
      const least = yield* read({ BUDDY_LAUNCHPAD_ORIGIN: "https://launchpad.example", BUDDY_ENVIRONMENT: "local" })
      expect([least.hermesHome, least.buddyOrigin, least.locale]).toStrictEqual([undefined, undefined, "en"])
    }))

  it.effect("a missing field is Effect's ConfigError naming where it looked; a wrong one is ConfigInvalid", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(read({ BUDDY_ENVIRONMENT: "local" }))
      expect(missing._tag).toBe("ConfigError")
      expect(String(missing)).toContain("BUDDY.LAUNCHPAD_ORIGIN")
      const wrong = yield* Effect.flip(
        read({
          BUDDY_LAUNCHPAD_ORIGIN: "https://launchpad.example",
          BUDDY_ENVIRONMENT: "local",
          BUDDY_HERMES_HOME: "h"
        })
      )
      expect(wrong).toMatchObject({ _tag: "ConfigInvalid", reason: "hermes-home" })
      const custom = yield* Effect.provide(
        BuddyConfig,
        BuddyConfig.layerConfig(Config.all({
          launchpadOrigin: Config.string("LP"),
          environment: Config.succeed("hosted-organization-team")
        })).pipe(Layer.provide(fromEnv({ LP: "https://lp.example" })))
      )
      expect([custom.launchpadOrigin, custom.environment]).toStrictEqual([
        "https://lp.example",
        "hosted-organization-team"
      ])
    }))
})
