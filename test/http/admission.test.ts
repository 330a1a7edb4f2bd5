// C6 checks 1–4, each answering before the next runs and before Hermes is asked: Buddy absent,
// unknown path or method, the same-origin rule, then content type, size and shape of the body.
// Every refusal leaves the fake gateway's log empty and the journal untouched.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import type { BuddyConfigShape } from "../../src/services/BuddyConfig.js"
import { bodies, expectAnswer, expectSecure, headerValues, line, startedHandle } from "./support/answers.js"
import { HERMES_CARD, hermesHttp } from "./support/fake.js"
import {
  BUDDY,
  CANCEL,
  get,
  handleBody,
  type HeaderList,
  host,
  hostedConfig,
  LAUNCHPAD,
  OPENAPI,
  POLL,
  post,
  rawExchange,
  sameOrigin,
  send,
  serve,
  SIGN_OUT,
  START,
  STATUS
} from "./support/server.js"

const json: HeaderList = [["Content-Type", "application/json"]]
const OTHER_HANDLE = "0123456789abcdef0123456789abcdef"

/** A fake gateway, the app on it, and a sign-in held by `handle`; the fake's log cleared after. */
const withHeldSignIn = Effect.gen(function*() {
  const fake = yield* makeFakeGateway()
  const served = yield* serve(hostedConfig(fake.home))
  const handle = startedHandle(yield* post(served.port, START, "{}"))
  const journalBefore = yield* served.journal
  expect(journalBefore).toStrictEqual([line("start", "pending")])
  fake.clearReceived()
  return { fake, ...served, handle, journalBefore }
})

/** The four POST routes, each with a body it would accept from the Launchpad. */
const postRoutes = (handle: string): ReadonlyArray<readonly [string, string]> => [
  [START, "{}"],
  [POLL, handleBody(handle)],
  [CANCEL, handleBody(handle)],
  [SIGN_OUT, "{}"]
]

