// C2 framing over real Unix sockets: one request line per connection, one bounded reply line,
// a deadline, and a strict envelope. The peers are tiny node:net servers in a 0700 temp home.
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, Option, TestClock } from "effect"
import * as Net from "node:net"
import * as nodePath from "node:path"
import type { ControlRequest } from "../../src/schema/control.js"
import { noDeadline } from "../../src/services/deadline.js"
import { exchangeOn } from "../../src/services/GatewaySocket.js"
import { realPause } from "../support/buddy.js"
import {
  answer,
  answerAndHold,
  type Behaviour,
  type Connection,
  exchangeFor,
  exists,
  identify,
  identifyLine,
  listen,
  makeDir,
  okLine,
  silent,
  tempRoot
} from "./support/gateway-fixtures.js"

const join = nodePath.join

/** A 0700 home with a peer listening at `<home>/gateway.sock`. */
const peerAt = (behaviour: Behaviour) =>
  Effect.gen(function*() {
    const root = yield* tempRoot
    const home = yield* makeDir(join(root, "home"))
    const path = join(home, "gateway.sock")
    const peer = yield* listen(path, behaviour)
    return { home, path, peer }
  })

/** The peer sees this connection close within `millis` (the client hung up). */
const closesWithin = (connection: Connection | undefined, millis: number) =>
  Effect.promise(() => connection?.closed ?? Promise.reject(new Error("no such connection"))).pipe(
    Effect.timeoutOption(Duration.millis(millis)),
    Effect.map(Option.isSome)
  )

/** Waits, in real time, until the peer's first connection holds the whole request line. */
const untilLineReceived = (peer: { readonly connections: ReadonlyArray<Connection> }) =>
  Effect.gen(function*() {
    while (!(peer.connections[0]?.received().includes(10) ?? false)) yield* realPause(2)
  })

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

/** Once the request line is in, writes `reply` a few bytes at a time, each write apart in time. */
const trickle = (reply: Buffer, size: number): Behaviour => (connection) => {
  let started = false
  connection.socket.on("data", () => {
    if (started || !connection.received().includes(10)) return
    started = true
    void (async () => {
      for (let at = 0; at < reply.length; at += size) {
        if (connection.socket.destroyed) return
        connection.socket.write(reply.subarray(at, at + size))
        await sleep(3)
      }
      connection.socket.end()
    })()
  })
}

/** Writes `x` without a newline, as fast as the connection takes it, until the client hangs up. */
const flood: Behaviour = (connection) => {
  const chunk = Buffer.alloc(16 * 1024, 0x78)
  const pump = () => {
    if (connection.socket.destroyed) return
    connection.socket.write(chunk, (error) => {
      if (!error) setImmediate(pump)
    })
  }
  pump()
}

const success = { ok: true, protocol: 1, id: 1, result: {} } as const

