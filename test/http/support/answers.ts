// What every answer of the app must look like on the wire: the status, the exact body bytes,
// JSON, and the three security headers of C6, each exactly once.
import { expect } from "@effect/vitest"
import type { HeaderList } from "./server.js"

export const securityHeaders = [
  ["cache-control", "no-store"],
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "no-referrer"]
] as const

interface Answered {
  readonly status: number
  readonly body: string
  readonly rawHeaders?: HeaderList
  readonly headers?: unknown
}

const headerLines = (reply: Answered): HeaderList => {
  if (reply.rawHeaders !== undefined) return reply.rawHeaders
  if (Array.isArray(reply.headers)) return reply.headers as HeaderList
  return []
}

/** The values of every line of this header, name compared case-insensitively. */
export const headerValues = (reply: Answered, name: string) =>
  headerLines(reply).filter(([line]) => line.toLowerCase() === name).map(([, value]) => value)

/** The three security headers, each exactly once, and a JSON content type. */
export const expectSecure = (reply: Answered) => {
  for (const [name, value] of securityHeaders) expect(headerValues(reply, name), name).toStrictEqual([value])
  expect(headerValues(reply, "content-type")).toStrictEqual(["application/json"])
}

/** Exactly this status and these body bytes, with the security headers. */
export const expectAnswer = (reply: Answered, status: number, body: string) => {
  expect({ status: reply.status, body: reply.body }).toStrictEqual({ status, body })
  expectSecure(reply)
}

export const bodies = {
  denied: "{\"error\":\"denied\",\"reason\":\"origin-mismatch\"}",
  absent: "{\"error\":\"buddy-absent\"}",
  notFound: "{\"error\":\"not-found\"}",
  methodNotAllowed: "{\"error\":\"method-not-allowed\"}",
  contentType: "{\"error\":\"invalid-content-type\"}",
  tooLarge: "{\"error\":\"body-too-large\"}",
  invalidRequest: "{\"error\":\"invalid-request\"}",
  invalidHandle: "{\"error\":\"invalid-handle\"}",
  failed: "{\"error\":\"operation-failed\"}",
  blocked: (reason: string) => `{"kind":"blocked","reason":"${reason}"}`,
  unavailable: (reason: string) => `{"error":"buddy-unavailable","reason":"${reason}"}`,
  status: (state: string, signIn: string, locale = "cs", reason?: string) =>
    `{"kind":"buddy","state":"${state}",${
      reason === undefined ? "" : `"reason":"${reason}",`
    }"signIn":{"state":"${signIn}"},"locale":"${locale}"}`,
  pending:
    "{\"kind\":\"sign-in\",\"state\":\"pending\",\"code\":\"ABCD-EFGHK\",\"page\":\"https://auth.openai.com/codex/device\"}",
  ended: (state: string) => `{"kind":"sign-in","state":"${state}"}`,
  signedOut: "{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"
}

/** A journal line of C6. */
export const line = (operation: string, outcome: string, reason?: string) =>
  JSON.stringify({ scope: "buddy-sign-in", operation, outcome, ...(reason === undefined ? {} : { reason }) })

/** The handle of a start answer, after checking the answer's exact bytes around it. */
export const startedHandle = (reply: Answered): string => {
  expect(reply.status).toBe(200)
  const match =
    /^\{"kind":"sign-in","state":"pending","handle":"([0-9a-f]{32})","code":"ABCD-EFGHK","page":"https:\/\/auth\.openai\.com\/codex\/device"\}$/
      .exec(reply.body)
  expect(match, reply.body).not.toBeNull()
  expectSecure(reply)
  return match![1]!
}
