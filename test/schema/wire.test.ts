// The Schemas of every byte that crosses a boundary, pinned where they are defined (D37): the
// closed lists as the contract names them, what each Schema accepts and refuses at its edges, and
// the excess-member rule each one carries with it, whatever options its caller decodes with. The
// services and the app are proven over the wire elsewhere; this is the focused suite that makes a
// mutant of a module-level Schema (a static mutant) cheap to kill: it loads the module afresh and
// fails in milliseconds.
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ConfigFile, Environment, Locale, Origin } from "../../src/schema/config.js"
import {
  ControlRefusal,
  ControlReply,
  ControlRequestToLine,
  ControlVerb,
  IdentifyResult,
  TicketResult
} from "../../src/schema/control.js"
import { ProviderCard } from "../../src/schema/hermes.js"
import { JournalLine, JournalOperation, JournalOutcome } from "../../src/schema/journal.js"
import { BlockedReason, BuddyState, GatewayReason, SignInState } from "../../src/schema/reasons.js"
import {
  BuddyAnswer,
  DeniedReason,
  ErrorAnswer,
  OpenApiAnswer,
  pathRefusals,
  PlainError,
  refusals,
  serverRefusals
} from "../../src/schema/routes.js"
import { decodeUtf8 } from "../../src/schema/utf8.js"
import { gatewayReasons } from "../fuzz/support/closed.js"

const strict = { onExcessProperty: "error" } as const
const accepts = <A, I>(schema: Schema.Schema<A, I>, value: unknown, options = {}) =>
  Either.isRight(Schema.decodeUnknownEither(schema, options)(value))

describe("the closed lists, as the contract names them", () => {
  it("C7's gateway reasons, C4's states and blocked reasons, C5's states", () => {
    // C7's reasons as the fuzz oracles write them out from the contract, in the contract's order.
    expect(GatewayReason.literals).toStrictEqual([...gatewayReasons])
    expect(SignInState.literals).toStrictEqual([
      "none",
      "pending",
      "signed-in",
      "expired",
      "refused",
      "lost",
      "failed",
      "cancelled"
    ])
    expect(BlockedReason.literals).toStrictEqual([
      "hermes-outdated",
      "sign-in-running",
      "sign-in-unknown",
      "lock-unavailable"
    ])
    expect(BuddyState.literals).toStrictEqual(["works", "waits", "unknown"])
  })

  it("the journal's operations and outcomes, the config's environments and locales, the control verbs", () => {
    expect(JournalOperation.literals).toStrictEqual(["start", "poll", "cancel", "sign-out"])
    expect(JournalOutcome.members.flatMap((member) => member.literals)).toStrictEqual([
      ...SignInState.literals,
      "signed-out",
      "blocked",
      "unavailable"
    ])
    expect(Environment.literals).toStrictEqual([
      "hosted-personal",
      "hosted-organization-personal",
      "hosted-organization-team",
      "local"
    ])
    expect(Locale.literals).toStrictEqual(["cs", "en"])
    expect(ControlVerb.literals).toStrictEqual(["identify", "session-ticket"])
  })

  it("the refusal table: each name's status and body, the route table's and buddy serve's own", () => {
    expect(Object.fromEntries(Object.entries(refusals).map(([name, entry]) => [name, [entry.status, entry.body]])))
      .toStrictEqual({
        "buddy-absent": [404, "error"],
        "not-found": [404, "error"],
        "method-not-allowed": [405, "error"],
        "origin-mismatch": [403, "denied"],
        "invalid-content-type": [415, "error"],
        "body-too-large": [413, "error"],
        "invalid-request": [400, "error"],
        "invalid-handle": [400, "error"],
        "hermes-outdated": [409, "blocked"],
        "sign-in-running": [409, "blocked"],
        "sign-in-unknown": [409, "blocked"],
        "lock-unavailable": [409, "blocked"],
        "buddy-unavailable": [503, "unavailable"],
        "operation-failed": [500, "error"],
        "host-mismatch": [403, "denied"],
        "expectation-failed": [417, "error"],
        "request-timeout": [408, "error"],
        "headers-too-large": [431, "error"]
      })
    expect(PlainError.literals.map((error) => refusals[error].body)).toStrictEqual(
      PlainError.literals.map(() => "error")
    )
    expect(DeniedReason.literals).toStrictEqual(["origin-mismatch", "host-mismatch"])
    expect(pathRefusals).toStrictEqual(["not-found", "method-not-allowed"])
    expect(serverRefusals).toStrictEqual([
      "invalid-request",
      "host-mismatch",
      "body-too-large",
      "expectation-failed",
      "request-timeout",
      "headers-too-large"
    ])
    // Words of buddy serve's own server for a name the app gives too: only these two carry them
    // (its document alone says them, D54), and no other entry has the field at all.
    expect(Object.entries(refusals).flatMap(([name, entry]) => "served" in entry ? [[name, entry.served]] : []))
      .toStrictEqual([
        ["body-too-large", "or a chunk's extensions too long"],
        ["invalid-request", "or the request is not HTTP it can parse, a CONNECT, or without Host"]
      ])
  })
})

