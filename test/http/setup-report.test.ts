// C6 "Said on the server" (D50): what the Launchpad's own setup causes is said on its logger once
// per cause, in words of its own, while the answers stay C6's byte for byte and Hermes is never
// asked. Through BuddyLive and the web handler, as a Launchpad meets them, on the fake gateway.
import * as HttpApp from "@effect/platform/HttpApp"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { promises as fsp } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyHttpApp } from "../../src/http/app.js"
import { makeBuddyWebHandler } from "../../src/http/hosts.js"
import { BuddyLive, type BuddyServices, BuddyServicesLive } from "../../src/http/live.js"
import { BuddyConfig, type BuddyConfigFields, ConfigInvalid } from "../../src/services/BuddyConfig.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { BuddyServicesLive as InternalServices } from "../../src/services/layers.js"
import { variantLimit } from "../../src/services/SetupReport.js"
import { testDeadlines } from "../support/buddy.js"
import { BUDDY, LAUNCHPAD } from "./support/server.js"

const fields = (home: string, more: Partial<BuddyConfigFields> = {}): BuddyConfigFields => ({
  hermesHome: home,
  launchpadOrigin: LAUNCHPAD,
  buddyOrigin: BUDDY,
  environment: "hosted-personal",
  deadlines: testDeadlines,
  ...more
})

const START = "/api/buddy/sign-in/start"
const denied = "403 {\"error\":\"denied\",\"reason\":\"origin-mismatch\"}"

/** The app on `layer` as a web handler, Effect's logger captured as level and message. */
const served = (layer: Layer.Layer<BuddyServices | BuddyConfig, unknown>) =>
  Effect.gen(function*() {
    const logged: Array<readonly [string, string]> = []
    const capture = Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ logLevel, message }) => logged.push([logLevel.label, [message].flat().join(" ")]))
    )
    const { dispose, handler } = HttpApp.toWebHandlerLayer(BuddyHttpApp, Layer.provideMerge(layer, capture))
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    const ask = (method: string, target: string, headers: Record<string, string> = {}) =>
      Effect.promise(async () => {
        const response = await handler(
          new Request(`${LAUNCHPAD}${target}`, {
            method,
            headers: method === "POST" ? { "content-type": "application/json", ...headers } : headers,
            ...(method === "POST" ? { body: "{}" } : {})
          })
        )
        return `${response.status} ${await response.text()}`
      })
    const post = (headers: Record<string, string>) => ask("POST", START, headers)
    return { ask, logged, post, words: () => logged.map(([level, message]) => `${level} ${message}`) }
  })

/** A private temporary directory for the test's scope. */
const scratch = Effect.acquireRelease(
  Effect.promise(() => fsp.mkdtemp(path.join(os.tmpdir(), "buddy-setup-"))),
  (dir) => Effect.promise(() => fsp.rm(dir, { recursive: true, force: true }))
)

const refused = "WARN buddy: refused a POST (403 origin-mismatch):"

