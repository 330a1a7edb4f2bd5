// Who may reach `buddy serve`, in pieces (src/serve/who-may-reach.ts; D22, D40): the socket's modes
// for each sharing, which directory found at its place may be used, the names it serves, a
// request's name read from its Host fields and target, and the refusals said on stderr. The whole,
// over the wire and as another uid: test/boundary/listener-trust.test.ts.
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import {
  authoritiesOf,
  directoryFits,
  makeRefusalReport,
  modesOf,
  nameOf,
  pin,
  reportedLimit
} from "../../src/serve/who-may-reach.js"

const owner = { _tag: "Owner" } as const
const group = { _tag: "Group", gid: 33 } as const

describe("the socket's modes", () => {
  it("are the owner's alone, or open to one group only as far as connecting needs", () => {
    expect(modesOf(owner)).toStrictEqual({ directory: 0o700, socket: 0o600 })
    expect(modesOf(group)).toStrictEqual({ directory: 0o710, socket: 0o660 })
  })

  it("take a directory found closed to group and others, or already shared with exactly this group", () => {
    expect(directoryFits(owner, { gid: 33, mode: 0o700 })).toBe(true)
    expect(directoryFits(owner, { gid: 33, mode: 0o500 })).toBe(true)
    for (const mode of [0o710, 0o701, 0o750, 0o770, 0o705]) {
      expect([mode, directoryFits(owner, { gid: 33, mode })]).toStrictEqual([mode, false])
    }
    expect(directoryFits(group, { gid: 1000, mode: 0o700 })).toBe(true)
    expect(directoryFits(group, { gid: 33, mode: 0o710 })).toBe(true)
    expect(directoryFits(group, { gid: 33, mode: 0o700 })).toBe(true)
    for (const [gid, mode] of [[1000, 0o710], [33, 0o711], [33, 0o730], [33, 0o750], [33, 0o740], [33, 0o701]]) {
      expect([gid, mode, directoryFits(group, { gid: gid!, mode: mode! })]).toStrictEqual([gid, mode, false])
    }
  })
})

describe("the names it serves", () => {
  // Made in each test, not as the file loads: what a module does while no test runs is a static mutant's (D37).
  const names = () => authoritiesOf("https://Launchpad.example:8443")

  it("are the socket's loopback names without a port and the Launchpad's host with its port, lowercase", () => {
    expect([...names()]).toStrictEqual(["localhost", "127.0.0.1", "[::1]", "launchpad.example:8443"])
    expect([...authoritiesOf("not an origin")]).toStrictEqual(["localhost", "127.0.0.1", "[::1]"])
  })

  it("pin a request's Host, any case, and refuse any other name, port or a missing Host", () => {
    for (const host of ["localhost", "127.0.0.1", "[::1]", "LOCALHOST", "launchpad.example:8443"]) {
      expect([host, pin(names(), "/api/buddy", host)]).toStrictEqual([host, Option.some({ target: "/api/buddy" })])
    }
    for (const host of ["evil.example", "localhost:80", "127.0.0.1:8080", "launchpad.example", "localhost.", ""]) {
      expect([host, pin(names(), "/api/buddy", host)]).toStrictEqual([host, Option.none()])
    }
    expect(pin(names(), "/api/buddy", undefined)).toStrictEqual(Option.none())
    // An origin-form target that holds a URL is still in origin form.
    expect(pin(names(), "/api/buddy?to=http://evil.example/", "localhost")).toStrictEqual(
      Option.some({ target: "/api/buddy?to=http://evil.example/" })
    )
  })

  it("serve an absolute-form target by its own authority, in origin form", () => {
    expect(pin(names(), "http://localhost/api/buddy?x=1", "evil.example")).toStrictEqual(
      Option.some({ target: "/api/buddy?x=1" })
    )
    expect(pin(names(), "HTTP://127.0.0.1", undefined)).toStrictEqual(Option.some({ target: "/" }))
    expect(pin(names(), "http://localhost?q", undefined)).toStrictEqual(Option.some({ target: "/?q" }))
    for (
      const target of [
        "http://evil.example/api/buddy",
        "https://localhost/api/buddy",
        "http://user@localhost/api/buddy",
        "ftp://localhost/",
        "http://localhost#x",
        "xhttp://localhost/api/buddy",
        "http://localhost/api/buddy#x"
      ]
    ) {
      expect([target, pin(names(), target, "localhost")]).toStrictEqual([target, Option.none()])
    }
  })
})

