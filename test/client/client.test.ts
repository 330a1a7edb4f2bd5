// buddy/client against the real app on 127.0.0.1 and the fake gateway (D20). Node's fetch stands
// in for the page's: a test-only wrapper adds what a browser adds by itself on a same-origin
// request (the page's origin before the path, Origin on a POST, Sec-Fetch-Site), so the client is
// seen to set none of it. Every known answer becomes its closed result, 403 to 503 included, and
// neither a failed request nor an unknown answer throws. `hold` polls until Hermes ends it.
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fsp from "node:fs/promises"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { readBody } from "../../src/client/decode.js"
import { type Fetch, type FetchInit, makeBuddyClient, maxPollBackoff, type PollResult } from "../../src/client/index.js"
import { operations } from "../../src/schema/routes.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { SignIn } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import {
  HERMES_CANCEL,
  HERMES_CARD,
  HERMES_POLL,
  HERMES_SIGN_OUT,
  HERMES_START,
  hermesHttp
} from "../http/support/fake.js"
import { emptyHome, hostedConfig, LAUNCHPAD, serve, serveWith } from "../http/support/server.js"
import { bodyOfText, decodeText as decodeAnswer } from "./support/decode-text.js"

const CODE = "ABCD-EFGHK"
const PAGE = "https://auth.openai.com/codex/device"
const OTHER = "0123456789abcdef0123456789abcdef"

/** What each request the client made looked like before the wrapper added the browser's part. */
type Asked = { readonly url: string; readonly init: FetchInit }

/**
 * The browser's part of a same-origin fetch, over Node's fetch: the page's origin before the
 * path, `Origin` on a POST, `Sec-Fetch-Site: same-origin`. `tamper` changes a request on its way
 * (to provoke an answer the client never asks for by itself).
 */
const browserFetch = (
  port: number,
  asked: Array<Asked> = [],
  tamper: (init: FetchInit) => FetchInit = (init) => init
): Fetch =>
(url, init) => {
  asked.push({ url, init })
  const sent = tamper(init)
  return fetch(`http://127.0.0.1:${port}${url}`, {
    ...sent,
    headers: {
      ...sent.headers,
      "sec-fetch-site": "same-origin",
      ...(sent.method === "POST" ? { origin: LAUNCHPAD } : {})
    }
  })
}

const clientOn = (port: number, asked?: Array<Asked>, tamper?: (init: FetchInit) => FetchInit) =>
  makeBuddyClient({ fetch: browserFetch(port, asked, tamper), pollInterval: 20 })

const call = <A>(promise: () => Promise<A>) => Effect.promise(promise)

/**
 * A fetch that ends any hold once `requests` have been made: it stops the hold given its `signal`, and
 * from then on answers as the Launchpad's front door does (a 401), on which a hold settles. A hold
 * this test expects to end does so in a few polls, so a client that never settles or never stops (a
 * mutant's, D11) ends within a bound, with what the test does not expect, instead of polling until
 * the test times out.
 */
const bounded = (fetch: Fetch, requests: number) => {
  const stop = new AbortController()
  let made = 0
  const counted: Fetch = (url, init) => {
    made += 1
    if (made >= requests) stop.abort()
    return made > requests ? Promise.resolve({ status: 401, text: () => Promise.resolve("") }) : fetch(url, init)
  }
  return { fetch: counted, signal: stop.signal }
}

/** What `promise` settled with by now, if it has: a fake-timer test never awaits a hold that may not end. */
const settledBy = <A>(promise: Promise<A>) => {
  const seen: { value?: A } = {}
  void promise.then((value) => {
    seen.value = value
  })
  return seen
}

/** A server answering every request with this status and body, for answers the app never gives. */
const answering = (status: number, body: string) =>
  Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((_, response) => {
        response.writeHead(status, { "content-type": "application/json" })
        response.end(body)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => (server.address() as AddressInfo).port))