describe("check 1: no Buddy here", () => {
  const absent: Array<[string, Partial<BuddyConfigShape>]> = [
    ["a hosted personal environment without a Buddy origin", { buddyOrigin: undefined }],
    ["an Organization's personal environment", { environment: "hosted-organization-personal" }],
    ["an Organization's team environment", { environment: "hosted-organization-team" }],
    ["a workstation (local)", { environment: "local" }]
  ]
  for (const [name, overrides] of absent) {
    it.scopedLive(`on ${name} every route is 404 buddy-absent, before 405 and the origin check, Hermes never asked`, () =>
      Effect.gen(function*() {
        const fake = yield* makeFakeGateway({ signedIn: true })
        const { journal, port } = yield* serve(hostedConfig(fake.home, overrides))
        const bad: HeaderList = [["Origin", "https://evil.example"], ["Sec-Fetch-Site", "cross-site"], ...json]
        const replies = [
          yield* get(port, STATUS),
          yield* get(port, `${STATUS}?x=1`),
          yield* get(port, OPENAPI),
          ...(yield* Effect.forEach(postRoutes(OTHER_HANDLE), ([path, body]) => post(port, path, body))),
          ...(yield* Effect.forEach(postRoutes(OTHER_HANDLE), ([path, body]) => post(port, path, body, bad))),
          yield* get(port, POLL),
          yield* get(port, START),
          yield* post(port, STATUS, "{}"),
          yield* send(port, { method: "DELETE", path: POLL, headers: [host(port)] }),
          yield* get(port, "/api/buddy/x"),
          yield* get(port, "/api/buddy/"),
          yield* get(port, "/api/buddy/sign-in"),
          yield* post(port, "/api/buddy/x", "{}"),
          yield* post(port, START, "{}", [...sameOrigin, ["Content-Type", "text/plain"]]),
          yield* post(port, POLL, "[]")
        ]
        for (const reply of replies) expectAnswer(reply, 404, bodies.absent)
        const declared = yield* rawExchange(
          port,
          `POST ${START} HTTP/1.1\r\nHost: x\r\nOrigin: ${LAUNCHPAD}\r\nSec-Fetch-Site: same-origin\r\n` +
            "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        )
        expectAnswer(declared, 404, bodies.absent)
        expect(fake.received).toStrictEqual([])
        expect(yield* journal).toStrictEqual([])
      }))
  }
})

describe("check 2: unknown paths and wrong methods", () => {
  it.scopedLive("unknown paths under /api/buddy are 404 not-found, before the origin check", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      for (const path of ["/api/buddy/x", "/api/buddy/", "/api/buddy/sign-in", "/api/buddy/x?y=1", "/api/buddy//"]) {
        expectAnswer(yield* get(port, path), 404, bodies.notFound)
        expectAnswer(yield* post(port, path, "{}"), 404, bodies.notFound)
        expectAnswer(yield* post(port, path, "{}", [["Origin", "https://evil.example"]]), 404, bodies.notFound)
      }
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("poll accepts only POST: GET, PUT and DELETE are 405 with Allow: POST", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      for (const method of ["GET", "PUT", "DELETE"]) {
        const reply = yield* send(port, { method, path: POLL, headers: [host(port), ...sameOrigin] })
        expectAnswer(reply, 405, bodies.methodNotAllowed)
        expect(headerValues(reply, "allow"), method).toStrictEqual(["POST"])
      }
      // With a body a poll would accept, and from anywhere: still 405, before the origin check.
      const put = yield* send(port, {
        method: "PUT",
        path: POLL,
        headers: [host(port), ["Origin", "https://evil.example"], ...json, ["Content-Length", "2"]],
        body: "{}"
      })
      expectAnswer(put, 405, bodies.methodNotAllowed)
      expect(headerValues(put, "allow")).toStrictEqual(["POST"])
      expect(fake.received).toStrictEqual([])
      expect(yield* journal).toStrictEqual([])
    }))

  it.scopedLive("every other route answers its own Allow for a wrong method", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      const cases: Array<[string, string, string]> = [
        ["POST", STATUS, "GET, HEAD"],
        ["DELETE", STATUS, "GET, HEAD"],
        ["POST", OPENAPI, "GET, HEAD"],
        ["GET", START, "POST"],
        ["GET", CANCEL, "POST"],
        ["GET", SIGN_OUT, "POST"],
        ["PATCH", SIGN_OUT, "POST"],
        ["OPTIONS", START, "POST"],
        ["GET", `${POLL}?handle=${OTHER_HANDLE}`, "POST"]
      ]
      for (const [method, path, allow] of cases) {
        const reply = method === "POST"
          ? yield* post(port, path, "{}")
          : yield* send(port, { method, path, headers: [host(port)] })
        expectAnswer(reply, 405, bodies.methodNotAllowed)
        expect(headerValues(reply, "allow"), `${method} ${path}`).toStrictEqual([allow])
      }
      // POST /api/buddy from a foreign page: the method is wrong before the origin is.
      const foreign = yield* post(port, STATUS, "{}", [["Origin", "https://evil.example"], ...json])
      expectAnswer(foreign, 405, bodies.methodNotAllowed)
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("HEAD is answered wherever GET is: its status and headers, no body; a POST path's HEAD is 405 (D52)", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home))
      /** The header lines but Date, which moves between two answers. */
      const lines = (reply: { readonly rawHeaders: HeaderList }) =>
        reply.rawHeaders.filter(([name]) => name.toLowerCase() !== "date")
      for (const path of [STATUS, OPENAPI, `${STATUS}?tab=1`]) {
        const got = yield* get(port, path)
        fake.clearReceived()
        const head = yield* send(port, { method: "HEAD", path, headers: [host(port)] })
        expect([path, head.status, head.body]).toStrictEqual([path, got.status, ""])
        expect(got.status).toBe(200)
        expect(lines(head)).toStrictEqual(lines(got))
        expect(headerValues(head, "content-length")).toStrictEqual([String(Buffer.byteLength(got.body))])
        expectSecure(head)
        // Buddy's state read for it as for GET: one fresh card (C5); the document asks nothing.
        expect(hermesHttp(fake)).toStrictEqual(path === OPENAPI ? [] : [HERMES_CARD])
      }
      fake.clearReceived()
      for (const path of [START, POLL, CANCEL, SIGN_OUT]) {
        const head = yield* send(port, { method: "HEAD", path, headers: [host(port), ...sameOrigin] })
        const got = yield* send(port, { method: "GET", path, headers: [host(port), ...sameOrigin] })
        expect([path, head.status, head.body, got.status]).toStrictEqual([path, 405, "", 405])
        expect(headerValues(head, "allow"), path).toStrictEqual(["POST"])
        expect(lines(head)).toStrictEqual(lines(got))
      }
      const unknown = yield* send(port, { method: "HEAD", path: "/api/buddy/x", headers: [host(port)] })
      expect([unknown.status, unknown.body]).toStrictEqual([404, ""])
      expect(headerValues(unknown, "content-length")).toStrictEqual([String(bodies.notFound.length)])
      expect(fake.received).toStrictEqual([])
      expect(yield* journal).toStrictEqual([])
    }))

  it.scopedLive("HEAD where Buddy is absent is GET's 404 buddy-absent, without its body", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home, { buddyOrigin: undefined }))
      const head = yield* send(port, { method: "HEAD", path: STATUS, headers: [host(port)] })
      expect([head.status, head.body]).toStrictEqual([404, ""])
      expect(headerValues(head, "content-length")).toStrictEqual([String(bodies.absent.length)])
      expect(fake.received).toStrictEqual([])
    }))
})

