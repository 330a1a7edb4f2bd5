// C6 check 4: the request body, bounded at 16 KiB (declared or streamed), read without killing
// the connection before the 413 is answered (the platform's own limit destroys the socket:
// effect-guide §1.6), then decoded as strict UTF-8 JSON with exactly the listed keys.
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, Schema, Stream } from "effect"
import { IncomingMessage } from "node:http"
import { decodeUtf8 } from "../schema/utf8.js"
import { type Refused, refused } from "./refusal.js"

/** `application/json`, parameters allowed (`; charset=utf-8`), type and subtype case-insensitive. */
export const isJsonMediaType = (contentType: string | undefined) =>
  // Stryker disable next-line OptionalChaining: split always gives a first element; `?.` is for the type
  contentType !== undefined && contentType.split(";")[0]?.trim().toLowerCase() === "application/json"

/**
 * Node's request: stop listening and pause at the limit, never destroy; the 413 then goes out
 * with `Connection: close` and Node closes the socket after it.
 */
const readNode = (source: IncomingMessage, limit: number) =>
  Effect.async<Uint8Array, Refused>((resume) => {
    const parts: Array<Buffer> = []
    let size = 0
    // Detaching is hygiene, not observable: after the settling event Effect ignores another resume,
    // and a stream paused at its limit emits nothing more.
    // Stryker disable BlockStatement,StringLiteral
    const detach = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    // Stryker restore BlockStatement,StringLiteral
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        detach()
        source.pause()
        resume(Effect.fail(refused("body-too-large")))
      } else {
        parts.push(chunk)
      }
    }
    const onEnd = () => {
      detach()
      resume(Effect.succeed(Buffer.concat(parts)))
    }
    // Node emits a request's `error` only to its listeners, and the server ends the handler of a
    // request whose client went away in any case: the refusal is for the type, never answered.
    // Stryker disable BlockStatement,StringLiteral
    const onError = () => {
      detach()
      resume(Effect.fail(refused("invalid-request")))
    }
    // Stryker restore BlockStatement,StringLiteral
    source.on("data", onData)
    source.on("end", onEnd)
    // Stryker disable next-line StringLiteral: see onError
    source.on("error", onError)
    return Effect.sync(detach)
  })

/** Any other request (a web `Request` through the web handler): count while streaming. */
const readStream = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  request.stream.pipe(
    Stream.mapError(() => refused("invalid-request")),
    Stream.runFoldEffect(new Uint8Array(0), (acc, chunk) =>
      acc.length + chunk.length > limit
        ? Effect.fail(refused("body-too-large"))
        : Effect.succeed(Buffer.concat([acc, chunk])))
  )

/** The body's bytes, refused as too large by its declared length before anything is read. */
export const readBody = (limit: number) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    // No Content-Length is NaN here, and NaN is over no limit.
    if (Number(request.headers["content-length"]) > limit) return Effect.fail(refused("body-too-large"))
    return request.source instanceof IncomingMessage ? readNode(request.source, limit) : readStream(request, limit)
  })

/** Strict UTF-8, then JSON, then exactly the Schema's keys. */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, bytes: Uint8Array) =>
  decodeUtf8(bytes).pipe(
    Either.flatMap((text) => Either.try(() => JSON.parse(text) as unknown)),
    Either.flatMap((json) => Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(json)),
    Either.mapLeft(() => refused("invalid-request"))
  )