describe("a same-origin refusal is said once per cause, and answered as C6 says", () => {
  it.scopedLive("each cause in its own words, each once, the answer the same, Hermes never asked", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { logged, post, words } = yield* served(BuddyLive(fields(fake.home), JournalCapture))
      const causes: ReadonlyArray<Record<string, string>> = [
        { origin: LAUNCHPAD },
        { origin: LAUNCHPAD, "sec-fetch-site": "cross-site" },
        { origin: LAUNCHPAD, "sec-fetch-site": "same-site" },
        { origin: LAUNCHPAD, "sec-fetch-site": "none" },
        { origin: LAUNCHPAD, "sec-fetch-site": "Same-Origin" },
        { "sec-fetch-site": "same-origin" },
        { origin: BUDDY, "sec-fetch-site": "same-origin" },
        { origin: "https://launchpad.example.org", "sec-fetch-site": "same-origin" }
      ]
      for (const headers of causes) {
        expect(yield* post(headers)).toBe(denied)
        expect(yield* post(headers)).toBe(denied)
      }
      // A value no browser sends is one cause with another such value.
      expect(yield* post({ origin: LAUNCHPAD, "sec-fetch-site": "same_origin" })).toBe(denied)
      expect(fake.received).toStrictEqual([])
      expect(logged.map(([level]) => level)).toStrictEqual(Array(8).fill("WARN"))
      expect(words()).toStrictEqual([
        `${refused} it came without Sec-Fetch-Site. A browser sends it only to a trustworthy origin (https, or ` +
        "http on localhost, 127.0.0.1 or [::1]); a proxy in front of the app may drop it: make it pass " +
        "Sec-Fetch-Site and Origin on.",
        `${refused} its Sec-Fetch-Site is cross-site, not same-origin: only a page on the Launchpad's own origin ` +
        `"${LAUNCHPAD}" may post to the app, and the app must be served on that origin too (the Launchpad's ` +
        "server, or a proxy under its host).",
        `${refused} its Sec-Fetch-Site is same-site, not same-origin: only a page on the Launchpad's own origin ` +
        `"${LAUNCHPAD}" may post to the app, and the app must be served on that origin too (the Launchpad's ` +
        "server, or a proxy under its host).",
        `${refused} its Sec-Fetch-Site is none, not same-origin: only a page on the Launchpad's own origin ` +
        `"${LAUNCHPAD}" may post to the app, and the app must be served on that origin too (the Launchpad's ` +
        "server, or a proxy under its host).",
        `${refused} its Sec-Fetch-Site is a value no browser sends, not same-origin: only a page on the ` +
        `Launchpad's own origin "${LAUNCHPAD}" may post to the app, and the app must be served on that origin ` +
        "too (the Launchpad's server, or a proxy under its host).",
        `${refused} it came without Origin, which a browser sends with every POST from a page; a proxy in front ` +
        `of the app may drop it, and a client that is no browser must send "${LAUNCHPAD}" itself.`,
        `${refused} it came from Buddy's own origin "${BUDDY}": Buddy's own page may not drive his sign-in; post ` +
        `from the Launchpad's page at "${LAUNCHPAD}".`,
        `${refused} its Origin is "https://launchpad.example.org", but launchpadOrigin is "${LAUNCHPAD}"; set ` +
        `launchpadOrigin to the origin the Launchpad's page is opened at, or open it at "${LAUNCHPAD}".`
      ])
    }))

  it.scopedLive("every POST route is the same rule: poll, cancel and sign-out say a cause start said no more", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { ask, words } = yield* served(BuddyLive(fields(fake.home), JournalCapture))
      for (const route of ["/api/buddy/sign-in/poll", "/api/buddy/sign-in/cancel", "/api/buddy/sign-out", START]) {
        expect((yield* ask("POST", route, { origin: LAUNCHPAD })).slice(0, 3)).toBe("403")
      }
      expect(words()).toHaveLength(1)
      expect(fake.received).toStrictEqual([])
      // The Launchpad's own page is admitted, and says nothing.
      expect(yield* ask("POST", START, { origin: LAUNCHPAD, "sec-fetch-site": "same-origin" })).toMatch(/^200 /)
      expect(words()).toHaveLength(1)
    }))

  it.scopedLive("localhost where launchpadOrigin says 127.0.0.1: a hint that they are different origins", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const launchpadOrigin = "http://127.0.0.1:4105"
      const { post, words } = yield* served(BuddyLive(fields(fake.home, { launchpadOrigin }), JournalCapture))
      expect(yield* post({ origin: "http://localhost:4105", "sec-fetch-site": "same-origin" })).toBe(denied)
      expect(yield* post({ origin: "http://[::1]:4105", "sec-fetch-site": "same-origin" })).toBe(denied)
      // Another port is no alias.
      expect(yield* post({ origin: "http://localhost:4106", "sec-fetch-site": "same-origin" })).toBe(denied)
      // Loopback over http sends Sec-Fetch-Site: its absence is a proxy's doing.
      expect(yield* post({ origin: launchpadOrigin })).toBe(denied)
      expect(words()).toStrictEqual([
        `${refused} its Origin is "http://localhost:4105", but launchpadOrigin is "${launchpadOrigin}"; localhost, ` +
        `127.0.0.1 and [::1] are different origins to a browser: open the Launchpad at "${launchpadOrigin}", or ` +
        "set launchpadOrigin to \"http://localhost:4105\".",
        `${refused} its Origin is "http://[::1]:4105", but launchpadOrigin is "${launchpadOrigin}"; localhost, ` +
        `127.0.0.1 and [::1] are different origins to a browser: open the Launchpad at "${launchpadOrigin}", or ` +
        "set launchpadOrigin to \"http://[::1]:4105\".",
        `${refused} its Origin is "http://localhost:4106", but launchpadOrigin is "${launchpadOrigin}"; set ` +
        `launchpadOrigin to the origin the Launchpad's page is opened at, or open it at "${launchpadOrigin}".`,
        `${refused} it came without Sec-Fetch-Site. A browser sends it only to a trustworthy origin (https, or ` +
        "http on localhost, 127.0.0.1 or [::1]); a proxy in front of the app may drop it: make it pass " +
        "Sec-Fetch-Site and Origin on."
      ])
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("a Launchpad on plain http under a LAN name: why no browser sends Sec-Fetch-Site there", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const launchpadOrigin = "http://launchpad.lan:4105"
      const { post, words } = yield* served(BuddyLive(fields(fake.home, { launchpadOrigin }), JournalCapture))
      expect(yield* post({ origin: launchpadOrigin })).toBe(denied)
      expect(words()).toStrictEqual([
        `${refused} it came without Sec-Fetch-Site. A browser sends it only to a trustworthy origin (https, or ` +
        `http on localhost, 127.0.0.1 or [::1]); launchpadOrigin "${launchpadOrigin}" is plain http on a host ` +
        "that is not loopback, so no browser sends it there: serve the Launchpad over https."
      ])
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("other origins: each once, bounded and escaped, and after the limit one line says no more", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { post, words } = yield* served(BuddyLive(fields(fake.home), JournalCapture))
      const long = `https://${"a".repeat(200)}.example`
      expect(yield* post({ origin: `https://tab\there.example`, "sec-fetch-site": "same-origin" })).toBe(denied)
      expect(yield* post({ origin: long, "sec-fetch-site": "same-origin" })).toBe(denied)
      for (let other = 0; other < variantLimit + 3; other++) {
        expect(yield* post({ origin: `https://other-${other}.example`, "sec-fetch-site": "same-origin" })).toBe(denied)
      }
      const said = words()
      expect(said[0]).toContain("its Origin is \"https://tab\\u0009here.example\", but")
      expect(said[1]).toContain(`its Origin is "${long.slice(0, 100)}"…, but launchpadOrigin`)
      expect(said).toHaveLength(variantLimit + 1)
      expect(said[variantLimit - 1]).toContain(`"https://other-${variantLimit - 3}.example"`)
      expect(said[variantLimit]).toBe(
        "WARN buddy: more setup refusals of the kind origin-other were met; no more of them are said."
      )
      // The other kinds are still said.
      expect(yield* post({ "sec-fetch-site": "same-origin" })).toBe(denied)
      expect(words()).toHaveLength(variantLimit + 2)
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("once per layer: a second BuddyLive says its causes again, and buddy's internal layers say nothing", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const first = yield* served(BuddyLive(fields(fake.home), JournalCapture))
      const second = yield* served(BuddyLive(fields(fake.home), JournalCapture))
      // BuddyServicesLive, exported, as a Launchpad composes it.
      const config = BuddyConfig.layer(fields(fake.home))
      const composed = yield* served(
        BuddyServicesLive.pipe(Layer.provideMerge(JournalCapture), Layer.provideMerge(config))
      )
      // The graph the CLI runs on, whose terminal has its own words.
      const internal = yield* served(
        InternalServices.pipe(Layer.provideMerge(JournalCapture), Layer.provideMerge(config))
      )
      for (const app of [first, second, composed, internal]) {
        expect(yield* app.post({ origin: LAUNCHPAD })).toBe(denied)
        expect(yield* app.post({ origin: LAUNCHPAD })).toBe(denied)
      }
      expect([first, second, composed, internal].map((app) => app.words().length)).toStrictEqual([1, 1, 1, 0])
      expect(fake.received).toStrictEqual([])
    }))
})