describe("C2 the request", () => {
  it.scopedLive("identify is written as exactly one line, byte for byte, and nothing else", () =>
    Effect.gen(function*() {
      const { path, peer } = yield* peerAt(answer(okLine))
      yield* exchangeOn(path, identify, 1024, noDeadline)
      const connection = peer.connections[0]
      expect(yield* closesWithin(connection, 1000)).toBe(true)
      expect(connection?.received()).toStrictEqual(Buffer.from(identifyLine, "utf8"))
      expect(connection?.received().toString("utf8")).toBe("{\"protocol\":1,\"id\":1,\"verb\":\"identify\"}\n")
    }))

  it.scopedLive("a request value sent again is written again byte for byte, and another value with its own params", () =>
    Effect.gen(function*() {
      // Each value's line is encoded once and kept (D47.11): what is kept must be that value's own.
      const { path, peer } = yield* peerAt(answer(okLine))
      const mintFor = (instance: string): ControlRequest => ({
        protocol: 1,
        id: 1,
        verb: "session-ticket",
        params: { profile_id: "default", instance_id: instance, purpose: "native-http" }
      })
      const lineFor = (instance: string) =>
        `{"protocol":1,"id":1,"verb":"session-ticket","params":{"profile_id":"default","instance_id":"${instance}","purpose":"native-http"}}\n`
      const first = mintFor("inst-1")
      for (const request of [first, mintFor("inst-2"), first]) {
        yield* exchangeOn(path, request, 1024, noDeadline)
        expect(yield* closesWithin(peer.connections.at(-1), 1000)).toBe(true)
      }
      expect(peer.connections.map((connection) => connection.received().toString("utf8"))).toStrictEqual([
        lineFor("inst-1"),
        lineFor("inst-2"),
        lineFor("inst-1")
      ])
    }))

  it.scopedLive("a session-ticket request is written with its params, byte for byte", () =>
    Effect.gen(function*() {
      const { path, peer } = yield* peerAt(answer(okLine))
      const request: ControlRequest = {
        protocol: 1,
        id: 1,
        verb: "session-ticket",
        params: { profile_id: "default", instance_id: "inst-1", purpose: "native-http" }
      }
      yield* exchangeOn(path, request, 1024, noDeadline)
      const connection = peer.connections[0]
      expect(yield* closesWithin(connection, 1000)).toBe(true)
      expect(connection?.received().toString("utf8")).toBe(
        "{\"protocol\":1,\"id\":1,\"verb\":\"session-ticket\",\"params\":" +
          "{\"profile_id\":\"default\",\"instance_id\":\"inst-1\",\"purpose\":\"native-http\"}}\n"
      )
    }))

  it.scopedLive("each exchange has its own connection: two exchanges, two connections of one line each", () =>
    Effect.gen(function*() {
      const { path, peer } = yield* peerAt(answer(okLine))
      yield* exchangeOn(path, identify, 1024, noDeadline)
      yield* exchangeOn(path, identify, 1024, noDeadline)
      expect(peer.connections).toHaveLength(2)
      for (const connection of peer.connections) {
        expect(yield* closesWithin(connection, 1000)).toBe(true)
        expect(connection.received().toString("utf8")).toBe(identifyLine)
      }
    }))

  it.scopedLive("the client closes the connection once the reply line is in, even if the peer keeps it open", () =>
    Effect.gen(function*() {
      const { path, peer } = yield* peerAt(answerAndHold(okLine))
      expect(yield* exchangeOn(path, identify, 1024, noDeadline)).toStrictEqual(success)
      expect(yield* closesWithin(peer.connections[0], 1000)).toBe(true)
    }))

  it.scopedLive("through GatewaySocketLive, the connection is closed after the reply too", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* peerAt(answerAndHold(okLine))
      expect(yield* exchangeFor(home)).toStrictEqual({ located: { home, socket: peer.path }, reply: success })
      expect(peer.connections).toHaveLength(1)
      expect(yield* closesWithin(peer.connections[0], 1000)).toBe(true)
    }))
})

