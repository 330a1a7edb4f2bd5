// Socket activation as `buddy serve` reads it (src/serve/activation.ts): the service manager's
// LISTEN_PID and LISTEN_FDS, for this process only and removed once read, and the handed socket's
// path found from its descriptor's inode in the kernel's list of Unix sockets. The whole, with
// systemd-socket-activate and the real executable: test/boundary/socket-activation.test.ts.
import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { firstPassedFd, handedPath, handedSockets } from "../../src/serve/activation.js"

describe("the sockets a service manager hands over", () => {
  const read = (env: Record<string, string>, pid = 42) => {
    const copy: NodeJS.ProcessEnv = { ...env, OTHER: "kept" }
    return { handed: handedSockets(copy, pid), left: copy }
  }

  it("are one descriptor, fd 3, when LISTEN_PID is this process and LISTEN_FDS is 1, and the words are removed", () => {
    expect(read({ LISTEN_PID: "42", LISTEN_FDS: "1", LISTEN_FDNAMES: "serve" })).toStrictEqual({
      handed: { _tag: "One", fd: firstPassedFd },
      left: { OTHER: "kept" }
    })
    expect(firstPassedFd).toBe(3)
  })

  it("are none for another process, none given, or a count that is no number; several are said as such", () => {
    expect(read({ LISTEN_PID: "43", LISTEN_FDS: "1" })).toStrictEqual({
      handed: { _tag: "None" },
      left: { OTHER: "kept" }
    })
    expect(read({ LISTEN_FDS: "1" }).handed).toStrictEqual({ _tag: "None" })
    expect(read({ LISTEN_PID: "42" }).handed).toStrictEqual({ _tag: "None" })
    for (const count of ["0", "x", "-1", "1.5", "", "12345"]) {
      expect([count, read({ LISTEN_PID: "42", LISTEN_FDS: count }).handed]).toStrictEqual([count, { _tag: "None" }])
    }
    expect(read({ LISTEN_PID: "42", LISTEN_FDS: "2" }).handed).toStrictEqual({ _tag: "Several", count: 2 })
    expect(read({ LISTEN_PID: "42", LISTEN_FDS: "9999" }).handed).toStrictEqual({ _tag: "Several", count: 9999 })
  })
})

describe("a handed socket's path", () => {
  const table = [
    "Num       RefCount Protocol Flags    Type St Inode Path",
    "0000000000000000: 00000002 00000000 00010000 0001 01 1234 /run/other.sock",
    "0000000000000000: 00000002 00000000 00010000 0001 01 5678 /run/buddy/serve.sock",
    "0000000000000000: 00000002 00000000 00010000 0001 01 9999 @abstract",
    "0000000000000000: 00000003 00000000 00000000 0001 03 4321",
    "0000000000000000: 00000002 00000000 00010000 0001 01 2468 /run/with space.sock",
    // Spaces before and between the fields are no fields.
    "   0000000000000000:  00000002 00000000 00010000 0001 01  1357  /run/spaced.sock"
  ].join("\n")

  const found = async (link: string) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-handed-"))
    const descriptor = path.join(dir, "3")
    await fs.symlink(link, descriptor)
    await fs.writeFile(path.join(dir, "unix"), table)
    const result = await Effect.runPromise(handedPath(3, { descriptor, sockets: path.join(dir, "unix") }))
    await fs.rm(dir, { recursive: true })
    return result
  }

  it("is the path the kernel lists for the descriptor's inode", async () => {
    expect(await found("socket:[5678]")).toStrictEqual(Option.some("/run/buddy/serve.sock"))
    expect(await found("socket:[2468]")).toStrictEqual(Option.some("/run/with space.sock"))
    expect(await found("socket:[1357]")).toStrictEqual(Option.some("/run/spaced.sock"))
  })

  it("is none for an abstract or unnamed socket, an inode not listed, or a descriptor that is no socket", async () => {
    for (
      const link of [
        "socket:[9999]",
        "socket:[4321]",
        "socket:[1]",
        "/etc/passwd",
        "socket:[56789]",
        "anon_socket:[5678]",
        "socket:[5678]x",
        "socket:[]"
      ]
    ) {
      expect([link, await found(link)]).toStrictEqual([link, Option.none()])
    }
  })

  it("is none when the descriptor cannot be read", async () => {
    expect(await Effect.runPromise(handedPath(3, { descriptor: "/nonexistent/3", sockets: "/proc/net/unix" })))
      .toStrictEqual(Option.none())
  })
})