describe("a Hermes home that does not exist or is no directory is said, apart from a stopped gateway", () => {
  const missingWords = (from: string) =>
    `WARN buddy: ${from} does not exist, so every read answers unknown not-running and every sign-in 503 ` +
    "not-running, exactly as if the gateway were stopped, though no gateway can run there; check hermesHome for " +
    "a typo (Hermes makes its home when it first runs)."
  const fromConfig = "the Hermes home the config names (hermesHome)"

  it.scopedLive("missing: said when the layer is built, again by the first read, and the wire keeps not-running", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const home = path.join(dir, "nope")
      const { ask, post, words } = yield* served(BuddyLive(fields(home), JournalCapture))
      // The web handler builds its layers at the first request: the build's line comes first.
      expect(words()).toStrictEqual([])
      const status = "200 {\"kind\":\"buddy\",\"state\":\"unknown\",\"reason\":\"not-running\",\"signIn\":{\"state\":" +
        "\"none\"},\"locale\":\"en\"}"
      expect(yield* ask("GET", "/api/buddy")).toBe(status)
      expect(yield* ask("GET", "/api/buddy")).toBe(status)
      expect(yield* post({ origin: LAUNCHPAD, "sec-fetch-site": "same-origin" })).toBe(
        "503 {\"error\":\"buddy-unavailable\",\"reason\":\"not-running\"}"
      )
      expect(words()).toStrictEqual([
        missingWords(fromConfig),
        "WARN buddy: a read found that the Hermes home the config names (hermesHome) does not exist: its answer " +
        "(not-running) is the home, not a stopped gateway."
      ])
      expect(words().join("\n")).not.toContain(dir)
    }))

  it.scopedLive("no directory: a file as the home, or a file on its way, is unsafe-home, said so", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const file = path.join(dir, "file")
      yield* Effect.promise(() => fsp.writeFile(file, ""))
      const notDirectory = "WARN buddy: the Hermes home the config names (hermesHome) is not a directory, so every " +
        "read answers unknown unsafe-home and every sign-in 503 unsafe-home; hermesHome must name Hermes's home " +
        "directory."
      for (const home of [file, path.join(file, "home")]) {
        const { ask, words } = yield* served(BuddyLive(fields(home), JournalCapture))
        expect(yield* ask("GET", "/api/buddy")).toMatch(
          /^200 \{"kind":"buddy","state":"unknown","reason":"unsafe-home"/
        )
        expect(yield* ask("GET", "/api/buddy")).toMatch(/"reason":"unsafe-home"/)
        expect(words()).toStrictEqual([
          notDirectory,
          "WARN buddy: a read found that the Hermes home the config names (hermesHome) is not a directory: its " +
          "answer (unsafe-home) is the home, not a stopped gateway."
        ])
      }
    }))

  it.scopedLive("HERMES_HOME or the default: said as where the home came from, naming no path", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const home = path.join(dir, "nope")
      const environment = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["HERMES_HOME", home]])))
      const { ask, words } = yield* served(
        BuddyLive({ ...fields(home), hermesHome: undefined }, JournalCapture).pipe(Layer.provide(environment))
      )
      expect(yield* ask("GET", "/api/buddy")).toMatch(/"reason":"not-running"/)
      expect(words()).toStrictEqual([
        missingWords("the Hermes home (HERMES_HOME, else ~/.hermes)"),
        "WARN buddy: a read found that the Hermes home (HERMES_HOME, else ~/.hermes) does not exist: its answer " +
        "(not-running) is the home, not a stopped gateway."
      ])
    }))

  it.scopedLive("a home whose path fails otherwise (a symlink loop) is no typo: the wire says unsafe-home, nothing is said", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const loop = path.join(dir, "loop")
      yield* Effect.promise(() => fsp.symlink(loop, loop))
      const { ask, words } = yield* served(BuddyLive(fields(loop), JournalCapture))
      expect(yield* ask("GET", "/api/buddy")).toMatch(/^200 \{"kind":"buddy","state":"unknown","reason":"unsafe-home"/)
      expect(words()).toStrictEqual([])
    }))

  it.scopedLive("a home missing at the first read and a file at a later one: each finding said once", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const home = path.join(dir, "later")
      const { ask, words } = yield* served(BuddyLive(fields(home), JournalCapture))
      expect(yield* ask("GET", "/api/buddy")).toMatch(/"reason":"not-running"/)
      yield* Effect.promise(() => fsp.writeFile(home, ""))
      expect(yield* ask("GET", "/api/buddy")).toMatch(/"reason":"unsafe-home"/)
      expect(yield* ask("GET", "/api/buddy")).toMatch(/"reason":"unsafe-home"/)
      expect(words().slice(1)).toStrictEqual([
        "WARN buddy: a read found that the Hermes home the config names (hermesHome) does not exist: its answer " +
        "(not-running) is the home, not a stopped gateway.",
        "WARN buddy: a read found that the Hermes home the config names (hermesHome) is not a directory: its " +
        "answer (unsafe-home) is the home, not a stopped gateway."
      ])
    }))

  it.scopedLive("a home that is there with no gateway running, or a gateway stopped, says nothing of the home", () =>
    Effect.gen(function*() {
      const empty = yield* scratch
      const fake = yield* makeFakeGateway()
      for (const home of [empty, fake.home]) {
        const { ask, words } = yield* served(BuddyLive(fields(home), JournalCapture))
        fake.stop()
        expect(yield* ask("GET", "/api/buddy")).toMatch(/"reason":"not-running"/)
        expect(words()).toStrictEqual([])
      }
    }))
})

describe("makeBuddyWebHandler refuses fields that cannot serve when it is made", () => {
  it("throws ConfigInvalid at once, naming the field and the nearest known one; good fields make a handler", () => {
    const good = fields("/srv/hermes")
    const misspelt = { ...good, buddyorigin: BUDDY } as BuddyConfigFields
    const refusal = (given: BuddyConfigFields) => {
      const made = Effect.runSync(Effect.either(Effect.try({
        try: () => makeBuddyWebHandler(given),
        catch: (error) => error
      })))
      return made._tag === "Left" ? made.left : undefined
    }
    const thrown = refusal(misspelt)
    expect(thrown).toBeInstanceOf(ConfigInvalid)
    expect(thrown).toMatchObject({ reason: "unknown-field", unknownKey: "buddyorigin", nearest: ["buddyOrigin"] })
    expect(String((thrown as ConfigInvalid).message)).toContain("(did you mean \"buddyOrigin\"?)")
    expect(refusal({ ...good, launchpadOrigin: "launchpad.example" })).toMatchObject({ reason: "launchpad-origin" })
    expect(refusal({ ...good, buddyOrigin: LAUNCHPAD })).toMatchObject({ reason: "same-origins" })
    expect(refusal(good)).toBeUndefined()
  })
})
