// The deadline armed once per exchange (D25): heard at its time on the fiber's clock (the TestClock
// here, a timer on the live clock), disarmed when the exchange ends, and heard by every fs call of
// the path checks, so an exchange ends as `timeout` wherever it waits.
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Option, TestClock } from "effect"
import { renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import * as nodePath from "node:path"
import { awaitBefore, type Deadline, noDeadline, withDeadline } from "../../src/services/deadline.js"
import { homeHash, locate, privateRealHome } from "../../src/services/gateway-path.js"
import type { GatewayError } from "../../src/services/GatewayError.js"
import { exchangeOn } from "../../src/services/GatewaySocket.js"
import { realPause } from "../support/buddy.js"
import { identify, listen, makeDir, tempRoot, writeFile } from "./support/gateway-fixtures.js"

/** A listener that records when it was called, and a Deferred done when it was. */
const listener = Effect.map(Deferred.make<void>(), (heard) => ({
  heard,
  expire: () => Deferred.unsafeDone(heard, Effect.void)
}))

/** A deadline that passes as the `n`th listener (1-based) starts listening; `listened` counts them. */
const passingAt = (n: number) => {
  let listened = 0
  const deadline: Deadline = {
    onExpire: (expire) => {
      listened += 1
      if (listened === n) expire()
    }
  }
  return { deadline, listened: () => listened }
}

describe("withDeadline on the TestClock", () => {
  it.effect("the listener hears the deadline at its time, not a millisecond before", () =>
    withDeadline("1 second", (deadline) =>
      Effect.gen(function*() {
        const { expire, heard } = yield* listener
        deadline.onExpire(expire)
        yield* TestClock.adjust("999 millis")
        yield* Effect.yieldNow()
        expect(yield* Deferred.isDone(heard)).toBe(false)
        yield* TestClock.adjust("1 millis")
        yield* Deferred.await(heard)
      })))

  it.effect("a listener that comes after the deadline passed hears it at once", () =>
    withDeadline("1 second", (deadline) =>
      Effect.gen(function*() {
        const first = yield* listener
        deadline.onExpire(first.expire)
        yield* TestClock.adjust("1 second")
        yield* Deferred.await(first.heard)
        let late = 0
        deadline.onExpire(() => {
          late += 1
        })
        expect(late).toBe(1)
      })))

  it.effect("each listener replaces the one before: the exchange waits for one thing at a time", () =>
    withDeadline("1 second", (deadline) =>
      Effect.gen(function*() {
        const earlier = yield* listener
        const later = yield* listener
        deadline.onExpire(earlier.expire)
        deadline.onExpire(later.expire)
        yield* TestClock.adjust("1 second")
        yield* Deferred.await(later.heard)
        expect(yield* Deferred.isDone(earlier.heard)).toBe(false)
      })))

  it.effect("a deadline whose exchange ended is disarmed: nobody hears it pass", () =>
    Effect.gen(function*() {
      const { expire, heard } = yield* listener
      expect(
        yield* withDeadline("1 second", (deadline) => Effect.sync(() => deadline.onExpire(expire)).pipe(Effect.as(7)))
      )
        .toBe(7)
      yield* TestClock.adjust("2 seconds")
      yield* Effect.yieldNow()
      expect(yield* Deferred.isDone(heard)).toBe(false)
    }))

  it.effect("it is disarmed however the exchange ends, a failure too", () =>
    Effect.gen(function*() {
      const { expire, heard } = yield* listener
      const error = yield* Effect.flip(
        withDeadline("1 second", (deadline) => Effect.suspend(() => (deadline.onExpire(expire), Effect.fail("ended"))))
      )
      expect(error).toBe("ended")
      yield* TestClock.adjust("2 seconds")
      yield* Effect.yieldNow()
      expect(yield* Deferred.isDone(heard)).toBe(false)
    }))
})

describe("withDeadline on the live clock: a timer", () => {
  it.live("passes in real time", () =>
    withDeadline("20 millis", (deadline) =>
      Effect.gen(function*() {
        const { expire, heard } = yield* listener
        deadline.onExpire(expire)
        yield* Deferred.await(heard).pipe(Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "unheard" }))
      })))

  it.live("is cleared when its exchange ends", () =>
    Effect.gen(function*() {
      const { expire, heard } = yield* listener
      yield* withDeadline("20 millis", (deadline) => Effect.sync(() => deadline.onExpire(expire)))
      yield* realPause(80)
      expect(yield* Deferred.isDone(heard)).toBe(false)
    }))

  it.live("a deadline longer than a Node timer can hold, or none, is never armed (Node would fire it at once)", () =>
    Effect.gen(function*() {
      const long = yield* listener
      const infinite = yield* listener
      const edge = yield* listener
      yield* withDeadline(
        Duration.days(30),
        (deadline) => Effect.sync(() => deadline.onExpire(long.expire)).pipe(Effect.zipRight(realPause(40)))
      )
      // One millisecond past the longest a timer holds (2³¹−1 ms): the first that must not be armed.
      yield* withDeadline(
        Duration.millis(2 ** 31),
        (deadline) => Effect.sync(() => deadline.onExpire(edge.expire)).pipe(Effect.zipRight(realPause(40)))
      )
      yield* withDeadline(
        Duration.infinity,
        (deadline) => Effect.sync(() => deadline.onExpire(infinite.expire)).pipe(Effect.zipRight(realPause(40)))
      )
      expect(yield* Deferred.isDone(long.heard)).toBe(false)
      expect(yield* Deferred.isDone(edge.heard)).toBe(false)
      expect(yield* Deferred.isDone(infinite.heard)).toBe(false)
    }))
})

