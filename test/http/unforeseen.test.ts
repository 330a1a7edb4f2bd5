// An unforeseen failure (C6 check 6, D43): 500 operation-failed on the wire, and on Effect's
// logger the cause with its shape and frames but no word of any message, since a defect can carry
// Hermes's text, a code, a ticket, a handle or a session id (C9). The services here fail with
// exactly such words; the log a Launchpad would read is captured with Logger.replace.
import * as HttpApp from "@effect/platform/HttpApp"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Data, Effect, Exit, FiberId, Layer, Logger } from "effect"
import { BuddyHttpApp } from "../../src/http/app.js"
import { unforeseen } from "../../src/http/unforeseen.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import type { SignIn } from "../../src/services/SignIn.js"
import { hostedConfig, LAUNCHPAD, standInServices } from "./support/server.js"

/** What a leaked defect could carry: a device code, a ticket, a session id, a handle, Hermes's words. */
const secrets = ["ABCD-EFGHK", "tkt_7f3a9c", "sess_51b2e", "0123456789abcdef0123456789abcdef", "Hermes says"]
const secretText = `${secrets[4]}: code ${secrets[0]} ticket ${secrets[1]} session ${secrets[2]} handle ${secrets[3]}`

class HermesSaid extends Data.TaggedError("HermesSaid")<{ readonly text: string }> {}

interface Logged {
  readonly level: string
  readonly message: unknown
  readonly cause: string
}

/** A web handler on services that fail as `signIn` says, with every log line kept. */
const handlerOn = (signIn: Partial<SignIn["Type"]>) =>
  Effect.gen(function*() {
    const logged: Array<Logged> = []
    const capture = Logger.make<unknown, void>(({ cause, logLevel, message }) => {
      logged.push({ level: logLevel.label, message, cause: Cause.pretty(cause) })
    })
    const services = Layer.mergeAll(
      standInServices(signIn),
      BuddyConfig.gatewayLayer(hostedConfig(undefined)),
      Logger.replace(Logger.defaultLogger, capture)
    )
    const { dispose, handler } = HttpApp.toWebHandlerLayer(BuddyHttpApp, services)
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    const post = (path: string, body = "{}") =>
      Effect.promise(async () => {
        const response = await handler(
          new Request(`${LAUNCHPAD}${path}`, {
            method: "POST",
            headers: { origin: LAUNCHPAD, "sec-fetch-site": "same-origin", "content-type": "application/json" },
            body
          })
        )
        return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() }
      })
    return { post, logged }
  })

describe("an unforeseen failure", () => {
  it.scopedLive("a defect carrying secrets is 500 operation-failed, and logged with its frames but none of its words", () =>
    Effect.gen(function*() {
      const defect = new TypeError(`${secretText}\n    at ${secrets[1]} (${secrets[2]}.js:1:1)`)
      const { logged, post } = yield* handlerOn({ start: Effect.die(defect) })
      const reply = yield* post("/api/buddy/sign-in/start")
      expect(reply.status).toBe(500)
      expect(reply.body).toBe("{\"error\":\"operation-failed\"}")
      expect(reply.headers).toMatchObject({ "cache-control": "no-store", "x-content-type-options": "nosniff" })

      expect(logged).toHaveLength(1)
      const [line] = logged
      expect(line?.level).toBe("ERROR")
      expect(line?.message).toStrictEqual([
        "buddy: startSignIn failed unforeseen and was answered 500 operation-failed"
      ])
      expect(line?.cause).toContain("TypeError: (message withheld)")
      // The frames a developer needs: where the defect was made, in this file.
      expect(line?.cause).toMatch(/\n\s+at .*unforeseen\.test\.ts:\d+/)
      for (const secret of secrets) expect(line?.cause).not.toContain(secret)
    }))

  it.scopedLive("a failure outside the closed errors is logged by its tag, and a non-Error defect by its type", () =>
    Effect.gen(function*() {
      const { logged, post } = yield* handlerOn({
        signOut: Effect.die(new HermesSaid({ text: secretText })),
        poll: () => Effect.die(secretText),
        cancel: () => Effect.die({ _tag: 7, text: secretText })
      })
      expect((yield* post("/api/buddy/sign-out")).status).toBe(500)
      const reply = yield* post("/api/buddy/sign-in/poll", JSON.stringify({ handle: secrets[3] }))
      expect(reply).toMatchObject({ status: 500, body: "{\"error\":\"operation-failed\"}" })
      expect((yield* post("/api/buddy/sign-in/cancel", JSON.stringify({ handle: secrets[3] }))).status).toBe(500)
      expect(logged.map((line) => line.message)).toStrictEqual([
        ["buddy: signOut failed unforeseen and was answered 500 operation-failed"],
        ["buddy: pollSignIn failed unforeseen and was answered 500 operation-failed"],
        ["buddy: cancelSignIn failed unforeseen and was answered 500 operation-failed"]
      ])
      expect(logged[0]?.cause).toContain("HermesSaid: (message withheld)")
      expect(logged[1]?.cause).toContain("string: (message withheld)")
      // A `_tag` that is no string names nothing: the defect is named by its type.
      expect(logged[2]?.cause).toContain("object: (message withheld)")
      for (const line of logged) for (const secret of secrets) expect(line.cause).not.toContain(secret)
    }))

  it.scopedLive("an error whose message changed after its stack was made keeps no frame (none can be told apart)", () =>
    Effect.gen(function*() {
      const defect = new Error("made")
      // V8 writes the stack when it is first read: read here, it keeps the old header.
      expect(defect.stack).toMatch(/^Error: made\n/)
      defect.message = secretText
      const { logged, post } = yield* handlerOn({ start: Effect.die(defect) })
      expect((yield* post("/api/buddy/sign-in/start")).status).toBe(500)
      expect(logged[0]?.cause).toContain("Error: (message withheld)")
      expect(logged[0]?.cause).not.toMatch(/\n\s+at /)
      for (const secret of secrets) expect(logged[0]?.cause).not.toContain(secret)
    }))

  it.scopedLive("an error without a stack is named, and nothing else of it is said", () =>
    Effect.gen(function*() {
      const defect = new RangeError(secretText)
      Object.defineProperty(defect, "stack", { value: undefined })
      const { logged, post } = yield* handlerOn({ signOut: Effect.die(defect) })
      expect((yield* post("/api/buddy/sign-out")).body).toBe("{\"error\":\"operation-failed\"}")
      expect(logged).toHaveLength(1)
      expect(logged[0]?.cause).toContain("RangeError: (message withheld)")
      for (const secret of secrets) expect(logged[0]?.cause).not.toContain(secret)
    }))
})

