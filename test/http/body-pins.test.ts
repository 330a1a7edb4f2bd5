// The request body's checks (C6 check 4) pinned where the app's other tests leave room: the media
// type's parameters and spacing, the declared length against the 16 KiB bound, and the decoder's
// "exactly the Schema's keys" for any Schema it is given, not only the strict ones the routes use.
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as http from "node:http"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { decodeBody, isJsonMediaType } from "../../src/http/body.js"
import { bodies, expectAnswer, line, startedHandle } from "./support/answers.js"
import { HERMES_POLL, hermesHttp } from "./support/fake.js"
import {
  handleBody,
  type HeaderList,
  hostedConfig,
  liveServices,
  POLL,
  post,
  rawExchange,
  sameOrigin,
  serve,
  serveWith,
  START
} from "./support/server.js"

const bytes = (text: string) => new TextEncoder().encode(text)

/** A fake gateway, the app on it, and a sign-in held by `handle`; the fake's log cleared after. */
const withHeldSignIn = Effect.gen(function*() {
  const fake = yield* makeFakeGateway()
  const served = yield* serve(hostedConfig(fake.home))
  const handle = startedHandle(yield* post(served.port, START, "{}"))
  fake.clearReceived()
  return { fake, ...served, handle }
})

describe("the media type on the wire", () => {
  it.scopedLive("application/json with spaces before its parameters is accepted and the poll reaches Hermes", () =>
    Effect.gen(function*() {
      const { fake, handle, journal, port } = yield* withHeldSignIn
      for (
        const type of ["application/json ; charset=utf-8", "application/json\t;charset=utf-8", "application/json ;"]
      ) {
        const headers: HeaderList = [...sameOrigin, ["Content-Type", type]]
        expectAnswer(yield* post(port, POLL, handleBody(handle), headers), 200, bodies.pending)
      }
      expect(hermesHttp(fake)).toStrictEqual([HERMES_POLL, HERMES_POLL, HERMES_POLL])
      expect(yield* journal).toStrictEqual([
        line("start", "pending"),
        line("poll", "pending"),
        line("poll", "pending"),
        line("poll", "pending")
      ])
    }))

  it.scopedLive("a JSON type after another type or with another subtype is 415, Hermes never asked", () =>
    Effect.gen(function*() {
      const { fake, handle, port } = yield* withHeldSignIn
      for (const type of ["text/plain; application/json", "application/json-seq", "json", "application/ json"]) {
        const headers: HeaderList = [...sameOrigin, ["Content-Type", type]]
        expectAnswer(yield* post(port, POLL, handleBody(handle), headers), 415, bodies.contentType)
      }
      expect(fake.received).toStrictEqual([])
    }))
})

describe("the media type, as the function reads it", () => {
  it("only application/json, in any case, with or without parameters and surrounding space", () => {
    expect(isJsonMediaType(undefined)).toBe(false)
    expect(isJsonMediaType("")).toBe(false)
    expect(isJsonMediaType("application/json")).toBe(true)
    expect(isJsonMediaType("APPLICATION/JSON")).toBe(true)
    expect(isJsonMediaType("  application/json  ")).toBe(true)
    expect(isJsonMediaType("application/json ; charset=utf-8")).toBe(true)
    expect(isJsonMediaType(";application/json")).toBe(false)
    expect(isJsonMediaType("application/jsonp")).toBe(false)
  })
})

const head = (headers: string) =>
  `POST ${POLL} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://launchpad.example\r\nSec-Fetch-Site: same-origin\r\n${headers}\r\n`

describe("the declared length", () => {
  it.scopedLive("a declared 16384 with a valid body of that length is read and answered, Hermes asked once", () =>
    Effect.gen(function*() {
      const { fake, handle, port } = yield* withHeldSignIn
      const body = handleBody(handle).padEnd(16384, " ")
      const reply = yield* rawExchange(
        port,
        head("Content-Type: application/json\r\nContent-Length: 16384\r\nConnection: close\r\n") + body
      )
      expect({ status: reply.status, body: reply.body }).toStrictEqual({ status: 200, body: bodies.pending })
      expect(hermesHttp(fake)).toStrictEqual([HERMES_POLL])
    }))

  it.scopedLive("a declared 16385 is 413 at once, though only two bytes follow, Hermes never asked", () =>
    Effect.gen(function*() {
      const { fake, port } = yield* withHeldSignIn
      const reply = yield* rawExchange(port, head("Content-Type: application/json\r\nContent-Length: 16385\r\n") + "{}")
      expect({ status: reply.status, body: reply.body }).toStrictEqual({ status: 413, body: bodies.tooLarge })
      expect(fake.received).toStrictEqual([])
    }))
})

describe("a body over the limit", () => {
  // At the limit the request's stream is paused, not left flowing: the server reads no more of the
  // body than the limit and its buffers while the 413 goes out (a body of any size would otherwise
  // be read at full speed into nothing until the connection closes).
  it.scopedLive("is paused at the 16 KiB limit: at the 413's end the request no longer flows", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway()
      const flowingAtAnswer: Array<boolean | null> = []
      const { port } = yield* serveWith(
        liveServices(hostedConfig(fake.home)),
        () =>
          http.createServer().on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
            response.prependOnceListener("finish", () => flowingAtAnswer.push(request.readableFlowing))
          })
      )
      const chunk = (size: number) => `${size.toString(16)}\r\n${"a".repeat(size)}\r\n`
      const reply = yield* rawExchange(
        port,
        head("Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"),
        async (write, answered) => {
          // Chunks keep coming until the answer does.
          while (!answered() && await write(chunk(8 * 1024))) await new Promise((next) => setImmediate(next))
        }
      )
      expect({ status: reply.status, body: reply.body }).toStrictEqual({ status: 413, body: bodies.tooLarge })
      expect(flowingAtAnswer).toStrictEqual([false])
      expect(fake.received).toStrictEqual([])
    }))
})

describe("decodeBody", () => {
  const Loose = Schema.Struct({ handle: Schema.String })

  it("takes exactly the Schema's keys even from a Schema that would ignore others", () => {
    expect(decodeBody(Loose, bytes("{\"handle\":\"h\"}"))).toStrictEqual(Either.right({ handle: "h" }))
    const extra = decodeBody(Loose, bytes("{\"handle\":\"h\",\"x\":1}"))
    expect(Either.isLeft(extra) ? extra.left.reason : "accepted").toBe("invalid-request")
  })

  it("refuses bytes that are not UTF-8, text that is not JSON, and JSON of another shape, all as invalid-request", () => {
    for (
      const input of [
        new Uint8Array([0x7b, 0xff, 0x7d]),
        bytes("{"),
        bytes("{\"handle\":1}"),
        bytes("[]"),
        bytes("\uFEFF{\"handle\":\"h\"}")
      ]
    ) {
      const decoded = decodeBody(Loose, input)
      expect(Either.isLeft(decoded) ? decoded.left.reason : "accepted", Buffer.from(input).toString("hex")).toBe(
        "invalid-request"
      )
    }
  })
})
