// The listener's trust in pieces (D22): the kernel's TCP tables read as the kernel writes them,
// host pinning, the accounts file, and the refusal to serve TCP where no peer can be proven. The
// whole, over the wire and as another uid: test/boundary/listener-trust.test.ts.
import { Effect, Either, Exit, Option } from "effect"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parseAccounts, resolveAccounts } from "../../src/cli/accounts.js"
import { authoritiesOf, pin } from "../../src/cli/host-pin.js"
import { peerAdmission } from "../../src/cli/listener-trust.js"
import { ownersIn, peersProvable, peerUid, procEnd, readTables } from "../../src/cli/peer-account.js"
import { tempDir } from "./support/cleanup.js"

// Two lines of a real /proc/net/tcp and /proc/net/tcp6 (x86_64): the server's accepted socket
// 127.0.0.1:45515 ← 127.0.0.1:53168, and the client's dual-stack socket, owned by uid 1000.
const tcp = [
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
  "   0: 0100007F:B1CB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 575 1 0",
  "   2: 0100007F:B1CB 0100007F:CFB0 01 00000000:00000000 00:00000000 00000000     0        0 5085 1 0",
  "   3: 0100007F:CFB1 0100007F:B1CB 06 00000000:00000000 03:00001177 00000000     0        0 0 3 0"
].join("\n")
const tcp6 = [
  "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
  "   0: 0000000000000000FFFF00000100007F:CFB0 0000000000000000FFFF00000100007F:B1CB 01 00000000:00000000 00:00000000 00000000  1000        0 5084 2 0"
].join("\n")

const server = { address: "127.0.0.1", port: 0xb1cb }

describe("the kernel's TCP tables", () => {
  it("write an IPv4 end in the kernel's byte order, and its ::ffff: form for tcp6", () => {
    expect(procEnd({ address: "127.0.0.1", port: 0xb1cb }, false, true)).toStrictEqual(Option.some("0100007F:B1CB"))
    expect(procEnd({ address: "127.0.0.1", port: 80 }, false, false)).toStrictEqual(Option.some("7F000001:0050"))
    expect(procEnd({ address: "::ffff:10.1.2.3", port: 1 }, true, true)).toStrictEqual(
      Option.some("0000000000000000FFFF00000302010A:0001")
    )
    expect(procEnd({ address: "::1", port: 1 }, false, true)).toStrictEqual(Option.none())
  })

  it("find the client socket's owner from the client's end first, in tcp or tcp6", () => {
    expect(peerUid(tcp, tcp6, { client: { address: "127.0.0.1", port: 0xcfb0 }, server })).toStrictEqual(
      Option.some(1000)
    )
    // Only in the IPv6 table: not found without it.
    expect(peerUid(tcp, "", { client: { address: "127.0.0.1", port: 0xcfb0 }, server })).toStrictEqual(Option.none())
    // The server's own accepted socket is keyed the other way round: it never vouches for a client.
    expect(peerUid(tcp, tcp6, { client: server, server: { address: "127.0.0.1", port: 0xcfb0 } })).toStrictEqual(
      Option.some(0)
    )
    // TIME_WAIT entries are listed as uid 0 whoever made them: never an owner.
    expect(peerUid(tcp, tcp6, { client: { address: "127.0.0.1", port: 0xcfb1 }, server })).toStrictEqual(Option.none())
    expect(peerUid(tcp, tcp6, { client: { address: "127.0.0.1", port: 1 }, server })).toStrictEqual(Option.none())
    expect(ownersIn(tcp, "0100007F:B1CB", "0100007F:CFB0")).toStrictEqual([0])
  })

  it("treat one connection listed with two owners as unknown", () => {
    const twice = `${tcp}\n   9: 0100007F:CFB0 0100007F:B1CB 01 0:0 00:0 0 33 0 1 0`
    expect(peerUid(twice, tcp6, { client: { address: "127.0.0.1", port: 0xcfb0 }, server })).toStrictEqual(
      Option.none()
    )
  })

  it("are required at start: another system, or a table that cannot be read, refuses TCP", async () => {
    const dir = await tempDir("buddy-peer-tables-")
    const v4 = path.join(dir, "tcp")
    await fs.writeFile(v4, tcp)
    expect(Exit.isSuccess(await Effect.runPromiseExit(peersProvable("linux", [v4, path.join(dir, "tcp6")])))).toBe(
      true
    )
    const other = await Effect.runPromiseExit(peersProvable("darwin", [v4]))
    expect(other).toStrictEqual(Exit.fail(expect.objectContaining({ reason: "not-linux" })))
    const missing = await Effect.runPromiseExit(peersProvable("linux", [path.join(dir, "none")]))
    expect(missing).toStrictEqual(Exit.fail(expect.objectContaining({ reason: "unreadable", code: "ENOENT" })))
    // Only tcp6 may be missing (a kernel without IPv6).
    expect(Exit.isSuccess(await Effect.runPromiseExit(readTables([v4, path.join(dir, "tcp6")])))).toBe(true)
  })
})