describe("buddy/client against the app", () => {
  it.scopedLive("status, start, poll, cancel and sign-out decode their answers; Hermes is asked each", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      const asked: Array<Asked> = []
      const buddy = clientOn(port, asked)
      expect(yield* call(buddy.status)).toStrictEqual({
        kind: "buddy",
        state: "waits",
        signIn: { state: "none" },
        locale: "cs"
      })
      const started = yield* call(buddy.start)
      expect(started).toMatchObject({ kind: "sign-in", state: "pending", code: CODE, page: PAGE })
      const handle = started.kind === "sign-in" ? started.handle : ""
      expect(handle).toMatch(/^[0-9a-f]{32}$/)
      expect(yield* call(() => buddy.poll(handle))).toStrictEqual({
        kind: "sign-in",
        state: "pending",
        code: CODE,
        page: PAGE
      })
      expect(yield* call(buddy.status)).toMatchObject({ signIn: { state: "pending" } })
      expect(yield* call(() => buddy.cancel(handle))).toStrictEqual({ kind: "sign-in", state: "cancelled" })
      expect(yield* call(() => buddy.poll(handle))).toStrictEqual({ kind: "sign-in", state: "cancelled" })
      expect(yield* call(buddy.signOut)).toStrictEqual({ kind: "sign-out", state: "signed-out" })
      // The status read polls the held sign-in before the card (C5); the cancel polls before it cancels (C4.7).
      expect(hermesHttp(fake)).toStrictEqual([
        HERMES_CARD,
        HERMES_START,
        HERMES_POLL,
        HERMES_POLL,
        HERMES_CARD,
        HERMES_POLL,
        HERMES_CANCEL,
        HERMES_SIGN_OUT
      ])

      // What the client itself asked for: the routes under /api/buddy, the same-origin credentials,
      // JSON on a POST, and no Origin or Sec-Fetch-Site of its own (the browser's to send).
      expect(asked.map(({ init, url }) => `${init.method} ${url} ${init.body ?? ""}`)).toStrictEqual([
        "GET /api/buddy ",
        "POST /api/buddy/sign-in/start {}",
        `POST /api/buddy/sign-in/poll {"handle":"${handle}"}`,
        "GET /api/buddy ",
        `POST /api/buddy/sign-in/cancel {"handle":"${handle}"}`,
        `POST /api/buddy/sign-in/poll {"handle":"${handle}"}`,
        "POST /api/buddy/sign-out {}"
      ])
      for (const { init } of asked) {
        expect(init).toMatchObject({ credentials: "same-origin", redirect: "manual", cache: "no-store" })
        expect(init.headers).toStrictEqual(init.method === "POST" ? { "content-type": "application/json" } : {})
      }
    }))

  it.scopedLive("403 denied, 400 invalid-handle, 409 blocked, 405, 413 and 415 are closed results", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ contract: false })
      const { port } = yield* serve(hostedConfig(fake.home))
      // Node's own fetch, without the browser's headers: the same-origin rule refuses it.
      const bare = makeBuddyClient({ fetch: (url, init) => fetch(`http://127.0.0.1:${port}${url}`, init) })
      expect(yield* call(bare.start)).toStrictEqual({ kind: "denied", reason: "origin-mismatch" })
      const buddy = clientOn(port)
      expect(yield* call(() => buddy.poll("ABC"))).toStrictEqual({ kind: "error", error: "invalid-handle" })
      expect(yield* call(() => buddy.poll(OTHER))).toStrictEqual({ kind: "blocked", reason: "sign-in-unknown" })
      expect(yield* call(buddy.start)).toStrictEqual({ kind: "blocked", reason: "hermes-outdated" })
      const asGet = clientOn(port, [], ({ cache, credentials, headers, redirect }) => ({
        method: "GET",
        credentials,
        headers,
        redirect,
        cache
      }))
      expect(yield* call(() => asGet.poll(OTHER))).toStrictEqual({ kind: "error", error: "method-not-allowed" })
      const padded = clientOn(port, [], (init) => ({ ...init, body: `${init.body ?? ""}${" ".repeat(16 * 1024)}` }))
      expect(yield* call(padded.start)).toStrictEqual({ kind: "error", error: "body-too-large" })
      const asText = clientOn(port, [], (init) => ({ ...init, headers: { "content-type": "text/plain" } }))
      expect(yield* call(asText.signOut)).toStrictEqual({ kind: "error", error: "invalid-content-type" })
      const asArray = clientOn(port, [], (init) => ({ ...init, body: "[]" }))
      expect(yield* call(asArray.signOut)).toStrictEqual({ kind: "error", error: "invalid-request" })
      expect(hermesHttp(fake)).toStrictEqual([])
    }))

  it.scopedLive("409 lock-unavailable is a closed result of start and sign-out", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      yield* Effect.promise(() => fsp.symlink(fake.home, path.join(fake.home, ".buddy-lock")))
      fake.clearReceived()
      const buddy = clientOn(port)
      expect(yield* call(buddy.start)).toStrictEqual({ kind: "blocked", reason: "lock-unavailable" })
      expect(yield* call(buddy.signOut)).toStrictEqual({ kind: "blocked", reason: "lock-unavailable" })
      expect(fake.received).toStrictEqual([])
      // Not poll's or cancel's to give: from them it is no answer the table knows.
      const body = "{\"kind\":\"blocked\",\"reason\":\"lock-unavailable\"}"
      expect(decodeAnswer(operations.pollSignIn, 409, body)).toStrictEqual({ kind: "unknown-answer", status: 409 })
      expect(decodeAnswer(operations.cancelSignIn, 409, body)).toStrictEqual({ kind: "unknown-answer", status: 409 })
      expect(decodeAnswer(operations.signOut, 409, body)).toStrictEqual({ kind: "blocked", reason: "lock-unavailable" })
    }))

  it.scopedLive("404 buddy-absent and not-found, and 503 unavailable with the gateway's reason", () =>
    Effect.gen(function*() {
      const home = yield* emptyHome
      const absent = yield* serve(hostedConfig(home, { environment: "hosted-organization-team" }))
      expect(yield* call(clientOn(absent.port).status)).toStrictEqual({ kind: "error", error: "buddy-absent" })
      const { port } = yield* serve(hostedConfig(home))
      expect(yield* call(clientOn(port).signOut)).toStrictEqual({ kind: "unavailable", reason: "not-running" })
      const elsewhere = makeBuddyClient({ root: "/api/buddy/v2", fetch: browserFetch(port) })
      expect(yield* call(elsewhere.status)).toStrictEqual({ kind: "error", error: "not-found" })
    }))

  it.scopedLive("500 operation-failed when the app meets the unforeseen", () =>
    Effect.gen(function*() {
      const failing = SignIn.of({
        start: Effect.dieMessage("boom"),
        poll: () => Effect.dieMessage("boom"),
        cancel: () => Effect.dieMessage("boom"),
        signOut: Effect.dieMessage("boom"),
        current: Effect.succeed("none")
      })
      const { port } = yield* serveWith(
        Layer.mergeAll(
          Layer.succeed(SignIn, failing),
          Layer.succeed(Status, Status.of({ read: Effect.succeed({ state: "waits" }) })),
          BuddyConfig.gatewayLayer(hostedConfig(undefined))
        )
      )
      const buddy = clientOn(port)
      expect(yield* call(buddy.start)).toStrictEqual({ kind: "error", error: "operation-failed" })
      expect(yield* call(() => buddy.poll(OTHER))).toStrictEqual({ kind: "error", error: "operation-failed" })
    }))
})

