// The wire of our own routes (C6), and the one table of what each answers. Request bodies, exact
// and strict, every answer body, the operations (path, method, body, success) and every refusal
// with its status: the app answers from this file, the OpenAPI document is derived from it, and the
// browser client (`buddy/client`) decodes by it. Only `effect` is imported here, so the client can
// bundle it for a browser (docs/decisions.md D20).
import * as Schema from "effect/Schema"
import { Locale } from "./config.js"
import { BlockedReason, BuddyState, GatewayReason, SignInState } from "./reasons.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/**
 * `{}` and nothing else: start and sign-out take no parameters. (`Schema.Struct({})` would be the
 * `{}` type, which admits any value but null; a record of no possible value admits only `{}`.)
 */
export const EmptyBody = Schema.Record({ key: Schema.String, value: Schema.Never }).annotations({
  identifier: "EmptyBody"
})

/** `{handle}` and nothing else; the handle's own shape is checked apart (invalid-handle). */
export const HandleBody = Schema.Struct({ handle: Schema.String }).annotations({ ...strict, identifier: "HandleBody" })

/** 32 lowercase hex chars (C4.3). */
export const Handle = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{32}$/))

export const BuddyAnswer = Schema.Struct({
  kind: Schema.Literal("buddy"),
  state: BuddyState,
  reason: Schema.optionalWith(GatewayReason, { exact: true }),
  signIn: Schema.Struct({ state: Schema.Literal("none", "pending") }),
  locale: Locale
}).annotations({ identifier: "BuddyAnswer" })
export type BuddyAnswer = typeof BuddyAnswer.Type

export const StartAnswer = Schema.Struct({
  kind: Schema.Literal("sign-in"),
  state: Schema.Literal("pending"),
  handle: Handle,
  code: Schema.String,
  page: Schema.String
}).annotations({ identifier: "SignInStarted" })
export type StartAnswer = typeof StartAnswer.Type

/** A poll's answer: the code and page only while pending. */
/** The states a sign-in ends in (C4.10 without `none` and `pending`). */
export const SignInEnding = SignInState.pipe(
  Schema.pickLiteral("signed-in", "expired", "refused", "lost", "failed", "cancelled")
)

export const PollAnswer = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("sign-in"),
    state: Schema.Literal("pending"),
    code: Schema.String,
    page: Schema.String
  }),
  Schema.Struct({
    kind: Schema.Literal("sign-in"),
    state: SignInEnding
  })
).annotations({ identifier: "SignInState" })
export type PollAnswer = typeof PollAnswer.Type

/** `cancelled`, or the ending Hermes had already reached when the cancel polled first (C4.7). */
export const CancelAnswer = Schema.Struct({
  kind: Schema.Literal("sign-in"),
  state: SignInEnding
}).annotations({ identifier: "SignInEnded" })
export type CancelAnswer = typeof CancelAnswer.Type

export const SignOutAnswer = Schema.Struct({
  kind: Schema.Literal("sign-out"),
  state: Schema.Literal("signed-out")
}).annotations({ identifier: "SignedOut" })
export type SignOutAnswer = typeof SignOutAnswer.Type

// Without an identifier: the document narrows each 409 to the reasons its operation can give.
export const BlockedAnswer = Schema.Struct({
  kind: Schema.Literal("blocked"),
  reason: BlockedReason
})
export type BlockedAnswer = typeof BlockedAnswer.Type

export const UnavailableAnswer = Schema.Struct({
  error: Schema.Literal("buddy-unavailable"),
  reason: GatewayReason
}).annotations({ identifier: "Unavailable" })
export type UnavailableAnswer = typeof UnavailableAnswer.Type

/** Who may not ask: the app's same-origin rule (C6 check 3), or `buddy serve`'s Host pinning (D22). */
export const DeniedReason = Schema.Literal("origin-mismatch", "host-mismatch")
export type DeniedReason = typeof DeniedReason.Type

export const DeniedAnswer = Schema.Struct({
  error: Schema.Literal("denied"),
  reason: DeniedReason
}).annotations({ identifier: "Denied" })
export type DeniedAnswer = typeof DeniedAnswer.Type

