// Fuzzing Hermes's answers (C3) through the real HermesApiLive and its real node:http exchange,
// against an in-test loopback listener that answers each request with the generated status and
// bytes (and, for the framing itself, a raw TCP listener whose bytes are the whole answer). Only the
// identify and the ticket are given (they have their own fuzzing in control.test.ts). Every answer
// is a value or one closed reason, and each value is exactly what an independent reading of C3
// makes of the status and body: the code, the page and the session id only in their exact shapes.
import { Arbitrary, Duration, Effect, Exit, FastCheck, Layer, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  CancelConfirmed,
  CancelNotFound,
  PollAnswer,
  ProviderList,
  SignOutAnswer,
  StartAnswer
} from "../../src/schema/hermes.js"
import { parseApiOrigin } from "../../src/services/api-origin.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HermesApi, HermesApiLive } from "../../src/services/HermesApi.js"
import { type Endpoint, Ticket } from "../../src/services/Ticket.js"
import { expectClosed, failureOf } from "./support/closed.js"
import { arbitraryBytes, type FieldMisses, jsonBytes, stringNearMiss, valueNearMiss } from "./support/mutate.js"
import {
  devicePage,
  hasExactly,
  isDeviceCode,
  isObject,
  isSessionId,
  type Json,
  parseJson,
  strictUtf8
} from "./support/oracles.js"
import { type HttpPeer, httpPeer, type RawPeer, rawPeer } from "./support/peers.js"
import { fuzzRuns, params, tally, timeoutFor } from "./support/runs.js"

const fc = FastCheck

const connect = async (origin: string) => {
  const parsed = parseApiOrigin(origin)
  if (Option.isNone(parsed)) throw new Error(`not a loopback origin: ${origin}`)
  const endpoint: Endpoint = {
    instanceId: "feed0002000000000000000000000000",
    origin: parsed.value,
    profileId: "default",
    state: "ready",
    contract: true,
    located: { home: "/home/fuzz/.hermes", socket: "/home/fuzz/.hermes/gateway.sock" }
  }
  const tickets = Layer.succeed(
    Ticket,
    Ticket.of({
      identify: Effect.succeed(endpoint),
      recent: Effect.succeedNone,
      mint: () => Effect.succeed(Redacted.make("fuzz-ticket")),
      forget: Effect.void
    })
  )
  const config = BuddyConfig.gatewayLayer({ deadlines: { api: Duration.seconds(2), start: Duration.seconds(2) } })
  return Effect.runPromise(Effect.provide(HermesApi, HermesApiLive.pipe(Layer.provide(Layer.merge(tickets, config)))))
}

let peer: HttpPeer
let raw: RawPeer
let api: typeof HermesApi.Service
let rawApi: typeof HermesApi.Service

beforeAll(async () => {
  peer = await httpPeer()
  raw = await rawPeer()
  api = await connect(peer.origin)
  rawApi = await connect(raw.origin)
})

afterAll(async () => {
  await peer.close()
  await raw.close()
})

type Operation = "providerCard" | "start" | "poll" | "cancel" | "signOut"

const jsonOf = (body: Uint8Array): Json | undefined => {
  const text = strictUtf8(body)
  return text === undefined ? undefined : parseJson(text)?.value
}