describe("buddy/client with no answer it knows", () => {
  it.scopedLive("a request that fails is network-failed: refused connection, a throwing fetch, a body cut short", () =>
    Effect.gen(function*() {
      // Port 1 on loopback: nothing listens, the connection is refused.
      const refused = makeBuddyClient({ fetch: (url, init) => fetch(`http://127.0.0.1:1${url}`, init) })
      expect(yield* call(refused.status)).toStrictEqual({ kind: "network-failed" })
      const throwing = makeBuddyClient({
        fetch: () => {
          throw new TypeError("no fetch here")
        }
      })
      expect(yield* call(throwing.start)).toStrictEqual({ kind: "network-failed" })
      const cut = makeBuddyClient({
        fetch: () => Promise.resolve({ status: 200, text: () => Promise.reject(new TypeError("terminated")) })
      })
      expect(yield* call(() => cut.poll(OTHER))).toStrictEqual({ kind: "network-failed" })
    }))

  it.scopedLive("an answer of no known status and body is unknown-answer, with its status", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [number, string, "status" | "start" | "signOut"]> = [
        [200, "{\"kind\":\"buddy\",\"state\":\"waits\"}", "status"],
        [
          200,
          "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\",\"x\":1}",
          "status"
        ],
        [200, "{\"kind\":\"sign-out\",\"state\":\"signed-out\"}", "start"],
        [502, "<html>Bad Gateway</html>", "status"],
        [404, "{\"error\":\"invalid-handle\"}", "start"],
        [400, "{\"error\":\"invalid-handle\"}", "start"],
        [409, "{\"kind\":\"blocked\",\"reason\":\"sign-in-unknown\"}", "signOut"],
        [409, "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\",\"detail\":\"x\"}", "signOut"],
        [503, "{\"error\":\"buddy-unavailable\",\"reason\":\"Hermes said so\"}", "start"],
        [418, "{\"error\":\"operation-failed\"}", "status"]
      ]
      for (const [status, body, operation] of cases) {
        const port = yield* answering(status, body)
        const buddy = makeBuddyClient({ fetch: (url, init) => fetch(`http://127.0.0.1:${port}${url}`, init) })
        expect(yield* call((): Promise<unknown> => buddy[operation]()), `${status} ${body}`).toStrictEqual({
          kind: "unknown-answer",
          status
        })
      }
    }))
})