/** `unforeseen(operation)` of `cause` alone: what it logged (level, message, the cause as Cause.pretty says it) and what it answered. */
const squeezedLog = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    const logged: Array<Logged> = []
    // A Launchpad's logger may print a defect's own stack rather than Cause.pretty (which rebuilds the
    // first line from the name and message): both are kept.
    const stacks: Array<string | undefined> = []
    const capture = Logger.make<unknown, void>(({ cause, logLevel, message }) => {
      logged.push({ level: logLevel.label, message, cause: Cause.pretty(cause) })
      for (const defect of Cause.defects(cause)) stacks.push(defect instanceof Error ? defect.stack : undefined)
    })
    const answered = yield* unforeseen("anOperation")(cause).pipe(
      Effect.exit,
      Effect.provide(Logger.replace(Logger.defaultLogger, capture))
    )
    return { logged, answered, stacks }
  })

describe("the cause as it is logged, exactly", () => {
  it.effect("a string defect: its type and the withheld mark, and nothing after", () =>
    Effect.gen(function*() {
      const { logged, stacks } = yield* squeezedLog(Cause.die(secretText))
      expect(logged).toStrictEqual([{
        level: "ERROR",
        message: ["buddy: anOperation failed unforeseen and was answered 500 operation-failed"],
        cause: "string: (message withheld)"
      }])
      expect(stacks).toStrictEqual(["string: (message withheld)"])
    }))

  it.effect("an error whose stack no longer begins with its header: its name, no frame and nothing else", () =>
    Effect.gen(function*() {
      const defect = new Error("made")
      expect(defect.stack).toMatch(/^Error: made\n/)
      defect.message = secretText
      const { logged, stacks } = yield* squeezedLog(Cause.die(defect))
      expect(logged.map((line) => line.cause)).toStrictEqual(["Error: (message withheld)"])
      expect(stacks).toStrictEqual(["Error: (message withheld)"])
    }))

  it.effect("a typed failure outside the closed errors: named by its string tag, an object without one by its type", () =>
    Effect.gen(function*() {
      const tagged = yield* squeezedLog(Cause.fail({ _tag: "HermesSaid", text: secretText }))
      expect(tagged.logged.map((line) => line.cause)).toStrictEqual(["HermesSaid: (message withheld)"])
      const untagged = yield* squeezedLog(Cause.fail({ text: secretText }))
      expect(untagged.logged.map((line) => line.cause)).toStrictEqual(["object: (message withheld)"])
      const error = yield* squeezedLog(Cause.fail(new RangeError(secretText)))
      expect(error.logged[0]?.cause).toMatch(/^RangeError: \(message withheld\)\n\s+at /)
      for (const line of [...tagged.logged, ...untagged.logged, ...error.logged]) {
        for (const secret of secrets) expect(line.cause).not.toContain(secret)
      }
    }))

  it.effect("a caller gone away (an interruption alone) is passed on, not logged and not answered", () =>
    Effect.gen(function*() {
      const { answered, logged } = yield* squeezedLog(Cause.interrupt(FiberId.none))
      expect(logged).toStrictEqual([])
      expect(Exit.isFailure(answered) && Cause.isInterruptedOnly(answered.cause)).toBe(true)
    }))
})

describe("a defect before any route is chosen", () => {
  it.scopedLive("is 500 operation-failed, logged as a request's, with none of its words", () =>
    Effect.gen(function*() {
      const logged: Array<Logged> = []
      const capture = Logger.make<unknown, void>(({ cause, logLevel, message }) => {
        logged.push({ level: logLevel.label, message, cause: Cause.pretty(cause) })
      })
      // A config whose every read throws: admission reads it before it knows the route.
      const config = new Proxy(hostedConfig(undefined), {
        get: () => {
          throw new TypeError(secretText)
        }
      })
      const services = Layer.mergeAll(
        standInServices(),
        Layer.succeed(BuddyConfig, config),
        Logger.replace(Logger.defaultLogger, capture)
      )
      const { dispose, handler } = HttpApp.toWebHandlerLayer(BuddyHttpApp, services)
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const response = yield* Effect.promise(() => handler(new Request(`${LAUNCHPAD}/api/buddy`)))
      expect(response.status).toBe(500)
      expect(yield* Effect.promise(() => response.text())).toBe("{\"error\":\"operation-failed\"}")
      expect(logged.map((line) => line.message)).toStrictEqual([
        ["buddy: a request failed unforeseen and was answered 500 operation-failed"]
      ])
      expect(logged[0]?.cause).toContain("TypeError: (message withheld)")
      for (const secret of secrets) expect(logged[0]?.cause).not.toContain(secret)
    }))
})
