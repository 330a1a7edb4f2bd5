// The accounts and groups files as `buddy serve` reads them (src/serve/accounts.ts): a uid named by
// the first name listed for it, a group's name resolved to its gid, anything else passed over.
import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parseAccounts, readAccounts } from "../../src/serve/accounts.js"
import { admissionWarning, namedLimit } from "../../src/serve/group-admission.js"

const passwd =
  "root:x:0:0:root:/root:/bin/bash\n# a comment\nwww-data:x:33:33::/var/www:/usr/sbin/nologin\nalias:x:33:33::/:/bin/sh\n" +
  "+nis\nbroken:x:abc:1::/:/bin/sh\n:x:5:5::/:/bin/sh\n"
const group =
  "root:x:0:\nwww-data:x:33:\ncaddy:x:108:\n+nis\nodd:x:-1:\npartial:x:12ab:\nshadowed:x:7:\nshadowed:x:8:\n"

describe("the accounts and groups files", () => {
  it("name a uid by the first name listed for it, or by its number", () => {
    const accounts = parseAccounts(passwd, group)
    expect([accounts.describe(33), accounts.describe(0), accounts.describe(7), accounts.describe(5)]).toStrictEqual([
      "www-data (uid 33)",
      "root (uid 0)",
      "uid 7",
      "uid 5"
    ])
  })

  it("resolve a group's name to its gid, and nothing for a name no line gives a number", () => {
    const accounts = parseAccounts(passwd, group)
    expect(["www-data", "caddy", "root", "+nis", "odd", "partial", "nope", "shadowed"].map(accounts.gidOf))
      .toStrictEqual([
        Option.some(33),
        Option.some(108),
        Option.some(0),
        Option.none(),
        Option.none(),
        Option.none(),
        Option.none(),
        Option.some(8)
      ])
  })

  it("are read from the files given, and an unreadable one knows nobody", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-accounts-"))
    await fs.writeFile(path.join(dir, "passwd"), passwd)
    await fs.writeFile(path.join(dir, "group"), group)
    const read = await Effect.runPromise(
      readAccounts({ passwd: path.join(dir, "passwd"), group: path.join(dir, "group") })
    )
    expect([read.describe(33), read.gidOf("caddy")]).toStrictEqual(["www-data (uid 33)", Option.some(108)])
    const none = await Effect.runPromise(readAccounts({ passwd: path.join(dir, "no"), group: path.join(dir, "no") }))
    expect([none.describe(33), none.gidOf("caddy")]).toStrictEqual(["uid 33", Option.none()])
    await fs.rm(dir, { recursive: true })
  })
})

describe("whom a group admits", () => {
  const people = "root:x:0:0::/:/bin/sh\nbuddy:x:999:999::/:/bin/sh\nwww-data:x:33:33::/:/bin/sh\n" +
    "caddy:x:995:995::/:/bin/sh\nphp:x:1001:33::/:/bin/sh\n"
  const groups = "root:x:0:\nwww-data:x:33:caddy, buddy\nbuddy-proxy:x:998:caddy\ncaddy:x:995:\nempty:x:50:\n"

  it("is its listed members and every account whose primary group it is, each once, sorted", () => {
    const accounts = parseAccounts(people, groups)
    expect([33, 998, 995, 50, 7].map(accounts.admitted)).toStrictEqual([
      ["buddy", "caddy", "php", "www-data"],
      ["caddy"],
      ["caddy"],
      [],
      []
    ])
    expect([accounts.nameOf(995), accounts.nameOf(7), accounts.groupName(998), accounts.groupName(7)]).toStrictEqual([
      "caddy",
      "uid 7",
      Option.some("buddy-proxy"),
      Option.none()
    ])
  })

  it("is said at start when it is more than one account besides buddy's own and root, naming them", () => {
    const accounts = parseAccounts(people, groups)
    expect(admissionWarning(accounts, 33, "buddy")).toStrictEqual(Option.some(
      "buddy serve: the socketGroup www-data admits 3 accounts to the socket (caddy, php, www-data); each may do all " +
        "the proxy may, signing Buddy out included. Give the proxy a group of its own holding its account alone " +
        "(docs/operator-guide.md, \"A proxy group of its own\")."
    ))
    expect([998, 995, 50].map((gid) => admissionWarning(accounts, gid, "buddy"))).toStrictEqual([
      Option.none(),
      Option.none(),
      Option.none()
    ])
    // buddy's own account and root are never counted; a gid no group names is named by its number.
    const withRoot = parseAccounts(people, "g:x:60:root,buddy,caddy\n")
    expect(admissionWarning(withRoot, 60, "buddy")).toStrictEqual(Option.none())
    const unnamed = parseAccounts(people + "a:x:2001:70::/:/bin/sh\nb:x:2002:70::/:/bin/sh\n", "")
    expect(admissionWarning(unnamed, 70, "buddy")).toStrictEqual(Option.some(
      "buddy serve: the socketGroup gid 70 admits 2 accounts to the socket (a, b); each may do all the proxy may, " +
        "signing Buddy out included. Give the proxy a group of its own holding its account alone " +
        "(docs/operator-guide.md, \"A proxy group of its own\")."
    ))
  })

  it("names at most eight, and counts the rest", () => {
    expect(namedLimit).toBe(8)
    const names = Array.from({ length: 10 }, (_, i) => `m${i}`)
    const crowd = parseAccounts("", `crowd:x:80:${names.join(",")}\n`)
    expect(admissionWarning(crowd, 80, "buddy")).toStrictEqual(Option.some(
      `buddy serve: the socketGroup crowd admits 10 accounts to the socket (${names.slice(0, 8).join(", ")} and 2 ` +
        "more); each may do all the proxy may, signing Buddy out included. Give the proxy a group of its own holding " +
        "its account alone (docs/operator-guide.md, \"A proxy group of its own\")."
    ))
    const exactly = parseAccounts("", `crowd:x:80:${names.slice(0, 8).join(",")}\n`)
    expect(Option.getOrThrow(admissionWarning(exactly, 80, "buddy"))).toContain(`(${names.slice(0, 8).join(", ")});`)
  })
})