/** JSON with its members in name order, so two values compare as text. */
const canonical = (value: Json): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : isObject(value)
    ? `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key] as Json)}`).join(",")}}`
    : JSON.stringify(value)

const tagged = (value: Json) => `value ${canonical(value)}`

/** An outcome without its data, for the tally. */
const kindOf = (outcome: string) =>
  outcome.startsWith("value") ? (/"_tag":"\w+"|"loggedIn":\w+/.exec(outcome)?.[0] ?? outcome) : outcome

/** One operation, its outcome as a line of text: the value, or the closed reason. */
const outcomeOf = async (service: typeof HermesApi.Service, operation: Operation): Promise<string> => {
  const effect: Effect.Effect<{ readonly value: unknown }, unknown> = operation === "poll"
    ? service.poll("fuzz-session")
    : operation === "cancel"
    ? service.cancel("fuzz-session")
    : service[operation]
  const exit = await Effect.runPromiseExit(
    effect.pipe(Effect.timeoutFail({ duration: "3 seconds", onTimeout: () => new Error("hung") }))
  )
  expectClosed(exit, ["CallError", "GatewayError"])
  return Exit.isSuccess(exit) ? tagged(JSON.parse(JSON.stringify(exit.value.value)) as Json) : failureOf(exit).reason
}

/** What C3 makes of `status` and `body` for `operation` (with one resend after a 401). */
const expectedOf = (operation: Operation, status: number, body: Uint8Array): string => {
  const json = jsonOf(body)
  if (status === 401) return "refused"
  if (status === 503 && isObject(json) && json["error"] === "gateway_not_ready") return "not-ready"
  switch (operation) {
    case "providerCard": {
      if (status !== 200) return "http-error"
      const providers = isObject(json) ? json["providers"] : undefined
      if (!Array.isArray(providers)) return "malformed"
      const cards = providers.filter((entry: unknown) =>
        isObject(entry) && entry["id"] === "openai-codex" && isObject(entry["status"])
      )
      const card: unknown = cards.length === 1 ? cards[0] : undefined
      const loggedIn = isObject(card) && isObject(card["status"]) ? card["status"]["logged_in"] : undefined
      return typeof loggedIn === "boolean" ? tagged({ loggedIn }) : "malformed"
    }
    case "start": {
      if (status !== 200) return "http-error"
      if (!isObject(json)) return tagged({ sessionId: { _id: "Option", _tag: "None" }, _tag: "Unrecognized" })
      const id = json["session_id"]
      const code = json["user_code"]
      const interval = json["poll_interval"]
      const known = typeof id === "string" && isSessionId(id)
      if (
        known && json["flow"] === "device_code" && typeof code === "string" && isDeviceCode(code) &&
        json["verification_url"] === devicePage && typeof json["expires_in"] === "number" &&
        typeof interval === "number" && interval > 0
      ) {
        return tagged({ sessionId: id, code, page: devicePage, pollInterval: interval, _tag: "Started" })
      }
      return tagged({
        sessionId: known ? { _id: "Option", _tag: "Some", value: id } : { _id: "Option", _tag: "None" },
        _tag: "Unrecognized"
      })
    }
    case "poll": {
      if (status === 404 && isObject(json) && hasExactly(json, ["detail"])) {
        if (json["detail"] === "Session not found or expired") return tagged({ _tag: "NotHeld" })
      }
      if (status !== 200) return "http-error"
      const state = isObject(json) ? json["status"] : undefined
      return typeof state === "string" && ["pending", "approved", "expired", "denied", "error"].includes(state)
        ? tagged({ status: state, _tag: "Status" })
        : tagged({ _tag: "Unrecognized" })
    }
    case "cancel": {
      if (status !== 200) return "http-error"
      if (isObject(json) && hasExactly(json, ["ok", "session_id"]) && json["ok"] === true) {
        const id = json["session_id"]
        if (typeof id === "string") return tagged({ sessionId: id, _tag: "Cancelled" })
      }
      if (isObject(json) && hasExactly(json, ["ok", "message"]) && json["ok"] === false) {
        if (json["message"] === "session not found") return tagged({ _tag: "NotFound" })
      }
      return tagged({ _tag: "Unrecognized" })
    }
    case "signOut": {
      if (status === 409) return tagged({ _tag: "NothingStored" })
      if (status !== 200) return "http-error"
      const ok = isObject(json) ? json["ok"] : undefined
      return typeof ok === "boolean" ? tagged({ _tag: ok ? "SignedOut" : "NothingStored" }) : "malformed"
    }
  }
}

const sessionId = fc.string({ unit: fc.constantFrom(..."ABCXYZabcxyz0189-_"), minLength: 1, maxLength: 128 })
const deviceCode = fc.tuple(
  fc.string({ unit: fc.constantFrom(..."ABCDEFXYZ0123789"), minLength: 4, maxLength: 4 }),
  fc.string({ unit: fc.constantFrom(..."ABCDEFXYZ0123789"), minLength: 5, maxLength: 5 })
).map(([left, right]) => `${left}-${right}`)

/** Valid bodies of each route, with the members current Hermes adds. */
const validBodies: Record<Operation, FastCheck.Arbitrary<Json>> = {
  providerCard: fc.tuple(
    fc.array(
      fc.record({
        id: fc.constantFrom("nous", "qwen-oauth", "anthropic", "claude-code"),
        name: fc.string(),
        status: fc.record({ logged_in: fc.boolean(), source: fc.string() })
      }),
      { maxLength: 4 }
    ),
    fc.record({ id: fc.constant("openai-codex"), name: fc.string(), status: fc.record({ logged_in: fc.boolean() }) }),
    fc.nat()
  ).map(([others, codex, at]): Json => ({
    providers: [...others.slice(0, at % (others.length + 1)), codex, ...others.slice(at % (others.length + 1))]
  })),
  start: fc.record({
    session_id: sessionId,
    flow: fc.constant("device_code"),
    user_code: deviceCode,
    verification_url: fc.constant(devicePage),
    expires_in: fc.oneof(fc.constant(900), fc.double({ noNaN: true, noDefaultInfinity: true })),
    poll_interval: fc.oneof(fc.constant(5), fc.double({ min: Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }))
  }),
  poll: fc.record({
    session_id: sessionId,
    status: fc.constantFrom("pending", "approved", "expired", "denied", "error"),
    error_message: fc.oneof(fc.constant(null), fc.string()),
    expires_at: fc.double({ noNaN: true, noDefaultInfinity: true })
  }),
  cancel: fc.oneof(
    fc.record({ ok: fc.constant(true), session_id: sessionId }),
    fc.constant({ ok: false, message: "session not found" })
  ),
  signOut: fc.record({ ok: fc.boolean() })
}

/** What the project's own Schemas generate as valid (effect's `Arbitrary`): the oracle must agree with each. */
const schemaBodies: Record<Operation, FastCheck.Arbitrary<Json>> = {
  providerCard: Arbitrary.make(ProviderList).map((value) => value as Json),
  start: Arbitrary.make(StartAnswer),
  poll: Arbitrary.make(PollAnswer),
  cancel: fc.oneof(Arbitrary.make(CancelConfirmed), Arbitrary.make(CancelNotFound)),
  signOut: Arbitrary.make(SignOutAnswer)
}

const misses: FieldMisses = {
  session_id: fc.oneof(
    sessionId.chain(stringNearMiss),
    fc.constantFrom("", "x".repeat(129), "a/b", "..", ".", "%2e%2e", "a b", "a?b", "a#b", "\u0430bc")
  ),
  user_code: fc.oneof(
    deviceCode.chain(stringNearMiss),
    fc.constantFrom("abcd-efghi", "ABCD-EFGH", "ABCDE-FGHI", "ABCD EFGHI", "ABCD\u2010EFGHI", "\uff21BCD-EFGHI")
  ),
  verification_url: fc.oneof(
    stringNearMiss(devicePage),
    fc.constantFrom(
      `${devicePage}/`,
      `${devicePage}?`,
      `${devicePage}#`,
      "http://auth.openai.com/codex/device",
      "https://AUTH.openai.com/codex/device",
      "https://auth.openai.com:443/codex/device",
      "https://auth.openai.com/codex/device\u200b",
      "https://auth.openai.com.evil.example/codex/device"
    )
  ),
  flow: stringNearMiss("device_code"),
  poll_interval: fc.oneof(valueNearMiss(5), fc.constantFrom<Json>(0, -0, -5, "5")),
  status: fc.oneof(
    stringNearMiss("approved"),
    stringNearMiss("pending"),
    fc.record({ logged_in: valueNearMiss(true) })
  ),
  logged_in: valueNearMiss(true),
  id: stringNearMiss("openai-codex"),
  ok: valueNearMiss(true),
  message: stringNearMiss("session not found"),
  detail: stringNearMiss("Session not found or expired"),
  error: stringNearMiss("gateway_not_ready")
}