describe("C2 the reply line", () => {
  it.scopedLive("a good reply line is decoded", () =>
    Effect.gen(function*() {
      const { path } = yield* peerAt(
        answer("{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":{\"kind\":\"hermes-gateway\",\"n\":[1,2]}}\n")
      )
      expect(yield* exchangeOn(path, identify, 1024, noDeadline)).toStrictEqual({
        ok: true,
        protocol: 1,
        id: 1,
        result: { kind: "hermes-gateway", n: [1, 2] }
      })
    }))

  it.scopedLive("a reply split across many small chunks (splitting multi-byte characters) is joined", () =>
    Effect.gen(function*() {
      const line = "{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":{\"name\":\"Büddy 😀 ✓\"}}\n"
      const { path } = yield* peerAt(trickle(Buffer.from(line, "utf8"), 2))
      expect(yield* exchangeOn(path, identify, 1024, noDeadline)).toStrictEqual({
        ok: true,
        protocol: 1,
        id: 1,
        result: { name: "Büddy 😀 ✓" }
      })
    }))

  it.scopedLive("bytes after the newline are ignored", () =>
    Effect.gen(function*() {
      const trailing = Buffer.concat([
        Buffer.from(okLine + "{\"ok\":false,\"protocol\":1,\"id\":1,\"error\":\"second\"}\nnot json "),
        Buffer.from([0xff, 0xfe])
      ])
      const { path } = yield* peerAt(answer(trailing))
      expect(yield* exchangeOn(path, identify, 1024, noDeadline)).toStrictEqual(success)
    }))

  it.scopedLive("a refusal with supported_verbs decodes as a refusal", () =>
    Effect.gen(function*() {
      const { path } = yield* peerAt(
        answer("{\"ok\": false, \"error\": \"x\", \"protocol\": 1, \"id\": 1, \"supported_verbs\": [\"identify\"]}\n")
      )
      expect(yield* exchangeOn(path, identify, 1024, noDeadline)).toStrictEqual({
        ok: false,
        error: "x",
        protocol: 1,
        id: 1,
        supported_verbs: ["identify"]
      })
    }))

  it.scopedLive("a refusal without supported_verbs decodes as a refusal", () =>
    Effect.gen(function*() {
      const { path } = yield* peerAt(answer("{\"ok\":false,\"protocol\":1,\"id\":1,\"error\":\"unknown profile\"}\n"))
      expect(yield* exchangeOn(path, identify, 1024, noDeadline)).toStrictEqual({
        ok: false,
        protocol: 1,
        id: 1,
        error: "unknown profile"
      })
    }))
})

describe("C2 the size limit", () => {
  /** `{"ok":true,…,"result":{}}` padded with spaces (valid JSON) to exactly `bytes` bytes. */
  const paddedLine = (bytes: number) => okLine.trimEnd().padEnd(bytes, " ") + "\n"

  it.scopedLive("a reply of exactly maxLine bytes plus the newline is accepted", () =>
    Effect.gen(function*() {
      const line = paddedLine(64)
      expect(Buffer.byteLength(line)).toBe(65)
      const { path } = yield* peerAt(answer(line))
      expect(yield* exchangeOn(path, identify, 64, noDeadline)).toStrictEqual(success)
    }))

  it.scopedLive("a reply of maxLine + 1 bytes plus the newline is refused too-large", () =>
    Effect.gen(function*() {
      const { path } = yield* peerAt(answer(paddedLine(65)))
      const error = yield* Effect.flip(exchangeOn(path, identify, 64, noDeadline))
      expect(error.reason).toBe("too-large")
    }))

  it.scopedLive("the limit counts bytes, not characters", () =>
    Effect.gen(function*() {
      const line = "{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":{\"s\":\"éééééééééé\"}}\n"
      expect(line.length - 1).toBeLessThanOrEqual(64)
      expect(Buffer.byteLength(line) - 1).toBeGreaterThan(64)
      const { path } = yield* peerAt(answer(line))
      const error = yield* Effect.flip(exchangeOn(path, identify, 64, noDeadline))
      expect(error.reason).toBe("too-large")
    }))

  it.scopedLive("a reply that passes the limit and then stalls is refused too-large at once, not at the deadline", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* peerAt((connection) => {
        connection.socket.once("data", () => {
          connection.socket.write("x".repeat(40))
          setTimeout(() => connection.socket.write("x".repeat(40)), 20)
        })
      })
      const started = yield* Clock.currentTimeMillis
      const error = yield* Effect.flip(exchangeFor(home, { control: Duration.seconds(3), maxLine: 64 }))
      const elapsed = (yield* Clock.currentTimeMillis) - started
      expect(error.reason).toBe("too-large")
      expect(elapsed).toBeLessThan(1000)
      expect(yield* closesWithin(peer.connections[0], 1000)).toBe(true)
    }))

  it.scopedLive("a peer flooding bytes without a newline is cut off: too-large, and the client closes", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* peerAt(flood)
      const started = yield* Clock.currentTimeMillis
      const error = yield* Effect.flip(exchangeFor(home, { control: Duration.seconds(5), maxLine: 512 * 1024 }))
      const elapsed = (yield* Clock.currentTimeMillis) - started
      expect(error.reason).toBe("too-large")
      expect(elapsed).toBeLessThan(2000)
      expect(yield* closesWithin(peer.connections[0], 1000)).toBe(true)
    }))
})