/** The plain errors of C6 that carry no reason. */
export const PlainError = Schema.Literal(
  "buddy-absent",
  "not-found",
  "method-not-allowed",
  "invalid-content-type",
  "body-too-large",
  "invalid-request",
  "invalid-handle",
  "operation-failed",
  "expectation-failed",
  "request-timeout",
  "headers-too-large"
)
export type PlainError = typeof PlainError.Type

// Without an identifier: the document narrows each status to the plain errors it can carry.
export const ErrorAnswer = Schema.Struct({ error: PlainError })
export type ErrorAnswer = typeof ErrorAnswer.Type

/** `GET /api/buddy/openapi.json`: an OpenAPI 3.1 document (the app's own, src/http/openapi.ts). */
export const OpenApiAnswer = Schema.Struct(
  { openapi: Schema.Literal("3.1.0") },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "OpenApiDocument" })

/** How a refusal's body is shaped: `{error}`, `{error:"denied",reason}`, `{kind:"blocked",reason}`, `{error:"buddy-unavailable",reason}`. */
export type RefusalBody = "error" | "denied" | "blocked" | "unavailable"

interface Entry<B extends RefusalBody> {
  readonly status: number
  readonly body: B
  /** What it means wherever the app runs. */
  readonly description: string
  /** What `buddy serve`'s own server adds to the same name (its document only, D54). */
  readonly served?: string
}

const entry = <B extends RefusalBody>(status: number, body: B, description: string, served?: string): Entry<B> => ({
  status,
  body,
  description,
  ...(served === undefined ? {} : { served })
})

/**
 * Every refusal the app answers, by its closed name, with its status: the one table of statuses.
 * Its type demands exactly the plain errors, the blocked reasons, `origin-mismatch` and
 * `buddy-unavailable`, each with the body its Schema above gives it.
 */
export const refusals:
  & { readonly [K in PlainError]: Entry<"error"> }
  & { readonly [K in BlockedReason]: Entry<"blocked"> }
  & { readonly [K in DeniedReason]: Entry<"denied"> }
  & { readonly "buddy-unavailable": Entry<"unavailable"> } = {
    "buddy-absent": entry(
      404,
      "error",
      "no Buddy here: no Buddy origin recorded, or not a hosted personal environment"
    ),
    "not-found": entry(404, "error", "no such path under the root"),
    "method-not-allowed": entry(405, "error", "the path exists, not with this method; see Allow"),
    "origin-mismatch": entry(403, "denied", "a POST from anywhere but the Launchpad's own page"),
    "invalid-content-type": entry(415, "error", "Content-Type is not application/json"),
    "body-too-large": entry(
      413,
      "error",
      "the body is over 16 KiB, declared or streamed",
      "or a chunk's extensions too long"
    ),
    "invalid-request": entry(
      400,
      "error",
      "the body is not strict UTF-8 JSON with exactly the listed keys",
      "or the request is not HTTP it can parse, a CONNECT, or without Host"
    ),
    "invalid-handle": entry(400, "error", "the handle is not 32 lowercase hex characters"),
    "hermes-outdated": entry(409, "blocked", "Hermes lacks the cancellation contract: nothing changed"),
    "sign-in-running": entry(409, "blocked", "a held sign-in could not be ended: nothing changed"),
    "sign-in-unknown": entry(409, "blocked", "the handle is not the current holder's"),
    "lock-unavailable": entry(
      409,
      "blocked",
      "the holder lock cannot be taken (its place beside Hermes's home is not buddy's, or the system refuses): nothing changed"
    ),
    "buddy-unavailable": entry(503, "unavailable", "the gateway could not be reached or failed (C7 reason)"),
    "operation-failed": entry(500, "error", "anything unforeseen"),
    "host-mismatch": entry(
      403,
      "denied",
      "buddy serve: Host (or an absolute target) names neither this server nor the Launchpad"
    ),
    "expectation-failed": entry(417, "error", "buddy serve: an Expect other than 100-continue"),
    "request-timeout": entry(408, "error", "buddy serve: headers not in within 10 s, or the request within 30 s"),
    "headers-too-large": entry(431, "error", "buddy serve: the request line and headers are over 16 KiB")
  }
export type RefusalName = keyof typeof refusals

