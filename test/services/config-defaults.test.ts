// BuddyConfig.make's defaults (C2, C3, C6 "Config"): what a config that names nothing holds, and
// that each piece overrides only itself. Pinned here so a changed default fails a test.
import { describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { BuddyConfig, defaultDeadlines, defaultLimits } from "../../src/services/BuddyConfig.js"

describe("BuddyConfig.make", () => {
  it("a config that names nothing is local, English, the loopback Launchpad, no home or Buddy origin", () => {
    const config = BuddyConfig.make({})
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
    const { deadlines } = BuddyConfig.make({})
    expect(Duration.toMillis(deadlines.control)).toBe(5_000)
    expect(Duration.toMillis(deadlines.api)).toBe(5_000)
    expect(Duration.toMillis(deadlines.start)).toBe(15_000)
    expect(deadlines).toStrictEqual(defaultDeadlines)
  })

  it("the default limits are 512 KiB identify, 64 KiB ticket, 256 KiB answer and 16 KiB request body", () => {
    const { limits } = BuddyConfig.make({})
    expect(limits).toStrictEqual({
      identifyLine: 524_288,
      ticketLine: 65_536,
      answer: 262_144,
      requestBody: 16_384
    })
    expect(limits).toStrictEqual(defaultLimits)
  })

  it("every field given is kept as given", () => {
    const config = BuddyConfig.make({
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
    const config = BuddyConfig.make({ deadlines: { api: Duration.millis(7) }, limits: { answer: 9 } })
    expect(Duration.toMillis(config.deadlines.api)).toBe(7)
    expect(Duration.toMillis(config.deadlines.control)).toBe(5_000)
    expect(Duration.toMillis(config.deadlines.start)).toBe(15_000)
    expect(config.limits).toStrictEqual({ identifyLine: 524_288, ticketLine: 65_536, answer: 9, requestBody: 16_384 })
  })
})