describe("a request's name", () => {
  const names = () => authoritiesOf("https://launchpad.example")
  const request = (hosts: ReadonlyArray<string>, target = "/api/buddy", httpVersion = "1.1") => ({
    hosts,
    target,
    httpVersion
  })

  it("is served from its one Host, or from an absolute target", () => {
    expect(nameOf(names(), request(["localhost"]))).toStrictEqual({ _tag: "Served", target: "/api/buddy" })
    expect(nameOf(names(), request(["evil.example"], "http://localhost/api/buddy"))).toStrictEqual({
      _tag: "Served",
      target: "/api/buddy"
    })
    expect(nameOf(names(), request([], "http://localhost/api/buddy", "1.0"))).toStrictEqual({
      _tag: "Served",
      target: "/api/buddy"
    })
  })

  it("is malformed with two Host fields, whatever they say, or none in HTTP/1.1", () => {
    for (const hosts of [["localhost", "evil.example"], ["evil.example", "localhost"], ["localhost", "localhost"]]) {
      expect(nameOf(names(), request(hosts))).toStrictEqual({ _tag: "Malformed" })
    }
    expect(nameOf(names(), request([]))).toStrictEqual({ _tag: "Malformed" })
    expect(nameOf(names(), request(["localhost", "localhost"], "http://localhost/"))).toStrictEqual({
      _tag: "Malformed"
    })
  })

  it("is refused naming what it claimed: its Host, or an absolute target's scheme and authority", () => {
    expect(nameOf(names(), request(["evil.example"]))).toStrictEqual({ _tag: "Refused", name: "evil.example" })
    expect(nameOf(names(), request([], "/api/buddy", "1.0"))).toStrictEqual({ _tag: "Refused", name: "" })
    expect(nameOf(names(), request(["evil.example"], "/api/buddy?to=http://localhost/"))).toStrictEqual({
      _tag: "Refused",
      name: "evil.example"
    })
    expect(nameOf(names(), request(["localhost"], "https://evil.example:1/api/buddy?secret"))).toStrictEqual({
      _tag: "Refused",
      name: "https://evil.example:1"
    })
  })
})

describe("the refusals said on stderr", () => {
  const names = () => authoritiesOf("https://launchpad.example")
  const sayings = () => {
    const lines: Array<string> = []
    return { lines, report: makeRefusalReport(names(), (line) => lines.push(line)) }
  }

  it("say each name once, quoted and cut, with the names served", () => {
    const { lines, report } = sayings()
    report("evil.example")
    report("evil.example")
    report(`a"${"x".repeat(200)}`)
    expect(lines).toStrictEqual([
      "buddy serve: refused a request for \"evil.example\" (403 host-mismatch): it serves only localhost, 127.0.0.1, " +
      "[::1], launchpad.example; a proxy must send one of them as Host.",
      `buddy serve: refused a request for ${JSON.stringify(`a"${"x".repeat(78)}`)} (403 host-mismatch): it serves ` +
      "only localhost, 127.0.0.1, [::1], launchpad.example; a proxy must send one of them as Host."
    ])
  })

  it("stop after the limit, saying so once", () => {
    const { lines, report } = sayings()
    for (let n = 0; n < reportedLimit + 10; n++) report(`name-${n}`)
    report("name-0")
    expect(lines).toHaveLength(reportedLimit + 1)
    expect(lines.at(reportedLimit - 1)).toContain(`"name-${reportedLimit - 1}"`)
    expect(lines.at(-1)).toBe(
      "buddy serve: more requests under names it does not serve were refused; no more are said."
    )
  })
})