/** Statuses a route may answer with: mostly 200, and each one C3 gives a meaning to. */
const statusFor = (operation: Operation) =>
  fc.oneof(
    { arbitrary: fc.constant(200), weight: 8 },
    {
      arbitrary: fc.constantFrom(201, 204, 301, 302, 400, 401, 403, 404, 405, 409, 422, 429, 500, 502, 503, 504),
      weight: operation === "poll" || operation === "signOut" ? 3 : 2
    },
    { arbitrary: fc.integer({ min: 200, max: 599 }), weight: 1 }
  )

/** Bodies other statuses mean something with. */
const specialBodies: FastCheck.Arbitrary<Json> = fc.constantFrom(
  { detail: "Session not found or expired" },
  { error: "gateway_not_ready", state: "starting" },
  { detail: "Not Found" }
)

const answerFor = (operation: Operation) =>
  fc.tuple(
    statusFor(operation),
    fc.oneof(
      { arbitrary: jsonBytes(validBodies[operation], misses), weight: 6 },
      { arbitrary: jsonBytes(schemaBodies[operation], misses), weight: 1 },
      { arbitrary: jsonBytes(specialBodies, misses), weight: 1 }
    )
  )

const runs = fuzzRuns
const operations: ReadonlyArray<Operation> = ["providerCard", "start", "poll", "cancel", "signOut"]

