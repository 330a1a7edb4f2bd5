// Hermes's loopback API answers that mean something to us (C3), as Schemas. Hermes's own texts
// (`detail`, `error_message`, `message` other than the one we match) are never decoded into values
// that leave this module. Strictness per shape: docs/decisions.md "Hermes answers: strict or not".
import { Schema } from "effect"

const ignoreExcess = { parseOptions: { onExcessProperty: "ignore" } } as const
const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** The provider we sign Buddy in to. */
export const CodexProvider = "openai-codex"

/** The code as OpenAI issues it for Codex (C3). */
export const CodexDeviceCode = Schema.String.pipe(Schema.pattern(/^[A-Z0-9]{4}-[A-Z0-9]{5}$/))
/** OpenAI's device page for Codex, exactly. */
export const CodexDevicePage = Schema.Literal("https://auth.openai.com/codex/device")

/**
 * Hermes's OAuth session id: `secrets.token_urlsafe(16)`, 22 characters of the URL-safe base64
 * alphabet. We take that alphabet at 1–128 characters (a longer token from a newer Hermes still
 * works) and nothing else: every character is unreserved in a URL path, so the id can only ever be
 * one path segment of the poll and cancel routes, never `/`, `%`, a dot segment or a space (D17).
 */
export const SessionId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,128}$/))

/** One provider card; we read only `id` and, for openai-codex, `status.logged_in`. */
export const ProviderCard = Schema.Struct({
  id: Schema.String,
  status: Schema.Struct({ logged_in: Schema.Unknown })
  // Its status too: parse options hold for a Schema's children.
}).annotations(ignoreExcess)

/** `GET /api/providers/oauth` 200: a growing catalogue, so members we do not read are ignored. */
export const ProviderList = Schema.Struct({ providers: Schema.Array(Schema.Unknown) }).annotations(ignoreExcess)

/**
 * `POST …/openai-codex/start` 200. Every member we use is checked exactly; others are ignored so a
 * newer Hermes adding one does not turn every start into a sign-in held without a holder.
 */
export const StartAnswer = Schema.Struct({
  session_id: SessionId,
  flow: Schema.Literal("device_code"),
  user_code: CodexDeviceCode,
  verification_url: CodexDevicePage,
  expires_in: Schema.Number,
  poll_interval: Schema.Number.pipe(Schema.positive())
}).annotations(ignoreExcess)
export type StartAnswer = typeof StartAnswer.Type

/**
 * Just enough of a start answer to find its session id when the rest has no known shape. An id
 * outside Hermes's alphabet is no id at all: the start is held without a known session (C4.6).
 */
export const StartSessionId = Schema.Struct({ session_id: SessionId }).annotations(ignoreExcess)

export const PollStatus = Schema.Literal("pending", "approved", "expired", "denied", "error")
export type PollStatus = typeof PollStatus.Type

/** `GET …/poll/<id>` 200: nine members in current Hermes, fewer in older; we read `status`. */
export const PollAnswer = Schema.Struct({ status: PollStatus }).annotations(ignoreExcess)

/**
 * `GET …/poll/<id>` 404 as Hermes's poll route itself answers for a session it no longer holds
 * (recorded "poll after cancel"), exactly. Any other 404, e.g. Starlette's `{"detail":"Not Found"}`
 * for a route that does not exist, says nothing about the session (D17).
 */
export const PollNotFound = Schema.Struct({ detail: Schema.Literal("Session not found or expired") }).annotations(
  strict
)

/** `DELETE …/sessions/<id>` 200 confirmed: exactly `{ok:true, session_id}`. */
export const CancelConfirmed = Schema.Struct({ ok: Schema.Literal(true), session_id: Schema.String }).annotations(
  strict
)
/** `DELETE …/sessions/<id>` 200 for a session Hermes does not hold: exactly this. */
export const CancelNotFound = Schema.Struct({
  ok: Schema.Literal(false),
  message: Schema.Literal("session not found")
}).annotations(strict)

/** `DELETE /api/providers/oauth/openai-codex` 200: `{ok:true}` cleared, `{ok:false}` nothing stored. */
export const SignOutAnswer = Schema.Struct({ ok: Schema.Boolean }).annotations(ignoreExcess)

/** HTTP 503 before auth: `{"error":"gateway_not_ready","state":…}`. */
export const NotReadyAnswer = Schema.Struct({ error: Schema.Literal("gateway_not_ready") }).annotations(
  ignoreExcess
)