describe("the config file", () => {
  const file = { launchpadOrigin: "https://launchpad.example", environment: "hosted-personal", locale: "en" }

  it("takes an origin only as a browser sends it: the URL parser must give back the same text", () => {
    for (const origin of ["https://launchpad.example", "http://127.0.0.1:8080", "http://[::1]:3000"]) {
      expect(accepts(Origin, origin), origin).toBe(true)
    }
    // Each of these passes the pattern; only the parser's canonical form tells them apart.
    for (
      const origin of [
        "https://launchpad.example:443",
        "http://launchpad.example:80",
        "https://launchpad.example:65536",
        "http://[::0001]",
        "http://[1::2::3]",
        "http://256.0.0.1",
        "http://0x7f.0.0.1",
        // The parser keeps these as they are; only the pattern refuses them.
        "https://launch_pad.example",
        "https://launchpad.example:0"
      ]
    ) {
      expect(accepts(Origin, origin), origin).toBe(false)
    }
  })

  it("refuses a member it does not name, and an optional member given as undefined, whatever the caller's options", () => {
    expect(accepts(ConfigFile, file)).toBe(true)
    expect(accepts(ConfigFile, { ...file, extra: 1 })).toBe(false)
    expect(accepts(ConfigFile, { ...file, hermesHome: undefined })).toBe(false)
    expect(accepts(ConfigFile, { ...file, buddyOrigin: undefined })).toBe(false)
    expect(accepts(ConfigFile, { ...file, socketGroup: undefined })).toBe(false)
    expect(accepts(ConfigFile, { ...file, socketGroup: "www-data" })).toBe(true)
    expect(accepts(ConfigFile, { ...file, socketGroup: 33 })).toBe(true)
    expect(accepts(ConfigFile, { ...file, allowedAccounts: ["www-data", 33] })).toBe(false)
  })
})

describe("the control socket's wire", () => {
  const encodeLine = Schema.encodeSync(ControlRequestToLine, strict)

  it("writes the two request lines exactly, and nothing a request carries besides", () => {
    expect(encodeLine({ protocol: 1, id: 1, verb: "identify" })).toBe("{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}")
    const ticket = {
      protocol: 1,
      id: 1,
      verb: "session-ticket",
      params: { profile_id: "/home/p/.hermes", instance_id: "i-1", purpose: "native-http" }
    } as const
    expect(encodeLine(ticket)).toBe(
      "{\"protocol\":1,\"id\":1,\"verb\":\"session-ticket\",\"params\":{\"profile_id\":\"/home/p/.hermes\"," +
        "\"instance_id\":\"i-1\",\"purpose\":\"native-http\"}}"
    )
    // Refused by the Schema itself, with no options from the caller.
    expect(Either.isLeft(Schema.encodeUnknownEither(ControlRequestToLine)({ ...ticket, token: "secret" }))).toBe(true)
    const smuggled = { ...ticket, params: { ...ticket.params, token: "secret" } }
    expect(Either.isLeft(Schema.encodeUnknownEither(ControlRequestToLine)(smuggled))).toBe(true)
    expect(
      Either.isLeft(Schema.encodeUnknownEither(ControlRequestToLine)({ protocol: 1, id: 1, verb: "identify", x: 1 }))
    )
      .toBe(true)
  })

  it("takes a success's result only as an object, and a refusal's supported_verbs only as given", () => {
    const success = { ok: true, protocol: 1, id: 1, result: { a: 1 } }
    expect(accepts(ControlReply, success)).toBe(true)
    expect(accepts(ControlReply, { ...success, result: "text" })).toBe(false)
    const refusal = { ok: false, protocol: 1, id: 1, error: "unknown verb" }
    expect(accepts(ControlRefusal, { ...refusal, supported_verbs: ["identify"] })).toBe(true)
    expect(accepts(ControlRefusal, { ...refusal, supported_verbs: undefined })).toBe(false)
    expect(accepts(TicketResult, {
      ticket: "t",
      expires_in_seconds: 30,
      instance_id: "i",
      profile_id: "p",
      runtime_protocol: 1,
      more: 1
    })).toBe(false)
  })

  it("ignores what identify's result and its served profiles add, even for a strict caller (C2)", () => {
    const identify = {
      kind: "hermes-gateway",
      runtime_protocol: 1,
      instance_id: "i-1",
      state: "ready",
      api_origin: "http://127.0.0.1:9119",
      capabilities: [],
      served_profiles: [{ profile_id: "p", home: "/h", parked: false }],
      pid: 42
    }
    expect(accepts(IdentifyResult, identify, strict)).toBe(true)
  })
})