describe("check 3: the same-origin rule refuses every POST but the Launchpad's own page's", () => {
  const refusedHeaders: Array<[string, HeaderList]> = [
    ["no Origin", [["Sec-Fetch-Site", "same-origin"]]],
    ["Origin: null", [["Origin", "null"], ["Sec-Fetch-Site", "same-origin"]]],
    ["Buddy's own origin", [["Origin", BUDDY], ["Sec-Fetch-Site", "same-origin"]]],
    ["a longer host", [["Origin", "https://launchpad.example.evil.com"], ["Sec-Fetch-Site", "same-origin"]]],
    ["a trailing dot", [["Origin", "https://launchpad.example."], ["Sec-Fetch-Site", "same-origin"]]],
    ["http instead of https", [["Origin", "http://launchpad.example"], ["Sec-Fetch-Site", "same-origin"]]],
    ["the default port spelt out", [["Origin", "https://launchpad.example:443"], ["Sec-Fetch-Site", "same-origin"]]],
    ["a trailing slash", [["Origin", "https://launchpad.example/"], ["Sec-Fetch-Site", "same-origin"]]],
    ["upper case", [["Origin", "HTTPS://LAUNCHPAD.EXAMPLE"], ["Sec-Fetch-Site", "same-origin"]]],
    ["a user info prefix", [["Origin", "https://user@launchpad.example"], ["Sec-Fetch-Site", "same-origin"]]],
    ["two Origin headers, both right", [["Origin", LAUNCHPAD], ["Origin", LAUNCHPAD], [
      "Sec-Fetch-Site",
      "same-origin"
    ]]],
    ["two Origin headers, one foreign", [["Origin", "https://evil.example"], ["Origin", LAUNCHPAD], [
      "Sec-Fetch-Site",
      "same-origin"
    ]]],
    ["Sec-Fetch-Site missing", [["Origin", LAUNCHPAD]]],
    ["Sec-Fetch-Site: same-site", [["Origin", LAUNCHPAD], ["Sec-Fetch-Site", "same-site"]]],
    ["Sec-Fetch-Site: cross-site", [["Origin", LAUNCHPAD], ["Sec-Fetch-Site", "cross-site"]]],
    ["Sec-Fetch-Site: none", [["Origin", LAUNCHPAD], ["Sec-Fetch-Site", "none"]]],
    ["Sec-Fetch-Site: Same-Origin", [["Origin", LAUNCHPAD], ["Sec-Fetch-Site", "Same-Origin"]]],
    ["two Sec-Fetch-Site headers", [["Origin", LAUNCHPAD], ["Sec-Fetch-Site", "same-origin"], [
      "Sec-Fetch-Site",
      "same-origin"
    ]]],
    ["Buddy's origin with same-site", [["Origin", BUDDY], ["Sec-Fetch-Site", "same-site"]]],
    ["a foreign origin, cross-site", [["Origin", "https://evil.example"], ["Sec-Fetch-Site", "cross-site"]]],
    ["neither header", []]
  ]

  for (const [name, headers] of refusedHeaders) {
    it.scopedLive(`${name}: 403 origin-mismatch on all four POST routes, Hermes never asked`, () =>
      Effect.gen(function*() {
        const { fake, handle, journal, journalBefore, port } = yield* withHeldSignIn
        for (const [path, body] of postRoutes(handle)) {
          expectAnswer(yield* post(port, path, body, [...headers, ...json]), 403, bodies.denied)
        }
        expect(fake.received).toStrictEqual([])
        expect(yield* journal).toStrictEqual(journalBefore)
        // Nothing changed: the holder still polls pending.
        expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.pending)
      }))
  }

  it.scopedLive("a config whose Launchpad origin is Buddy's own refuses even a perfect POST", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { journal, port } = yield* serve(hostedConfig(fake.home, { launchpadOrigin: BUDDY }))
      const handle = OTHER_HANDLE
      for (const [path, body] of postRoutes(handle)) {
        for (const origin of [BUDDY, LAUNCHPAD]) {
          const headers: HeaderList = [["Origin", origin], ["Sec-Fetch-Site", "same-origin"], ...json]
          expectAnswer(yield* post(port, path, body, headers), 403, bodies.denied)
        }
      }
      expect(fake.received).toStrictEqual([])
      expect(yield* journal).toStrictEqual([])
      // Status reads are not POSTs and still answer.
      expectAnswer(yield* get(port, STATUS), 200, bodies.status("waits", "none"))
    }))

  it.scopedLive("the Launchpad's own page passes on all four routes", () =>
    Effect.gen(function*() {
      const { fake, handle, journal, port } = yield* withHeldSignIn
      expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.pending)
      expectAnswer(yield* post(port, CANCEL, handleBody(handle)), 200, bodies.ended("cancelled"))
      expectAnswer(yield* post(port, SIGN_OUT, "{}"), 200, bodies.signedOut)
      startedHandle(yield* post(port, START, "{}"))
      expect(fake.received).not.toStrictEqual([])
      expect(yield* journal).toStrictEqual([
        line("start", "pending"),
        line("poll", "pending"),
        line("cancel", "cancelled"),
        line("sign-out", "signed-out"),
        line("start", "pending")
      ])
    }))
})