describe("C2 the deadline", () => {
  // On the TestClock: the line is on the wire before the clock moves; the deadline is moved past by
  // hand, 1 ms short of it first, never waited for.
  it.scoped("a peer that never answers: timeout at the control deadline, not before, and the client closes", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* peerAt(silent)
      const fiber = yield* Effect.fork(Effect.flip(exchangeFor(home, { control: Duration.millis(300) })))
      yield* untilLineReceived(peer)
      yield* TestClock.adjust("299 millis")
      yield* realPause(20)
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust("1 millis")
      expect((yield* Fiber.join(fiber)).reason).toBe("timeout")
      expect(peer.connections).toHaveLength(1)
      expect(peer.connections[0]?.received().toString("utf8")).toBe(identifyLine)
      expect(yield* closesWithin(peer.connections[0], 1000)).toBe(true)
    }))

  it.scopedLive("a peer that drips bytes without a newline is still held to the one deadline", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* peerAt((connection) => {
        const timer = setInterval(() => {
          if (!connection.socket.destroyed) connection.socket.write(" ")
        }, 40)
        connection.socket.once("close", () => clearInterval(timer))
      })
      const started = yield* Clock.currentTimeMillis
      const error = yield* Effect.flip(exchangeFor(home, { control: Duration.millis(300) }))
      const elapsed = (yield* Clock.currentTimeMillis) - started
      expect(error.reason).toBe("timeout")
      expect(elapsed).toBeLessThan(2000)
      expect(yield* closesWithin(peer.connections[0], 1000)).toBe(true)
    }))

  it.scoped("a peer that sends half a line and stalls: timeout", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* peerAt((connection) => {
        connection.socket.once("data", () => connection.socket.write("{\"ok\":true,\"protocol\":1"))
      })
      const fiber = yield* Effect.fork(Effect.flip(exchangeFor(home, { control: Duration.millis(300) })))
      yield* untilLineReceived(peer)
      yield* TestClock.adjust("300 millis")
      expect((yield* Fiber.join(fiber)).reason).toBe("timeout")
    }))
})

describe("C2 a gateway that cannot take the connection", () => {
  it.scopedLive("a listener whose queue is full (EAGAIN) is lost, not not-running: a gateway runs there", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const path = join(yield* makeDir(join(root, "home")), "gateway.sock")
      // A queue of one that this process has not accepted from yet: connections made in the same
      // tick as ours fill it, and the kernel refuses ours at once with EAGAIN.
      const server = Net.createServer((socket) => socket.destroy())
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen({ path, backlog: 1 }, () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const fillers = yield* Effect.acquireRelease(
        Effect.sync(() => [0, 1, 2].map(() => Net.createConnection({ path }).on("error", () => {}))),
        (sockets) => Effect.sync(() => sockets.forEach((socket) => socket.destroy()))
      )
      expect(fillers).toHaveLength(3)
      const error = yield* Effect.flip(exchangeOn(path, identify, 1024, noDeadline))
      expect(error.reason).toBe("lost")
    }))
})

describe("C2 a connection closed before a whole line", () => {
  it.scopedLive("a peer that closes after half a line: lost", () =>
    Effect.gen(function*() {
      const { path } = yield* peerAt((connection) => {
        connection.socket.once("data", () => connection.socket.end("{\"ok\":true,\"protocol\":1,\"id\":1"))
      })
      const error = yield* Effect.flip(exchangeOn(path, identify, 1024, noDeadline))
      expect(error.reason).toBe("lost")
    }))

  it.scopedLive("a peer that reads the request and closes without a word: lost", () =>
    Effect.gen(function*() {
      const { path } = yield* peerAt((connection) => {
        connection.socket.once("data", () => connection.socket.end())
      })
      const error = yield* Effect.flip(exchangeOn(path, identify, 1024, noDeadline))
      expect(error.reason).toBe("lost")
    }))

  it.scopedLive("a peer that drops the connection at once: lost", () =>
    Effect.gen(function*() {
      const { path } = yield* peerAt((connection) => connection.socket.destroy())
      const error = yield* Effect.flip(exchangeOn(path, identify, 1024, noDeadline))
      expect(error.reason).toBe("lost")
    }))

  it.scopedLive("through GatewaySocketLive, a peer that closes without a newline is lost, not a timeout", () =>
    Effect.gen(function*() {
      const { home } = yield* peerAt((connection) => {
        connection.socket.once("data", () => connection.socket.end("{\"ok\":true"))
      })
      const error = yield* Effect.flip(exchangeFor(home, { control: Duration.seconds(3) }))
      expect(error.reason).toBe("lost")
    }))
})