describe("fuzzing Hermes's answers", () => {
  for (const operation of operations) {
    it(`${operation} answers a value exactly as C3 reads the status and body, or one closed reason`, async () => {
      const seen = tally(`hermes ${operation}`)
      await fc.assert(
        fc.asyncProperty(answerFor(operation), async ([status, body]) => {
          peer.answer({ status, body })
          const actual = await outcomeOf(api, operation)
          // 204 and 304 carry no body on the wire, whatever the listener was given.
          const expected = expectedOf(operation, status, status === 204 || status === 304 ? new Uint8Array(0) : body)
          seen.add(kindOf(expected))
          expect(actual).toBe(expected)
        }),
        params(runs)
      )
      seen.report()
      expect(seen.seen("http-error")).toBeGreaterThan(0)
    }, timeoutFor(runs, 4))
  }

  it(
    "a raw answer of any framing is a value or one closed reason, and a well-framed one is read as C3 says",
    async () => {
      const bodyOf = fc.constantFrom(...operations).chain((operation) =>
        fc.tuple(fc.constant(operation), answerFor(operation))
      )
      const framed = bodyOf.chain(([operation, [status, body]]) =>
        fc.tuple(
          fc.constant(operation),
          fc.constant(status),
          fc.constant(body),
          fc.constantFrom(
            "exact",
            "chunked",
            "until-close",
            "short",
            "long",
            "twice",
            "negative",
            "not-a-number",
            "bad-chunk",
            "http/1.0",
            "bad-status-line",
            "garbage"
          ),
          arbitraryBytes
        )
      )
      const seen = tally("raw framing")
      await fc.assert(
        fc.asyncProperty(framed, async ([operation, status, body, framing, garbage]) => {
          const head = (lines: ReadonlyArray<string>, version = "HTTP/1.1") =>
            Buffer.from(`${version} ${status} X\r\n${[...lines, ""].join("\r\n")}\r\n`, "latin1")
          const length = (value: string | number) => [`Content-Length: ${value}`]
          // One chunk with the body (none when it is empty: a zero-size chunk ends the body), then the last.
          const chunk = Buffer.concat([
            body.length === 0 ? Buffer.alloc(0) : Buffer.from(`${body.length.toString(16)}\r\n`),
            body,
            Buffer.from(body.length === 0 ? "0\r\n\r\n" : "\r\n0\r\n\r\n")
          ])
          const bytes = {
            exact: Buffer.concat([head(length(body.length)), body]),
            chunked: Buffer.concat([head(["Transfer-Encoding: chunked"]), chunk]),
            "until-close": Buffer.concat([head([]), body]),
            short: Buffer.concat([head(length(Math.max(0, body.length - 1))), body]),
            long: Buffer.concat([head(length(body.length + 1)), body]),
            twice: Buffer.concat([head([...length(body.length), ...length(body.length + 1)]), body]),
            negative: Buffer.concat([head(length(-1)), body]),
            "not-a-number": Buffer.concat([head(length("1x")), body]),
            "bad-chunk": Buffer.concat([head(["Transfer-Encoding: chunked"]), Buffer.from("zz\r\n"), body]),
            "http/1.0": Buffer.concat([head(length(body.length), "HTTP/1.0"), body]),
            "bad-status-line": Buffer.concat([
              Buffer.from(`HTTP/1.1 ${status}${String(garbage[0] ?? "")}\r\n\r\n`),
              body
            ]),
            garbage: Buffer.from(garbage)
          }[framing] ?? Buffer.alloc(0)
          raw.answer(bytes)
          const actual = await outcomeOf(rawApi, operation)
          seen.add(`${framing} ${kindOf(actual)}`)
          seen.add(actual.startsWith("value") ? "value" : "reason")
          // Well framed: a body where HTTP allows one (never after 204 or 304), its length told or chunked.
          const wellFramed = framing === "exact" || framing === "chunked" || framing === "http/1.0"
          if (wellFramed && status !== 204 && status !== 304) {
            expect(actual).toBe(expectedOf(operation, status, body))
          }
        }),
        params(runs)
      )
      seen.report()
      for (const outcome of ["garbage lost", "short lost", "value", "reason"]) {
        expect(seen.seen(outcome)).toBeGreaterThan(0)
      }
    },
    timeoutFor(runs, 4)
  )
})