describe("check 4: the content type", () => {
  const refusedTypes: Array<[string, HeaderList]> = [
    ["no Content-Type", []],
    ["text/plain", [["Content-Type", "text/plain"]]],
    ["application/json5", [["Content-Type", "application/json5"]]],
    ["application/jsonx", [["Content-Type", "application/jsonx"]]],
    ["application/x-www-form-urlencoded", [["Content-Type", "application/x-www-form-urlencoded"]]],
    ["multipart/form-data", [["Content-Type", "multipart/form-data; boundary=x"]]],
    ["application/problem+json", [["Content-Type", "application/problem+json"]]],
    ["an empty Content-Type", [["Content-Type", ""]]]
  ]
  for (const [name, headers] of refusedTypes) {
    it.scopedLive(`${name}: 415 invalid-content-type on all four POST routes, Hermes never asked`, () =>
      Effect.gen(function*() {
        const { fake, handle, journal, journalBefore, port } = yield* withHeldSignIn
        for (const [path, body] of postRoutes(handle)) {
          expectAnswer(yield* post(port, path, body, [...sameOrigin, ...headers]), 415, bodies.contentType)
        }
        expect(fake.received).toStrictEqual([])
        expect(yield* journal).toStrictEqual(journalBefore)
      }))
  }

  it.scopedLive("application/json with parameters and in any case is accepted", () =>
    Effect.gen(function*() {
      const { handle, port } = yield* withHeldSignIn
      for (const type of ["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"]) {
        const headers: HeaderList = [...sameOrigin, ["Content-Type", type]]
        expectAnswer(yield* post(port, POLL, handleBody(handle), headers), 200, bodies.pending)
      }
      startedHandle(yield* post(port, START, "{}", [...sameOrigin, ["Content-Type", "Application/JSON"]]))
    }))
})

