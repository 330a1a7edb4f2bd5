// The control socket's wire (C2): the request line we write and the envelopes and results we
// accept. The envelope and the ticket are strict; identify ignores members it does not name
// (C2: "Other members are ignored"), see docs/decisions.md "Hermes answers: strict or not".
import { Schema } from "effect"

export const ControlVerb = Schema.Literal("identify", "session-ticket")
export type ControlVerb = typeof ControlVerb.Type

/** The session-ticket params, exactly the three keys Hermes accepts (hermes-protocol.md §3.1). */
export const TicketParams = Schema.Struct({
  profile_id: Schema.String,
  instance_id: Schema.String,
  purpose: Schema.Literal("native-http")
})
export type TicketParams = typeof TicketParams.Type

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/**
 * One request line: `{"protocol":1,"id":1,"verb":V}` plus params where the verb takes them, and
 * nothing else, whoever encodes it (its params included: parse options hold for children).
 */
export const ControlRequest = Schema.Union(
  Schema.Struct({ protocol: Schema.Literal(1), id: Schema.Literal(1), verb: Schema.Literal("identify") }).annotations(
    strict
  ),
  Schema.Struct({
    protocol: Schema.Literal(1),
    id: Schema.Literal(1),
    verb: Schema.Literal("session-ticket"),
    params: TicketParams
  }).annotations(strict)
)
export type ControlRequest = typeof ControlRequest.Type

/** `{"ok":true,"protocol":1,"result":{…},"id":1}`: nothing else on a success. */
export const ControlSuccess = Schema.Struct({
  ok: Schema.Literal(true),
  protocol: Schema.Literal(1),
  id: Schema.Literal(1),
  result: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations(strict)

/** `{"ok":false,"error":"…","protocol":1,"id":1}`; an unknown verb adds `supported_verbs`. The text is never shown. */
export const ControlRefusal = Schema.Struct({
  ok: Schema.Literal(false),
  protocol: Schema.Literal(1),
  id: Schema.Literal(1),
  error: Schema.String,
  supported_verbs: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
}).annotations(strict)

export const ControlReply = Schema.Union(ControlSuccess, ControlRefusal)
export type ControlReply = typeof ControlReply.Type

/** A reply line: one JSON object in UTF-8. */
export const ControlReplyFromLine = Schema.parseJson(ControlReply)

/** A request line's JSON (the newline is the caller's): only what `ControlRequest` names is written. */
export const ControlRequestToLine = Schema.parseJson(ControlRequest)

/** One profile the gateway serves; members it adds are ignored with the rest of identify's (below). */
export const ServedProfile = Schema.Struct({ profile_id: Schema.String, home: Schema.String })

/** The gateway states identify may report (C2). */
export const GatewayState = Schema.Literal("starting", "ready", "draining", "failed")
export type GatewayState = typeof GatewayState.Type

/**
 * The identify result, as much of it as we read. Hermes grows this object across versions
 * (pid, start_time, supervisor, authority_epoch, parked_profiles…), so other members are ignored,
 * here and in what it holds (a Schema's parse options hold for its children too), whatever the
 * caller's options.
 */
export const IdentifyResult = Schema.Struct({
  kind: Schema.Literal("hermes-gateway"),
  runtime_protocol: Schema.Literal(1),
  instance_id: Schema.NonEmptyString,
  state: GatewayState,
  api_origin: Schema.String,
  capabilities: Schema.Array(Schema.String),
  served_profiles: Schema.Array(ServedProfile)
}).annotations({
  // Stryker disable next-line StringLiteral: Effect treats any value but "error" and "preserve" as "ignore"
  parseOptions: { onExcessProperty: "ignore" }
})
export type IdentifyResult = typeof IdentifyResult.Type

/** A ticket: 1–256 URL-safe characters (C2). */
export const TicketString = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,256}$/))

/**
 * The session-ticket result: exactly the five members Hermes sends. A credential-bearing answer
 * that carries anything we do not recognise is not one we trust.
 */
export const TicketResult = Schema.Struct({
  ticket: TicketString,
  expires_in_seconds: Schema.Number,
  instance_id: Schema.String,
  profile_id: Schema.String,
  runtime_protocol: Schema.Literal(1)
}).annotations(strict)
export type TicketResult = typeof TicketResult.Type

/** The capability every usable gateway lists (Gen B "session authority" runtime). */
export const SessionAuthority = "session-authority-v1"
/** The cancellation contract (C2): exactly this string in `capabilities`, nothing else counts. */
export const OAuthCancelContract = "lazurio-oauth-cancel-contract-v1"