type Ended = "expired" | { readonly failed: unknown }
const expired = (): Ended => "expired"
const failed = (cause: unknown): Ended => ({ failed: cause })

describe("awaitBefore", () => {
  it.effect("a promise that settles first gives its value, or its rejection through onFailure", () =>
    Effect.gen(function*() {
      expect(yield* awaitBefore(noDeadline, () => Promise.resolve(3), failed, expired)).toBe(3)
      expect(yield* Effect.flip(awaitBefore(noDeadline, () => Promise.reject(new Error("x")), failed, expired)))
        .toStrictEqual({ failed: new Error("x") })
    }))

  it.effect("a call that throws at once is a rejection, not a defect", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(awaitBefore(
        noDeadline,
        (): Promise<number> => {
          throw new Error("sync")
        },
        failed,
        expired
      ))
      expect(error).toStrictEqual({ failed: new Error("sync") })
    }))

  it.effect("a promise that never settles ends with onExpired at the deadline, not before", () =>
    withDeadline("5 seconds", (deadline) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(
          Effect.flip(awaitBefore(deadline, () => new Promise<number>(() => {}), failed, expired))
        )
        yield* TestClock.adjust("4999 millis")
        yield* Effect.yieldNow()
        expect(Option.isNone(yield* fiber.poll)).toBe(true)
        yield* TestClock.adjust("1 millis")
        expect(yield* fiber.await).toStrictEqual(yield* Effect.exit(Effect.succeed("expired")))
      })))

  it.effect("past its deadline already: onExpired, and the call is never made", () =>
    Effect.gen(function*() {
      let made = 0
      const error = yield* Effect.flip(awaitBefore(
        passingAt(1).deadline,
        () => {
          made += 1
          return Promise.resolve(1)
        },
        failed,
        expired
      ))
      expect(error).toBe("expired")
      expect(made).toBe(0)
    }))
})

/** A home with no direct socket and a valid pointer to a listening Gen B socket: six fs waits to find it. */
const pointerHome = Effect.gen(function*() {
  const root = yield* tempRoot
  const home = yield* makeDir(nodePath.join(root, "home"))
  const dir = yield* makeDir(nodePath.join(root, "run", `hermes-gw-${homeHash(home)}`))
  const socket = nodePath.join(dir, "control.sock")
  const peer = yield* listen(socket)
  yield* writeFile(nodePath.join(home, "gateway.sock.path"), socket)
  return { home, socket, peer }
})

// realpath of the home with lstat of it and of gateway.sock, together (the home is its own real path,
// D47); open, stat and read of the pointer; lstat of the gateway's directory and of the socket it names.
const pathChecks = [
  "realpath of the home with the lstat of it and of gateway.sock",
  "open of the pointer",
  "stat of the pointer",
  "read of the pointer",
  "lstat of the directory",
  "lstat of the socket"
]

