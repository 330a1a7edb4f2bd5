// C1.3's pointer is read through a file handle that is closed after the read. A close that fails
// (EIO from a network filesystem, EBADF) must not turn a read that succeeded into a defect: the
// status read is documented never to fail, and a defect there answered GET /api/buddy 500.
// Node's `open` is wrapped here so that the pointer's handle closes and then reports a failure.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type * as FsPromises from "node:fs/promises"
import * as nodePath from "node:path"
import { vi } from "vitest"
import { homeHash } from "../../src/services/gateway-path.js"
import { exchangeFor, identifyLine, listen, makeDir, tempRoot, writeFile } from "./support/gateway-fixtures.js"

const closes = vi.hoisted(() => ({ failed: 0 }))
/** When set, the socket's lstat fails as a stalled network filesystem's does. */
const stalled = vi.hoisted(() => ({ socket: false }))

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>()
  const open: typeof actual.open = async (...args) => {
    const handle = await actual.open(...args)
    if (!String(args[0]).endsWith("gateway.sock.path")) return handle
    return new Proxy(handle, {
      get: (target, name) =>
        name === "close"
          ? () =>
            target.close().then(() => {
              closes.failed += 1
              return Promise.reject(Object.assign(new Error("EIO: i/o error, close"), { code: "EIO" }))
            })
          : typeof Reflect.get(target, name) === "function"
          ? Reflect.get(target, name).bind(target)
          : Reflect.get(target, name)
    })
  }
  // buddy calls lstat with a path alone.
  const lstat = (path: string) =>
    stalled.socket && path.endsWith("control.sock")
      ? Promise.reject(Object.assign(new Error("ETIMEDOUT: connection timed out, lstat"), { code: "ETIMEDOUT" }))
      : actual.lstat(path)
  return { ...actual, open, lstat, default: { ...actual, open, lstat } }
})

/** A private home whose pointer names a listening Gen B socket: the home and the peer there. */
const pointerScene = Effect.gen(function*() {
  const root = yield* tempRoot
  const home = yield* makeDir(nodePath.join(root, "home"), 0o700)
  const dir = yield* makeDir(nodePath.join(root, "run", `hermes-gw-${homeHash(home)}`), 0o700)
  const socket = nodePath.join(dir, "control.sock")
  const peer = yield* listen(socket)
  yield* writeFile(nodePath.join(home, "gateway.sock.path"), socket)
  return { home, peer }
})

describe("the pointer's handle", () => {
  it.scopedLive("closing with a failure still gives the socket the pointer named, and nothing dies", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* pointerScene
      const exit = yield* Effect.exit(exchangeFor(home))
      expect(closes.failed).toBe(1)
      expect(exit._tag).toBe("Success")
      expect(peer.connections).toHaveLength(1)
      expect(peer.connections[0]?.received().toString()).toBe(identifyLine)
    }))

  // The code a stalled network filesystem gives is the code our own deadline gives: both are timeout.
  it.scopedLive("a socket whose lstat fails ETIMEDOUT (a stalled network filesystem) is timeout, and nothing is sent", () =>
    Effect.gen(function*() {
      const { home, peer } = yield* pointerScene
      stalled.socket = true
      const error = yield* Effect.flip(exchangeFor(home)).pipe(Effect.ensuring(Effect.sync(() => {
        stalled.socket = false
      })))
      expect(error.reason).toBe("timeout")
      expect(peer.connections).toHaveLength(0)
    }))
})