describe("the Launchpad's front door answering instead of buddy (C10)", () => {
  it.scopedLive("a 401, a 403 not buddy's, a redirect, a 200 page of HTML are front-door; a proxy's 502 page is not", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [number, string, "front-door" | "unknown-answer"]> = [
        [401, "{\"error\":\"denied\",\"reason\":\"cookie-invalid\"}", "front-door"],
        [401, "", "front-door"],
        [403, "<html><body>Sign in to Lazurio</body></html>", "front-door"],
        [302, "", "front-door"],
        [303, "<a href=\"/login\">See other</a>", "front-door"],
        [200, "\n  <!doctype html><title>Lazurio</title>", "front-door"],
        [502, "<html>Bad Gateway</html>", "unknown-answer"],
        [200, "Sign in", "unknown-answer"]
      ]
      for (const [status, body, kind] of cases) {
        const port = yield* answering(status, body)
        const buddy = makeBuddyClient({ fetch: (url, init) => fetch(`http://127.0.0.1:${port}${url}`, init) })
        for (const operation of ["status", "start", "signOut"] as const) {
          expect(yield* call((): Promise<unknown> => buddy[operation]()), `${status} ${body}`).toStrictEqual({
            kind,
            status
          })
        }
      }
      // A browser's opaque redirect (`redirect: "manual"`) has status 0.
      const opaque = makeBuddyClient({ fetch: () => Promise.resolve({ status: 0, text: () => Promise.resolve("") }) })
      expect(yield* call(opaque.status)).toStrictEqual({ kind: "front-door", status: 0 })
    }))

  it.scopedLive("hold stops on it, polling no more", () =>
    Effect.gen(function*() {
      let polls = 0
      const answers = [
        { status: 200, text: JSON.stringify({ kind: "sign-in", state: "pending", code: CODE, page: PAGE }) },
        { status: 302, text: "" }
      ]
      const { fetch, signal } = bounded(
        () =>
          Promise.resolve(answers[Math.min(polls++, 1)]!).then(({ status, text }) => ({
            status,
            text: () => Promise.resolve(text)
          })),
        10
      )
      const buddy = makeBuddyClient({ pollInterval: 5, fetch })
      const changes: Array<PollResult> = []
      const ended = yield* call(() => buddy.hold(OTHER, { signal, onChange: (result) => changes.push(result) }))
      expect(ended).toStrictEqual({ kind: "front-door", status: 302 })
      expect(changes).toStrictEqual([{ kind: "sign-in", state: "pending", code: CODE, page: PAGE }, ended])
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      expect(polls).toBe(2)
    }))

  it("the body a response is read as is JSON or text, as the tests' synchronous reading says", async () => {
    for (const text of ["{\"a\":1}", "[]", "null", "<html>", "", "{\"a\":", "  1 "]) {
      expect(await readBody(text), text).toStrictEqual(bodyOfText(text))
    }
    expect(await readBody("{\"a\":1}")).toStrictEqual({ json: { a: 1 } })
    expect(await readBody("<p>")).toStrictEqual({ text: "<p>" })
  })
})