describe("the path checks wait no longer than the exchange's deadline (C2)", () => {
  it.scopedLive("a deadline that never passes: the socket is found after six fs waits, each of them listening", () =>
    Effect.gen(function*() {
      const { home, socket } = yield* pointerHome
      const counting = passingAt(0)
      expect(yield* locate(home, counting.deadline)).toStrictEqual({ home, socket })
      expect(counting.listened()).toBe(pathChecks.length)
    }))

  for (const [index, check] of pathChecks.entries()) {
    it.scopedLive(`a deadline that passes during the ${check} is a timeout, and nothing is dialed`, () =>
      Effect.gen(function*() {
        const { home, peer } = yield* pointerHome
        const error = yield* Effect.flip(locate(home, passingAt(index + 1).deadline))
        expect(error.reason).toBe("timeout")
        expect(peer.connections).toHaveLength(0)
      }))
  }

  it.scopedLive("a deadline that passes during the lstat of a linked home's real path is a timeout, and nothing is dialed", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* pointerHome
      symlinkSync(home, `${home}-link`)
      const error = yield* Effect.flip(locate(`${home}-link`, passingAt(2).deadline))
      expect(error.reason).toBe("timeout")
      expect(peer.connections).toHaveLength(0)
    }))

  it.scopedLive("a deadline that passes while the socket is connecting or waiting for the reply is a timeout", () =>
    Effect.gen(function*() {
      const { peer, socket } = yield* pointerHome
      const error = yield* Effect.flip(exchangeOn(socket, identify, 1024, passingAt(1).deadline))
      expect(error.reason).toBe("timeout")
      yield* realPause(20)
      expect(peer.bytesReceived()).toBe(0)
    }))
})

describe("a deadline that passes with nobody listening", () => {
  it.live("is nothing: the exchange was between waits, and the next wait hears it at once", () =>
    withDeadline("5 millis", (deadline) =>
      Effect.gen(function*() {
        yield* realPause(40)
        const { expire, heard } = yield* listener
        deadline.onExpire(expire)
        expect(yield* Deferred.isDone(heard)).toBe(true)
      })))
})

/**
 * A deadline that never passes but runs `change` as the `n`th wait begins, before its fs call is
 * made: the path changes between two checks, as another process could make it.
 */
const changingAt = (n: number, change: () => void): Deadline => {
  let listened = 0
  return {
    onExpire: () => {
      listened += 1
      if (listened === n) change()
    }
  }
}

describe("a home that changes between its realpath and its lstat", () => {
  // The gateway walk (locate) and the holder lock's check of the home alone (privateRealHome, D39)
  // answer it alike. The walk looks at a home that is its own real path in the realpath's own wait
  // (D47): it is given the home by a link, so that its lstat of the real path is a wait of its own.
  const walks: ReadonlyArray<
    readonly [string, (home: string, deadline: Deadline) => Effect.Effect<unknown, GatewayError>, boolean]
  > = [["locate", locate, true], ["privateRealHome", privateRealHome, false]]
  /** The home as the walk is given it: by a link beside it, or as it is. */
  const given = (home: string, linked: boolean) => {
    if (!linked) return home
    symlinkSync(home, `${home}-link`)
    return `${home}-link`
  }
  for (const [walk, check, linked] of walks) {
    it.scopedLive(`${walk}: gone: not running`, () =>
      Effect.gen(function*() {
        const { home } = yield* pointerHome
        const error = yield* Effect.flip(
          check(given(home, linked), changingAt(2, () => rmSync(home, { recursive: true })))
        )
        expect(error.reason).toBe("not-running")
      }))

    it.scopedLive(`${walk}: its parent replaced by a file: unsafe-home`, () =>
      Effect.gen(function*() {
        const { home } = yield* pointerHome
        const parent = nodePath.dirname(home)
        const error = yield* Effect.flip(check(
          given(home, linked),
          changingAt(2, () => {
            renameSync(parent, `${parent}.moved`)
            writeFileSync(parent, "not a directory")
          })
        ))
        expect(error.reason).toBe("unsafe-home")
        rmSync(parent)
        renameSync(`${parent}.moved`, parent)
      }))
  }
})