describe("the peer admission", () => {
  /** A real loopback connection and the admission's verdict on the accepted side. */
  const verdictFor = async (allowed: ReadonlySet<number>, tables?: ReadonlyArray<string>) => {
    const reports: Array<string> = []
    const admission = peerAdmission({
      allowed,
      report: (line) => reports.push(line),
      describe: (uid) => `uid ${uid}`,
      ...(tables === undefined ? {} : { tables })
    })
    const listener = net.createServer()
    const accepted = new Promise<net.Socket>((resolve) => listener.once("connection", resolve))
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
    const address = listener.address()
    const client = net.connect(typeof address === "object" && address !== null ? address.port : 0, "127.0.0.1")
    const socket = await accepted
    admission.accepted(socket)
    const admitted = await new Promise<boolean>((resolve) => {
      admission.whenAdmitted(socket, () => resolve(true))
      socket.once("close", () => resolve(false))
    })
    client.destroy()
    socket.destroy()
    listener.close()
    return { admitted, reports }
  }

  it("admits this account's own connection and refuses it when this account is not allowed", async () => {
    const own = process.getuid?.() ?? -1
    expect(await verdictFor(new Set([own]))).toStrictEqual({ admitted: true, reports: [] })
    expect(await verdictFor(new Set([own + 1]))).toStrictEqual({
      admitted: false,
      reports: [
        `buddy serve: refused a connection from uid ${own}: only this account and the config's allowedAccounts ` +
        "may connect; its refusals are not repeated."
      ]
    })
  })

  it("refuses a connection when the tables cannot be read", async () => {
    const own = process.getuid?.() ?? -1
    expect(await verdictFor(new Set([own]), ["/nonexistent/tcp"])).toStrictEqual({
      admitted: false,
      reports: [
        "buddy serve: refused a connection whose account could not be established; such refusals are not repeated."
      ]
    })
  })
})

describe("host pinning", () => {
  const tcpNames = authoritiesOf({ _tag: "Tcp", port: 8080 }, "https://launchpad.example:8443")

  it("serves this server's loopback names with its port and the Launchpad's host", () => {
    for (const host of ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST:8080", "launchpad.example:8443"]) {
      expect([host, pin(tcpNames, "/api/buddy", host)]).toStrictEqual([host, Option.some({ target: "/api/buddy" })])
    }
  })

  it("refuses any other name, port or a missing Host", () => {
    for (const host of ["evil.example:8080", "127.0.0.1", "127.0.0.1:8081", "launchpad.example", "localhost.:8080"]) {
      expect([host, pin(tcpNames, "/api/buddy", host)]).toStrictEqual([host, Option.none()])
    }
    expect(pin(tcpNames, "/api/buddy", undefined)).toStrictEqual(Option.none())
  })

  it("leaves the port out only on port 80, and on the socket serves the bare loopback names", () => {
    const on80 = authoritiesOf({ _tag: "Tcp", port: 80 }, "http://127.0.0.1")
    expect(pin(on80, "/", "localhost")).toStrictEqual(Option.some({ target: "/" }))
    expect(pin(on80, "/", "localhost:80")).toStrictEqual(Option.some({ target: "/" }))
    const socket = authoritiesOf({ _tag: "Socket" }, "https://launchpad.example")
    expect([...socket].sort()).toStrictEqual(["127.0.0.1", "[::1]", "launchpad.example", "localhost"])
  })

  it("serves an absolute-form target by its own authority, in origin form", () => {
    expect(pin(tcpNames, "http://127.0.0.1:8080/api/buddy?x=1", "evil.example")).toStrictEqual(
      Option.some({ target: "/api/buddy?x=1" })
    )
    expect(pin(tcpNames, "HTTP://localhost:8080", undefined)).toStrictEqual(Option.some({ target: "/" }))
    expect(pin(tcpNames, "http://localhost:8080?q", undefined)).toStrictEqual(Option.some({ target: "/?q" }))
    for (
      const target of [
        "http://evil.example:8080/api/buddy",
        "https://127.0.0.1:8080/api/buddy",
        "http://user@127.0.0.1:8080/api/buddy",
        "ftp://127.0.0.1:8080/"
      ]
    ) {
      expect([target, pin(tcpNames, target, "127.0.0.1:8080")]).toStrictEqual([target, Option.none()])
    }
  })
})

describe("the accounts file", () => {
  const accounts = parseAccounts(
    "root:x:0:0:root:/root:/bin/bash\n# a comment\nwww-data:x:33:33::/var/www:/usr/sbin/nologin\nalias:x:33:33::/:/bin/sh\n+nis\n"
  )

  it("names a uid by the first name listed for it, or by its number", () => {
    expect([accounts.describe(33), accounts.describe(0), accounts.describe(7)]).toStrictEqual([
      "www-data (uid 33)",
      "root (uid 0)",
      "uid 7"
    ])
  })

  it("resolves allowedAccounts by name or uid, and names those no account has", () => {
    expect(resolveAccounts(accounts, ["www-data", 33, 1000])).toStrictEqual(Either.right([33, 1000]))
    expect(resolveAccounts(accounts, ["www-data", "nope", "+nis"])).toStrictEqual(Either.left(["nope", "+nis"]))
  })
})