describe("buddy/client hold backs off while nothing can be asked (D49)", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it("doubles its wait at each unavailable, failed or unknown poll, up to 30 s, and an answer resets it", async () => {
    vi.useFakeTimers()
    const unavailable = { status: 503, text: "{\"error\":\"buddy-unavailable\",\"reason\":\"not-running\"}" }
    const pending = { status: 200, text: JSON.stringify({ kind: "sign-in", state: "pending", code: CODE, page: PAGE }) }
    const ended = { status: 200, text: "{\"kind\":\"sign-in\",\"state\":\"expired\"}" }
    const script: Array<{ readonly status: number; readonly text: string } | "reject"> = [
      unavailable,
      "reject",
      { status: 418, text: "?" },
      unavailable,
      unavailable,
      unavailable,
      unavailable,
      pending,
      unavailable,
      pending,
      ended
    ]
    const at: Array<number> = []
    const started = Date.now()
    const buddy = makeBuddyClient({
      pollInterval: 1_000,
      fetch: () => {
        at.push(Date.now() - started)
        const next = script.shift()
        return next === undefined || next === "reject"
          ? Promise.reject(new Error("offline"))
          : Promise.resolve({ status: next.status, text: () => Promise.resolve(next.text) })
      }
    })
    const held = settledBy(buddy.hold(OTHER))
    await vi.advanceTimersByTimeAsync(200_000)
    expect(held.value).toStrictEqual({ kind: "sign-in", state: "expired" })
    const waits = at.map((time, index) => time - (at[index - 1] ?? 0))
    expect(waits).toStrictEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 1_000, 2_000, 1_000])
    expect(maxPollBackoff).toBe(30_000)
  })

  it("never waits less than its own interval, however long that is", async () => {
    vi.useFakeTimers()
    const at: Array<number> = []
    let polls = 0
    const buddy = makeBuddyClient({
      pollInterval: 40_000,
      fetch: () => {
        at.push(Date.now())
        polls += 1
        return Promise.resolve({
          status: polls < 3 ? 503 : 200,
          text: () =>
            Promise.resolve(
              polls < 3
                ? "{\"error\":\"buddy-unavailable\",\"reason\":\"timeout\"}"
                : "{\"kind\":\"sign-in\",\"state\":\"lost\"}"
            )
        })
      }
    })
    const start = Date.now()
    const held = settledBy(buddy.hold(OTHER))
    await vi.advanceTimersByTimeAsync(200_000)
    expect(held.value).toStrictEqual({ kind: "sign-in", state: "lost" })
    expect(at.map((time) => time - start)).toStrictEqual([40_000, 80_000, 120_000])
  })
})

describe("buddy/client hold settles on what no later poll can undo, and only on that (D49)", () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  const pending = { status: 200, text: JSON.stringify({ kind: "sign-in", state: "pending", code: CODE, page: PAGE }) }
  const lost = { status: 200, text: "{\"kind\":\"sign-in\",\"state\":\"lost\"}" }
  // Each first answer, and whether hold ends on it (else it polls again and ends on the lost one after).
  const firsts: ReadonlyArray<readonly [string, { readonly status: number; readonly text: string }, boolean]> = [
    ["pending", pending, false],
    ["an ending", { status: 200, text: "{\"kind\":\"sign-in\",\"state\":\"refused\"}" }, true],
    ["sign-in-unknown", { status: 409, text: "{\"kind\":\"blocked\",\"reason\":\"sign-in-unknown\"}" }, true],
    ["sign-in-running", { status: 409, text: "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}" }, false],
    ["denied", { status: 403, text: "{\"error\":\"denied\",\"reason\":\"origin-mismatch\"}" }, true],
    ["the front door", { status: 401, text: "" }, true],
    ["invalid-handle", { status: 400, text: "{\"error\":\"invalid-handle\"}" }, true],
    ["operation-failed", { status: 500, text: "{\"error\":\"operation-failed\"}" }, false],
    ["unavailable", { status: 503, text: "{\"error\":\"buddy-unavailable\",\"reason\":\"timeout\"}" }, false],
    ["an unknown answer", { status: 418, text: "?" }, false]
  ]

  for (const [name, first, settles] of firsts) {
    it(`${name}: ${settles ? "ends the hold" : "polls again"}`, async () => {
      vi.useFakeTimers()
      const script = [first, lost]
      const buddy = makeBuddyClient({
        pollInterval: 1_000,
        fetch: () => {
          const next = script.shift() ?? lost
          return Promise.resolve({ status: next.status, text: () => Promise.resolve(next.text) })
        }
      })
      const held = settledBy(buddy.hold(OTHER))
      await vi.advanceTimersByTimeAsync(10_000)
      expect(held.value).toStrictEqual(
        settles ? decodeAnswer(operations.pollSignIn, first.status, first.text) : { kind: "sign-in", state: "lost" }
      )
      expect(script).toStrictEqual(settles ? [lost] : [])
    })
  }

  it("a signal that stops it mid-wait ends it at once, polling nothing, and every listener it added is removed", async () => {
    vi.useFakeTimers()
    let polls = 0
    const listeners: Array<string> = []
    const stop = new AbortController()
    const signal = {
      get aborted() {
        return stop.signal.aborted
      },
      addEventListener: (type: "abort", listener: () => void) => {
        listeners.push(`+${type}`)
        stop.signal.addEventListener(type, listener)
      },
      removeEventListener: (type: "abort", listener: () => void) => {
        listeners.push(`-${type}`)
        stop.signal.removeEventListener(type, listener)
      }
    }
    const buddy = makeBuddyClient({
      pollInterval: 1_000,
      fetch: () => {
        polls += 1
        return Promise.resolve({ status: pending.status, text: () => Promise.resolve(pending.text) })
      }
    })
    const held = settledBy(buddy.hold(OTHER, { signal }))
    await vi.advanceTimersByTimeAsync(2_500)
    expect(polls).toBe(2)
    // Each wait that ran its course took its listener away again.
    expect(listeners).toStrictEqual(["+abort", "-abort", "+abort", "-abort", "+abort"])
    stop.abort()
    await vi.advanceTimersByTimeAsync(0)
    expect(held.value).toStrictEqual({ kind: "stopped" })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(polls).toBe(2)
  })

  it("asks the page's own fetch when given none, as a plain function", async () => {
    const calls: Array<readonly [string, FetchInit]> = []
    vi.stubGlobal("fetch", (url: string, init: FetchInit) => {
      calls.push([url, init])
      return Promise.resolve({
        status: 200,
        text: () => Promise.resolve("{\"kind\":\"sign-out\",\"state\":\"signed-out\"}")
      })
    })
    expect(await makeBuddyClient().signOut()).toStrictEqual({ kind: "sign-out", state: "signed-out" })
    expect(calls.map(([url, init]) => [url, init.method])).toStrictEqual([["/api/buddy/sign-out", "POST"]])
  })
})