/** The refusals of the route table itself, answered for paths and methods no operation has. */
export const pathRefusals: ReadonlyArray<RefusalName> = ["not-found", "method-not-allowed"]

/**
 * The refusals `buddy serve`'s own server answers (src/serve/node-server.ts) before the app sees a
 * request, to any path and method: a mount never gives them, its host's server answers instead, so
 * only buddy serve's own document lists them (D54).
 * `invalid-request` there is a request Node cannot parse, a CONNECT or one without Host;
 * `body-too-large` a chunk's extensions over Node's limit.
 */
export const serverRefusals: ReadonlyArray<RefusalName> = [
  "invalid-request",
  "host-mismatch",
  "body-too-large",
  "expectation-failed",
  "request-timeout",
  "headers-too-large"
]

/** Where C6 puts the routes; a router that mounts the app under another prefix moves them (D20). */
export const apiRoot = "/api/buddy"

/** One operation of C6: where it is under the root, how it is asked, what it answers. */
export interface Operation {
  readonly operationId: string
  /** Under the root: `""` is the root itself. */
  readonly path: string
  readonly method: "GET" | "POST"
  readonly summary: string
  /** The body it takes: none (GET), exactly `{}`, or exactly `{handle}`. */
  readonly body: "none" | "empty" | "handle"
  readonly success: Schema.Schema.AnyNoContext
  /** Its own refusals, besides those its method and body bring (`refusalsOf`). */
  readonly refuses: ReadonlyArray<BlockedReason | "buddy-unavailable">
}

/** The blocked reasons SignIn gives each operation (C4.2, C4.5, C4.8; src/services/SignIn.ts). */
const replacing = ["hermes-outdated", "sign-in-running", "lock-unavailable", "buddy-unavailable"] as const
const holding = ["hermes-outdated", "sign-in-running", "sign-in-unknown", "buddy-unavailable"] as const

export const operations = {
  status: {
    operationId: "status",
    path: "",
    method: "GET",
    summary: "Buddy's state (works, waits or unknown) and whether a sign-in is held",
    body: "none",
    success: BuddyAnswer,
    // Status never fails: an unreachable gateway is `unknown` with its reason (C5).
    refuses: []
  },
  openApi: {
    operationId: "openApi",
    path: "/openapi.json",
    method: "GET",
    summary: "This document",
    body: "none",
    success: OpenApiAnswer,
    refuses: []
  },
  startSignIn: {
    operationId: "startSignIn",
    path: "/sign-in/start",
    method: "POST",
    summary: "Start Buddy's ChatGPT sign-in: the holder gets a handle, the code and OpenAI's page",
    body: "empty",
    success: StartAnswer,
    refuses: replacing
  },
  pollSignIn: {
    operationId: "pollSignIn",
    path: "/sign-in/poll",
    method: "POST",
    summary: "The held sign-in's state, for its holder",
    body: "handle",
    success: PollAnswer,
    refuses: holding
  },
  cancelSignIn: {
    operationId: "cancelSignIn",
    path: "/sign-in/cancel",
    method: "POST",
    summary: "Cancel the held sign-in on Hermes, for its holder (or read the ending Hermes already reached)",
    body: "handle",
    success: CancelAnswer,
    refuses: holding
  },
  signOut: {
    operationId: "signOut",
    path: "/sign-out",
    method: "POST",
    summary: "Sign Buddy out of ChatGPT (a held sign-in is cancelled first)",
    body: "empty",
    success: SignOutAnswer,
    refuses: replacing
  }
} as const satisfies Record<string, Operation>

/**
 * Everything an operation can be refused with, in C6's order: Buddy absent (check 1), the
 * same-origin rule for a POST (3), the body's checks for a route that takes one (4), its own
 * refusals (5), and the unforeseen (6). The app runs exactly these checks from the same fields.
 */
export const refusalsOf = (operation: Pick<Operation, "method" | "body" | "refuses">): ReadonlyArray<RefusalName> => [
  "buddy-absent",
  ...(operation.method === "POST" ? ["origin-mismatch" as const] : []),
  ...(operation.body === "none" ? [] : ["invalid-content-type", "body-too-large", "invalid-request"] as const),
  ...(operation.body === "handle" ? ["invalid-handle" as const] : []),
  ...operation.refuses,
  "operation-failed"
]
