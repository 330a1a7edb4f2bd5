// The web-handler form for hosts that are not Effect programs: `makeBuddyWebHandler(config)`
// answers web Requests like the server does. A web Request has no Content-Length (P13), so the
// 16 KiB bound must hold while its body streams.
import { describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { makeBuddyWebHandler } from "../../src/http/hosts.js"
import { bodies, expectAnswer, line, startedHandle } from "./support/answers.js"
import { HERMES_START, hermesHttp } from "./support/fake.js"
import { hostedConfig, LAUNCHPAD } from "./support/server.js"

interface WebReply {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string
}

/** The handler for this config, disposed with the test's scope. */
const webHandler = (home: string, overrides: Parameters<typeof hostedConfig>[1] = {}) =>
  Effect.gen(function*() {
    const { dispose, handler } = makeBuddyWebHandler(hostedConfig(home, overrides))
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    return (request: Request) =>
      Effect.promise(async (): Promise<WebReply> => {
        const response = await handler(request)
        return { status: response.status, headers: [...response.headers], body: await response.text() }
      })
  })

/** The journal lines written on stdout (JournalLive) while the test runs. */
const stdoutLines = Effect.acquireRelease(
  Effect.sync(() => {
    const written: Array<string> = []
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
      return true
    })
    return { written, spy }
  }),
  ({ spy }) => Effect.sync(() => spy.mockRestore())
).pipe(Effect.map(({ written }) => written))

const url = (path: string) => `${LAUNCHPAD}${path}`
const launchpadPost = (path: string, body: string, headers: Record<string, string> = {}) =>
  new Request(url(path), {
    method: "POST",
    headers: { origin: LAUNCHPAD, "sec-fetch-site": "same-origin", "content-type": "application/json", ...headers },
    body
  })

describe("makeBuddyWebHandler", () => {
  it.scopedLive("answers GET /api/buddy with the same bytes and headers as the server", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const handle = yield* webHandler(fake.home)
      const reply = yield* handle(new Request(url("/api/buddy")))
      expectAnswer(
        reply,
        200,
        "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"cs\"}"
      )
      expectAnswer(yield* handle(new Request(url("/api/buddy?x=1"))), 200, bodies.status("waits", "none"))
    }))

  it.scopedLive("answers a same-origin POST start (a web Request has no Content-Length) and journals it on stdout", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const handle = yield* webHandler(fake.home, { locale: "en" })
      const written = yield* stdoutLines
      const request = launchpadPost("/api/buddy/sign-in/start", "{}")
      expect(request.headers.get("content-length")).toBeNull()
      const handleOf = startedHandle(yield* handle(request))
      expect(hermesHttp(fake)).toStrictEqual([HERMES_START])
      expectAnswer(
        yield* handle(launchpadPost("/api/buddy/sign-in/poll", JSON.stringify({ handle: handleOf }))),
        200,
        bodies.pending
      )
      expectAnswer(yield* handle(new Request(url("/api/buddy"))), 200, bodies.status("waits", "pending", "en"))
      expect(written).toStrictEqual([`${line("start", "pending")}\n`, `${line("poll", "pending")}\n`])
    }))

  it.scopedLive("refuses like the server: origin, method, content type, shape, handle, absence", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const handle = yield* webHandler(fake.home)
      const start = "/api/buddy/sign-in/start"
      expectAnswer(
        yield* handle(
          new Request(url(start), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
        ),
        403,
        bodies.denied
      )
      const buddyPage = launchpadPost(start, "{}", { origin: "https://buddy.example" })
      expectAnswer(yield* handle(buddyPage), 403, bodies.denied)
      const get = yield* handle(new Request(url("/api/buddy/sign-in/poll")))
      expectAnswer(get, 405, bodies.methodNotAllowed)
      expect(get.headers).toContainEqual(["allow", "POST"])
      expectAnswer(yield* handle(launchpadPost(start, "{}", { "content-type": "text/plain" })), 415, bodies.contentType)
      expectAnswer(yield* handle(launchpadPost("/api/buddy/sign-in/poll", "[]")), 400, bodies.invalidRequest)
      expectAnswer(
        yield* handle(launchpadPost("/api/buddy/sign-in/poll", JSON.stringify({ handle: "ABC" }))),
        400,
        bodies.invalidHandle
      )
      expectAnswer(yield* handle(new Request(url("/api/buddy/nope"))), 404, bodies.notFound)
      expect(fake.received).toStrictEqual([])
      const absent = yield* webHandler(fake.home, { environment: "hosted-organization-team" })
      expectAnswer(yield* absent(new Request(url("/api/buddy"))), 404, bodies.absent)
      expectAnswer(yield* absent(launchpadPost(start, "{}")), 404, bodies.absent)
      expect(fake.received).toStrictEqual([])
    }))

  it.scopedLive("a body whose stream fails part-way is 400 invalid-request, and Hermes is never asked", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const handle = yield* webHandler(fake.home)
      const failing = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{\"han"))
          controller.error(new Error("the client went away"))
        }
      })
      const request = new Request(url("/api/buddy/sign-in/poll"), {
        method: "POST",
        headers: { origin: LAUNCHPAD, "sec-fetch-site": "same-origin", "content-type": "application/json" },
        body: failing,
        duplex: "half"
      } as RequestInit)
      expectAnswer(yield* handle(request), 400, bodies.invalidRequest)
      expect(hermesHttp(fake)).toStrictEqual([])
    }))

  it.scopedLive("holds the 16 KiB bound on a body without Content-Length: 16385 is 413, 16384 is accepted", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const handle = yield* webHandler(fake.home)
      const written = yield* stdoutLines
      const start = "/api/buddy/sign-in/start"
      const tooLarge = yield* handle(launchpadPost(start, "{}".padEnd(16385, " ")))
      expectAnswer(tooLarge, 413, bodies.tooLarge)
      const streamed = new Request(url(start), {
        method: "POST",
        headers: { origin: LAUNCHPAD, "sec-fetch-site": "same-origin", "content-type": "application/json" },
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            // A body that never ends: the answer must not wait for it.
            controller.enqueue(new Uint8Array(4096).fill(0x20))
          }
        }),
        duplex: "half"
      } as RequestInit)
      expectAnswer(yield* handle(streamed), 413, bodies.tooLarge)
      expect(fake.received).toStrictEqual([])
      startedHandle(yield* handle(launchpadPost(start, "{}".padEnd(16384, " "))))
      expect(written).toStrictEqual([`${line("start", "pending")}\n`])
    }))
})