const head = (path: string, headers: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${LAUNCHPAD}\r\nSec-Fetch-Site: same-origin\r\n${headers}\r\n`

describe("check 4: the body's size", () => {
  it.scopedLive("a declared Content-Length over 16384 is 413 before a byte of the body is sent", () =>
    Effect.gen(function*() {
      const { fake, journal, journalBefore, port } = yield* withHeldSignIn
      for (const path of [START, POLL, CANCEL, SIGN_OUT]) {
        const reply = yield* rawExchange(
          port,
          head(path, "Content-Type: application/json\r\nContent-Length: 16385\r\n")
        )
        expectAnswer(reply, 413, bodies.tooLarge)
        expect(reply.raw).toMatch(/^HTTP\/1\.1 413 /)
        expect(headerValues(reply, "connection")).toStrictEqual(["close"])
      }
      const huge = yield* rawExchange(
        port,
        head(START, "Content-Type: application/json\r\nContent-Length: 99999999999\r\n")
      )
      expectAnswer(huge, 413, bodies.tooLarge)
      expect(fake.received).toStrictEqual([])
      expect(yield* journal).toStrictEqual(journalBefore)
    }))

  it.scopedLive("a whole body of 16385 bytes is 413", () =>
    Effect.gen(function*() {
      const { fake, handle, port } = yield* withHeldSignIn
      const body = handleBody(handle).padEnd(16385, " ")
      expectAnswer(yield* post(port, POLL, body), 413, bodies.tooLarge)
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("a chunked body that passes 16 KiB and keeps streaming gets its 413 before the connection closes", () =>
    Effect.gen(function*() {
      const { fake, port } = yield* withHeldSignIn
      const chunk = Buffer.alloc(4096, 0x20)
      let sent = 0
      const reply = yield* rawExchange(
        port,
        head(START, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"),
        async (write, answered) => {
          // Keep sending (up to 8 MiB) until the answer arrives: the server must answer mid-body.
          while (!answered() && sent < 8 * 1024 * 1024) {
            if (!(await write(Buffer.concat([Buffer.from("1000\r\n"), chunk, Buffer.from("\r\n")])))) return
            sent += chunk.length
          }
        }
      )
      expectAnswer(reply, 413, bodies.tooLarge)
      expect(headerValues(reply, "connection")).toStrictEqual(["close"])
      expect(sent).toBeGreaterThan(16384)
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("exactly 16384 bytes of valid JSON are accepted, declared or chunked", () =>
    Effect.gen(function*() {
      const { fake, handle, port } = yield* withHeldSignIn
      const body = handleBody(handle).padEnd(16384, " ")
      expect(Buffer.byteLength(body)).toBe(16384)
      expectAnswer(yield* post(port, POLL, body), 200, bodies.pending)
      const pieces = [body.slice(0, 10000), body.slice(10000)]
      const chunked = pieces.map((piece) => `${piece.length.toString(16)}\r\n${piece}\r\n`).join("") + "0\r\n\r\n"
      const reply = yield* rawExchange(
        port,
        head(POLL, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n") + chunked
      )
      expectAnswer(reply, 200, bodies.pending)
      const sixteenK = "{}".padEnd(16384, " ")
      startedHandle(yield* post(port, START, sixteenK))
      // Two polls, then the start's poll of the held sign-in (C4.7), its cancel, and the start.
      expect(fake.received.filter((entry) => entry.channel === "http")).toHaveLength(5)
    }))
})

describe("check 4: the body's shape", () => {
  const invalidUtf8 = Buffer.concat([Buffer.from("{\"handle\":\""), Buffer.from([0xff, 0xfe]), Buffer.from("\"}")])
  const invalidRequests: Array<[string, (handle: string) => string | Uint8Array]> = [
    ["an empty body", () => ""],
    ["not JSON", () => "handle=abc"],
    ["truncated JSON", (handle) => handleBody(handle).slice(0, -1)],
    ["invalid UTF-8", () => invalidUtf8],
    ["a UTF-8 byte order mark", (handle) => `\uFEFF${handleBody(handle)}`],
    ["a JSON array", (handle) => JSON.stringify([handle])],
    ["null", () => "null"],
    ["a string", (handle) => JSON.stringify(handle)],
    ["an extra key", (handle) => JSON.stringify({ handle, x: 1 })],
    ["another key only", () => "{\"x\":1}"],
    ["no key", () => "{}"],
    ["a handle that is a number", () => "{\"handle\":1}"],
    ["a handle that is null", () => "{\"handle\":null}"],
    ["a handle in an array", (handle) => JSON.stringify({ handle: [handle] })]
  ]
  for (const [name, body] of invalidRequests) {
    it.scopedLive(`poll and cancel with ${name}: 400 invalid-request, Hermes never asked`, () =>
      Effect.gen(function*() {
        const { fake, handle, journal, journalBefore, port } = yield* withHeldSignIn
        expectAnswer(yield* post(port, POLL, body(handle)), 400, bodies.invalidRequest)
        expectAnswer(yield* post(port, CANCEL, body(handle)), 400, bodies.invalidRequest)
        expect(fake.received).toStrictEqual([])
        expect(yield* journal).toStrictEqual(journalBefore)
      }))
  }

  const invalidEmpty: Array<[string, string | Uint8Array]> = [
    ["an empty body", ""],
    ["not JSON", "{"],
    ["invalid UTF-8", Buffer.from([0x7b, 0xff, 0x7d])],
    ["null", "null"]
  ]
  for (const [name, body] of invalidEmpty) {
    it.scopedLive(`start and sign-out with ${name}: 400 invalid-request, Hermes never asked`, () =>
      Effect.gen(function*() {
        const { fake, journal, journalBefore, port } = yield* withHeldSignIn
        expectAnswer(yield* post(port, START, body), 400, bodies.invalidRequest)
        expectAnswer(yield* post(port, SIGN_OUT, body), 400, bodies.invalidRequest)
        expect(fake.received).toStrictEqual([])
        expect(yield* journal).toStrictEqual(journalBefore)
      }))
  }

  const invalidHandles: Array<[string, (handle: string) => string]> = [
    ["upper-case hex", (handle) => handle.toUpperCase().replace(/^[0-9]/, "A")],
    ["31 chars", (handle) => handle.slice(1)],
    ["33 chars", (handle) => `${handle}0`],
    ["non-hex", (handle) => `g${handle.slice(1)}`],
    ["empty", () => ""],
    ["surrounding space", (handle) => ` ${handle}`],
    ["a trailing newline", (handle) => `${handle}\n`]
  ]
  for (const [name, mangle] of invalidHandles) {
    it.scopedLive(`a handle with ${name}: 400 invalid-handle on poll and cancel, Hermes never asked`, () =>
      Effect.gen(function*() {
        const { fake, handle, journal, journalBefore, port } = yield* withHeldSignIn
        const wrong = mangle(handle)
        expect(wrong).not.toMatch(/^[0-9a-f]{32}$/)
        expectAnswer(yield* post(port, POLL, handleBody(wrong)), 400, bodies.invalidHandle)
        expectAnswer(yield* post(port, CANCEL, handleBody(wrong)), 400, bodies.invalidHandle)
        expect(fake.received).toStrictEqual([])
        expect(yield* journal).toStrictEqual(journalBefore)
        expectAnswer(yield* post(port, POLL, handleBody(handle)), 200, bodies.pending)
      }))
  }
})

describe("the order of the checks", () => {
  it.scopedLive("each refusal is the first check that fails", () =>
    Effect.gen(function*() {
      const { fake, handle, journal, journalBefore, port } = yield* withHeldSignIn
      const foreign: HeaderList = [["Origin", "https://evil.example"], ["Sec-Fetch-Site", "cross-site"]]
      const text: HeaderList = [["Content-Type", "text/plain"]]
      // wrong origin and wrong content type → 403
      expectAnswer(yield* post(port, START, "{}", [...foreign, ...text]), 403, bodies.denied)
      // wrong origin and the holder's own poll → 403
      expectAnswer(yield* post(port, POLL, handleBody(handle), [...foreign, ...json]), 403, bodies.denied)
      // wrong origin and an invalid body → 403
      expectAnswer(yield* post(port, POLL, "nope", [...foreign, ...json]), 403, bodies.denied)
      // wrong origin and too large (declared, no body sent) → 403
      const tooLargeForeign = yield* rawExchange(
        port,
        `POST ${START} HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\nContent-Type: application/json\r\n` +
          "Content-Length: 20000\r\n\r\n"
      )
      expectAnswer(tooLargeForeign, 403, bodies.denied)
      // wrong content type and too large → 415
      const tooLargeText = yield* rawExchange(
        port,
        head(START, "Content-Type: text/plain\r\nContent-Length: 20000\r\n")
      )
      expectAnswer(tooLargeText, 415, bodies.contentType)
      expectAnswer(yield* post(port, POLL, "x".repeat(20000), [...sameOrigin, ...text]), 415, bodies.contentType)
      // wrong content type and invalid JSON → 415
      expectAnswer(yield* post(port, POLL, "nope", [...sameOrigin, ...text]), 415, bodies.contentType)
      // too large and invalid JSON → 413
      expectAnswer(yield* post(port, POLL, "x".repeat(16385)), 413, bodies.tooLarge)
      // an extra key and an invalid handle → 400 invalid-request
      expectAnswer(yield* post(port, POLL, "{\"handle\":\"XYZ\",\"x\":1}"), 400, bodies.invalidRequest)
      // a well-formed handle that is not the holder's reaches SignIn: 409
      expectAnswer(yield* post(port, POLL, handleBody(OTHER_HANDLE)), 409, bodies.blocked("sign-in-unknown"))
      expect(fake.received).toStrictEqual([])
      expect(yield* journal).toStrictEqual([...journalBefore, line("poll", "blocked", "sign-in-unknown")])
    }))
})