describe("Hermes's answers", () => {
  it("reads a provider card's id and status, ignoring what either adds, even for a strict caller", () => {
    const card = { id: "openai-codex", name: "OpenAI Codex", status: { logged_in: true, source: "file" } }
    expect(accepts(ProviderCard, card, strict)).toBe(true)
    expect(accepts(ProviderCard, { name: "OpenAI Codex", status: { logged_in: true } }, strict)).toBe(false)
    expect(accepts(ProviderCard, { id: "openai-codex" }, strict)).toBe(false)
    expect(accepts(ProviderCard, { id: "openai-codex", status: "signed in" }, strict)).toBe(false)
  })
})

describe("our own answers", () => {
  const works = { kind: "buddy", state: "works", signIn: { state: "none" }, locale: "en" }

  it("Buddy's state: exactly its members, the reason only when there is one", () => {
    expect(accepts(BuddyAnswer, works, strict)).toBe(true)
    expect(accepts(BuddyAnswer, { ...works, state: "unknown", reason: "timeout" }, strict)).toBe(true)
    expect(accepts(BuddyAnswer, { ...works, reason: undefined }, strict)).toBe(false)
    expect(accepts(BuddyAnswer, { ...works, signIn: { state: "signed-in" } }, strict)).toBe(false)
    expect(accepts(BuddyAnswer, { kind: "buddy", state: "works", locale: "en" }, strict)).toBe(false)
  })

  it("a plain error: exactly one of the closed names", () => {
    expect(accepts(ErrorAnswer, { error: "not-found" }, strict)).toBe(true)
    expect(accepts(ErrorAnswer, { error: "Not Found" }, strict)).toBe(false)
    expect(accepts(ErrorAnswer, {}, strict)).toBe(false)
  })

  it("the OpenAPI document: version 3.1.0 and anything else", () => {
    expect(accepts(OpenApiAnswer, { openapi: "3.1.0", paths: {} }, strict)).toBe(true)
    expect(accepts(OpenApiAnswer, { openapi: "3.0.0" }, strict)).toBe(false)
  })

  it("the journal line: refuses a member it does not name and a reason given as undefined, whoever encodes it", () => {
    const line = { scope: "buddy-sign-in", operation: "poll", outcome: "pending" } as const
    expect(Schema.encodeSync(Schema.parseJson(JournalLine))(line)).toBe(
      "{\"scope\":\"buddy-sign-in\",\"operation\":\"poll\",\"outcome\":\"pending\"}"
    )
    const extra = { ...line, code: "ABCD-EFGHK" }
    expect(Either.isLeft(Schema.encodeUnknownEither(JournalLine)(extra))).toBe(true)
    expect(Either.isLeft(Schema.encodeUnknownEither(JournalLine)({ ...line, reason: undefined }))).toBe(true)
  })
})

describe("bytes as text", () => {
  it("strict UTF-8: a malformed sequence is refused, a byte-order mark kept", () => {
    expect(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toStrictEqual(Either.right("\uFEFF{}"))
    expect(Either.isLeft(decodeUtf8(new Uint8Array([0x7b, 0xff, 0x7d])))).toBe(true)
  })
})