describe("buddy/client hold", () => {
  it.scopedLive("polls until Hermes ends the sign-in, telling each change; a gateway that fails once only waits", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      const { fetch, signal } = bounded(browserFetch(port), 20)
      const buddy = makeBuddyClient({ fetch, pollInterval: 20 })
      const started = yield* call(buddy.start)
      const handle = started.kind === "sign-in" ? started.handle : ""
      fake.fault("poll", { kind: "status", status: 503, body: { error: "gateway_not_ready" } }, 1)
      const changes: Array<PollResult> = []
      const ended = yield* call(() =>
        buddy.hold(handle, {
          signal,
          onChange: (result) => {
            changes.push(result)
            const session = fake.sessions()[0]
            if (result.kind === "sign-in" && result.state === "pending" && session) fake.approve(session.id)
          }
        })
      )
      expect(ended).toStrictEqual({ kind: "sign-in", state: "signed-in" })
      expect(changes).toStrictEqual([
        { kind: "unavailable", reason: "not-ready" },
        { kind: "sign-in", state: "pending", code: CODE, page: PAGE },
        { kind: "sign-in", state: "signed-in" }
      ])
      expect(fake.signedIn).toBe(true)
    }))

  it.scopedLive("ends at once on a handle that is not the holder's, and stops on its signal cancelling nothing", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const { port } = yield* serve(hostedConfig(fake.home))
      const buddy = clientOn(port)
      const once = bounded(browserFetch(port), 5)
      expect(
        yield* call(() => makeBuddyClient({ fetch: once.fetch }).hold(OTHER, { interval: 10, signal: once.signal }))
      )
        .toStrictEqual({ kind: "blocked", reason: "sign-in-unknown" })
      const started = yield* call(buddy.start)
      const handle = started.kind === "sign-in" ? started.handle : ""
      const stop = new AbortController()
      let polls = 0
      const stopped = yield* call(() =>
        makeBuddyClient({ fetch: bounded(browserFetch(port), 20).fetch }).hold(handle, {
          interval: 10,
          signal: stop.signal,
          onChange: () => {
            polls += 1
            setTimeout(() => stop.abort(), 50)
          }
        })
      )
      expect(stopped).toStrictEqual({ kind: "stopped" })
      expect(polls).toBe(1)
      expect(fake.sessions()[0]?.cancelled).toBe(false)
      expect(hermesHttp(fake)).not.toContain(HERMES_CANCEL)
      expect(yield* call(() => buddy.poll(handle))).toMatchObject({ kind: "sign-in", state: "pending" })
      const already = new AbortController()
      already.abort()
      const oneRequest = bounded(browserFetch(port), 1).fetch
      expect(
        yield* call(() => makeBuddyClient({ fetch: oneRequest }).hold(handle, { interval: 10, signal: already.signal }))
      )
        .toStrictEqual({ kind: "stopped" })
    }))
})