describe("C2 a malformed reply", () => {
  const malformed: ReadonlyArray<readonly [string, string | Buffer]> = [
    ["not JSON", "hello\n"],
    ["an empty line", "\n"],
    ["JSON followed by more on the same line", `${okLine.trimEnd()} x\n`],
    ["a JSON array", "[1]\n"],
    ["a JSON string", "\"ok\"\n"],
    ["JSON null", "null\n"],
    ["a JSON number", "1\n"],
    [
      "invalid UTF-8 inside a string",
      Buffer.concat([
        Buffer.from("{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":{\"s\":\""),
        Buffer.from([0xff]),
        Buffer.from("\"}}\n")
      ])
    ],
    [
      "a byte-order mark before the object",
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from("{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":{}}\n")
      ])
    ],
    ["a success with the wrong id", "{\"ok\":true,\"protocol\":1,\"id\":2,\"result\":{}}\n"],
    ["a success without id", "{\"ok\":true,\"protocol\":1,\"result\":{}}\n"],
    ["protocol 2", "{\"ok\":true,\"protocol\":2,\"id\":1,\"result\":{}}\n"],
    ["protocol \"1\" as a string", "{\"ok\":true,\"protocol\":\"1\",\"id\":1,\"result\":{}}\n"],
    ["a success without protocol", "{\"ok\":true,\"id\":1,\"result\":{}}\n"],
    ["ok as a string", "{\"ok\":\"yes\",\"protocol\":1,\"id\":1,\"result\":{}}\n"],
    ["no ok at all", "{\"protocol\":1,\"id\":1,\"result\":{}}\n"],
    ["a success with an extra top-level member", "{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":{},\"extra\":1}\n"],
    ["a success without result", "{\"ok\":true,\"protocol\":1,\"id\":1}\n"],
    ["a success whose result is an array", "{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":[]}\n"],
    ["a success whose result is null", "{\"ok\":true,\"protocol\":1,\"id\":1,\"result\":null}\n"],
    ["a refusal whose error is not a string", "{\"ok\":false,\"protocol\":1,\"id\":1,\"error\":5}\n"],
    ["a refusal without error", "{\"ok\":false,\"protocol\":1,\"id\":1}\n"],
    [
      "the recorded \"response too large\" refusal (no protocol, no id)",
      "{\"ok\": false, \"error\": \"response too large\"}\n"
    ]
  ]

  for (const [name, line] of malformed) {
    it.scopedLive(`${name}: malformed`, () =>
      Effect.gen(function*() {
        const { path } = yield* peerAt(answer(line))
        const error = yield* Effect.flip(exchangeOn(path, identify, 1024, noDeadline))
        expect(error._tag).toBe("GatewayError")
        expect(error.reason).toBe("malformed")
      }))
  }
})

describe("C1.4 on connect", () => {
  it.scopedLive("a missing socket is not running, and no file is created", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const home = yield* makeDir(join(root, "home"))
      const path = join(home, "gateway.sock")
      const error = yield* Effect.flip(exchangeOn(path, identify, 1024, noDeadline))
      expect(error.reason).toBe("not-running")
      expect(yield* exists(path)).toBe(false)
      const viaLive = yield* Effect.flip(exchangeFor(home))
      expect(viaLive.reason).toBe("not-running")
      expect(yield* exists(path)).toBe(false)
      expect(yield* exists(join(home, "gateway.sock.path"))).toBe(false)
    }))
})
