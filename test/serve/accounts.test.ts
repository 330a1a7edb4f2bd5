// The accounts and groups files as `buddy serve` reads them (src/serve/accounts.ts): a uid named by
// the first name listed for it, a group's name resolved to its gid, anything else passed over.
import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parseAccounts, readAccounts } from "../../src/serve/accounts.js"

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