describe("buddy serve's own refusals, as the client decodes them (D36)", () => {
  // The bytes test/cli/serve-limits.test.ts and test/boundary/listener-trust.test.ts see
  // `buddy serve` answer: each is its closed result for every operation, never unknown-answer.
  const served = [
    [400, "{\"error\":\"invalid-request\"}", { kind: "error", error: "invalid-request" }],
    [403, "{\"error\":\"denied\",\"reason\":\"host-mismatch\"}", { kind: "denied", reason: "host-mismatch" }],
    [408, "{\"error\":\"request-timeout\"}", { kind: "error", error: "request-timeout" }],
    [413, "{\"error\":\"body-too-large\"}", { kind: "error", error: "body-too-large" }],
    [417, "{\"error\":\"expectation-failed\"}", { kind: "error", error: "expectation-failed" }],
    [431, "{\"error\":\"headers-too-large\"}", { kind: "error", error: "headers-too-large" }]
  ] as const

  it("gives each one, on each operation, as its closed refusal", () => {
    const decoders = {
      status: (status: number, body: string) => decodeAnswer(operations.status, status, body),
      openApi: (status: number, body: string) => decodeAnswer(operations.openApi, status, body),
      startSignIn: (status: number, body: string) => decodeAnswer(operations.startSignIn, status, body),
      pollSignIn: (status: number, body: string) => decodeAnswer(operations.pollSignIn, status, body),
      cancelSignIn: (status: number, body: string) => decodeAnswer(operations.cancelSignIn, status, body),
      signOut: (status: number, body: string) => decodeAnswer(operations.signOut, status, body)
    }
    expect(Object.keys(decoders).sort()).toStrictEqual(Object.keys(operations).sort())
    for (const [name, decode] of Object.entries(decoders)) {
      for (const [status, body, refusal] of served) {
        expect(decode(status, body), `${name} ${status}`).toStrictEqual(refusal)
      }
    }
  })

  it("still gives a known name at a status the table does not give it as unknown-answer", () => {
    expect(decodeAnswer(operations.status, 400, "{\"error\":\"request-timeout\"}")).toStrictEqual({
      kind: "unknown-answer",
      status: 400
    })
    // A 403 buddy does not give this operation is the front door's, whatever it says (C10).
    expect(decodeAnswer(operations.status, 403, "{\"error\":\"denied\",\"reason\":\"origin-mismatch\"}"))
      .toStrictEqual({ kind: "front-door", status: 403 })
  })
})

describe("buddy/client's options given as undefined are their defaults (D51)", () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  it("root, fetch and pollInterval undefined ask /api/buddy through the page's fetch every 5 s", async () => {
    vi.useFakeTimers()
    const pending = JSON.stringify({ kind: "sign-in", state: "pending", code: CODE, page: PAGE })
    const asked: Array<{ readonly url: string; readonly at: number }> = []
    const started = Date.now()
    const pageFetch: Fetch = (url) => {
      asked.push({ url, at: Date.now() - started })
      return Promise.resolve({ status: 200, text: () => Promise.resolve(pending) })
    }
    vi.stubGlobal("fetch", pageFetch)
    const buddy = makeBuddyClient({ root: undefined, fetch: undefined, pollInterval: undefined })
    const stop = new AbortController()
    const held = settledBy(buddy.hold(OTHER, { interval: undefined, onChange: undefined, signal: stop.signal }))
    await vi.advanceTimersByTimeAsync(10_000)
    stop.abort()
    await vi.advanceTimersByTimeAsync(0)
    expect(held.value).toStrictEqual({ kind: "stopped" })
    expect(asked).toStrictEqual([
      { url: "/api/buddy/sign-in/poll", at: 5_000 },
      { url: "/api/buddy/sign-in/poll", at: 10_000 }
    ])
  })
})
