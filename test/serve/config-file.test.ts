// `buddy serve --config FILE` read as src/serve/config-file.ts reads it (C6 "Config", C8, D30): files
// in a temporary directory, each refusal's sentences exact, the 64 KiB bound at its edge, anything but
// a regular file refused without blocking, broken JSON said at its line and column without repeating
// the file's text. The same over the real executable: test/cli/serve.test.ts.
import { Effect, Either, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { configSizeLimit, readConfig } from "../../src/serve/config-file.js"
import { seemingAccount } from "../support/own-account.js"
import { requires } from "../support/required.js"
import { runChild } from "./support/mutant-child.js"

/** Giving files to other accounts takes root: skipped with a word elsewhere, never in CI (D32). */
const asRoot = requires(process.getuid?.() === 0, "root", "run the suite as root, as CI does") ? it : it.skip

let dir = ""
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-config-file-"))
})
afterAll(() => fs.rm(dir, { recursive: true, force: true }))

const fields = "hermesHome (optional), launchpadOrigin, buddyOrigin (needed for Buddy to be present), " +
  "environment, locale and socketGroup (optional)"

/** What readConfig makes of `file`: the config, or the sentences of its refusal. */
const read = async (file: string) =>
  Either.mapLeft(await Effect.runPromise(Effect.either(readConfig(Option.some(file)))), (error) => error.lines)

let written = 0
/** A file holding `text`, and what readConfig makes of it. */
const readText = async (text: string) => {
  const file = path.join(dir, `config-${written++}.json`)
  await fs.writeFile(file, text)
  return { file, result: await read(file) }
}

const valid = {
  hermesHome: "/var/lib/hermes",
  launchpadOrigin: "https://launchpad.example",
  buddyOrigin: "https://buddy.example",
  environment: "hosted-personal",
  locale: "cs",
  socketGroup: "www-data"
}

describe("the config file", () => {
  it("is absent without --config: Buddy absent, local, English, the Launchpad on loopback", async () => {
    expect(await Effect.runPromise(readConfig(Option.none()))).toStrictEqual({
      launchpadOrigin: "http://127.0.0.1",
      environment: "local",
      locale: "en"
    })
  })

  it("is read whole when it is a JSON object with the fields ConfigFile names", async () => {
    expect((await readText(JSON.stringify(valid))).result).toStrictEqual(Either.right(valid))
    const minimal = { launchpadOrigin: "http://127.0.0.1:8080", environment: "local", locale: "en", socketGroup: 33 }
    expect((await readText(JSON.stringify(minimal))).result).toStrictEqual(Either.right(minimal))
  })

  it("is closed once read, whatever came of it", async () => {
    const { file } = await readText(JSON.stringify(valid))
    const big = await readText(" ".repeat(configSizeLimit + 1))
    await read(dir)
    const open = await Promise.all(
      (await fs.readdir("/proc/self/fd")).map((fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => ""))
    )
    expect(open.filter((target) => target === file || target === big.file || target === dir)).toStrictEqual([])
  })

  it("is read up to 64 KiB exactly, and refused one byte past, saying its size", async () => {
    expect(configSizeLimit).toBe(65_536)
    const text = JSON.stringify(valid)
    const edge = await readText(text.padEnd(configSizeLimit, " "))
    expect(edge.result).toStrictEqual(Either.right(valid))
    const over = await readText(text.padEnd(configSizeLimit + 1, " "))
    expect(over.result).toStrictEqual(Either.left([
      `buddy serve: the --config file ${over.file} holds 65537 bytes; a config file holds at most 65536.`
    ]))
  })

  it("is refused when it is no regular file: a directory, a FIFO with no writer (at once), a device", async () => {
    const fifo = path.join(dir, "fifo.json")
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0)
    for (const file of [dir, fifo, "/dev/null"]) {
      expect(await read(file)).toStrictEqual(Either.left([
        `buddy serve: the --config file ${file} is not a regular file; give the path of a JSON file.`
      ]))
    }
  })

  it("is refused when it cannot be opened, in the system's words and code without the path again", async () => {
    const missing = path.join(dir, "missing.json")
    expect(await read(missing)).toStrictEqual(Either.left([
      `buddy serve: the --config file ${missing} cannot be read: no such file or directory (ENOENT).`
    ]))
    // Node's words end with the call and the path, which may hold a line break: all of it is cut.
    const broken = path.join(dir, "a'\nb.json")
    expect(await read(broken)).toStrictEqual(Either.left([
      `buddy serve: the --config file ${broken} cannot be read: no such file or directory (ENOENT).`
    ]))
    const under = path.join(dir, "config-0.json", "x.json")
    expect(await read(under)).toStrictEqual(Either.left([
      `buddy serve: the --config file ${under} cannot be read: not a directory (ENOTDIR).`
    ]))
  })
})

describe("who may have written the config file (C8, as C1 asks of Hermes's pointer)", () => {
  asRoot("refuses one another account owns, naming it and never its content", async () => {
    const { file } = await readText(JSON.stringify({ ...valid, launchpadOrigin: "https://secret.example" }))
    await fs.chown(file, 65534, 65534)
    const result = await read(file)
    expect(result).toStrictEqual(Either.left([
      `buddy serve: the --config file ${file} belongs to nobody (uid 65534); buddy reads only a config file of its ` +
      "own account (root) or root's, so that no other account can change what it serves."
    ]))
    expect(JSON.stringify(result)).not.toContain("secret")
  })

  it("refuses one the group or others may write, in the words its bits say, with a fix for the file alone", async () => {
    const cases = [[0o664, "the group"], [0o646, "others"], [0o666, "the group and others"], [
      0o620,
      "the group"
    ]] as const
    for (const [mode, who] of cases) {
      const { file } = await readText(JSON.stringify(valid))
      await fs.chmod(file, mode)
      expect(await read(file)).toStrictEqual(Either.left([
        `buddy serve: the --config file ${file} has mode 0${mode.toString(8)}: ${who} may write to it; buddy reads ` +
        `only a config file no other account may change. Fix: chmod go-w ${file}`
      ]))
    }
    for (const mode of [0o600, 0o644, 0o640, 0o400]) {
      const { file } = await readText(JSON.stringify(valid))
      await fs.chmod(file, mode)
      expect([mode, await read(file)]).toStrictEqual([mode, Either.right(valid)])
    }
  })

  asRoot("takes one root owns from another account, and tells that account to ask root for a fix", async () => {
    const closed = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "buddy-config-root-")), "serve.json")
    await fs.chmod(path.dirname(closed), 0o755)
    await fs.writeFile(closed, JSON.stringify(valid), { mode: 0o644 })
    expect(await read(closed)).toStrictEqual(Either.right(valid))
    expect(JSON.parse(await runChild("./config-child.ts", [closed], { uid: 65534, gid: 65534 }))).toStrictEqual({
      ok: valid
    })
    await fs.chmod(closed, 0o664)
    expect(JSON.parse(await runChild("./config-child.ts", [closed], { uid: 65534, gid: 65534 }))).toStrictEqual({
      lines: [
        `buddy serve: the --config file ${closed} has mode 0664: the group may write to it; buddy reads only a ` +
        `config file no other account may change. Fix: sudo chmod go-w ${closed}`
      ]
    })
    await fs.chown(closed, 0, 0)
    await fs.chmod(closed, 0o644)
    const mine = path.join(path.dirname(closed), "theirs.json")
    await fs.writeFile(mine, JSON.stringify(valid), { mode: 0o644 })
    await fs.chown(mine, 33, 33)
    expect(JSON.parse(await runChild("./config-child.ts", [mine], { uid: 65534, gid: 65534 }))).toStrictEqual({
      lines: [
        `buddy serve: the --config file ${mine} belongs to www-data (uid 33); buddy reads only a config file of its ` +
        "own account (nobody) or root's, so that no other account can change what it serves."
      ]
    })
    await fs.rm(path.dirname(closed), { recursive: true })
  })
})

describe("who may have written the config file, for an account that is not root", () => {
  // buddy's checks take it to be nobody; the reads are root's (../support/own-account.ts).
  asRoot("takes its own and root's, refuses a third account's, and says sudo for root's file", async () => {
    const restore = seemingAccount(65534)
    const results = await Effect.runPromise(Effect.ensuring(
      Effect.promise(async () => {
        const own = (await readText(JSON.stringify(valid))).file
        await fs.chown(own, 65534, 65534)
        const roots = (await readText(JSON.stringify(valid))).file
        const rootsOpen = (await readText(JSON.stringify(valid))).file
        await fs.chmod(rootsOpen, 0o664)
        const ownOpen = (await readText(JSON.stringify(valid))).file
        await fs.chown(ownOpen, 65534, 65534)
        await fs.chmod(ownOpen, 0o664)
        const theirs = (await readText(JSON.stringify(valid))).file
        await fs.chown(theirs, 33, 33)
        return {
          files: { rootsOpen, ownOpen, theirs },
          read: [await read(own), await read(roots), await read(rootsOpen), await read(ownOpen), await read(theirs)]
        }
      }),
      Effect.sync(restore)
    ))
    const { rootsOpen, ownOpen, theirs } = results.files
    expect(results.read).toStrictEqual([
      Either.right(valid),
      Either.right(valid),
      Either.left([
        `buddy serve: the --config file ${rootsOpen} has mode 0664: the group may write to it; buddy reads only a ` +
        `config file no other account may change. Fix: sudo chmod go-w ${rootsOpen}`
      ]),
      Either.left([
        `buddy serve: the --config file ${ownOpen} has mode 0664: the group may write to it; buddy reads only a ` +
        `config file no other account may change. Fix: chmod go-w ${ownOpen}`
      ]),
      Either.left([
        `buddy serve: the --config file ${theirs} belongs to www-data (uid 33); buddy reads only a config file of its ` +
        "own account (nobody) or root's, so that no other account can change what it serves."
      ])
    ])
  })
})

describe("a config file with a member twice", () => {
  it("is refused by the member's name and where it comes again, never its values", async () => {
    const text = `{
  "launchpadOrigin": "https://secret.example",
  "environment": "local",
  "launchpadOrigin": "https://launchpad.example"
}
`
    const { file, result } = await readText(text)
    expect(result).toStrictEqual(Either.left([
      `buddy serve: the --config file ${file} has "launchpadOrigin" twice (again at line 4, column 3); JSON keeps only ` +
      "the last, so say it once."
    ]))
    expect(JSON.stringify(result)).not.toContain("example")
  })

  it("names a long member by its first 40 characters", async () => {
    const long = "x".repeat(39) + "yz"
    const text = `{"environment":"local","${long}":1,"${long}":2}`
    const { file, result } = await readText(text)
    expect(result).toStrictEqual(Either.left([
      `buddy serve: the --config file ${file} has "${"x".repeat(39)}y" twice (again at line 1, column ${
        text.lastIndexOf(`"${long}"`) + 1
      }); JSON keeps only the last, so say it once.`
    ]))
  })
})

describe("a config file's defaults", () => {
  it("takes locale as en when it is left out, and the scheme's default port written out as the origin without it", async () => {
    const { result } = await readText(JSON.stringify({
      launchpadOrigin: "https://launchpad.example:443",
      buddyOrigin: "http://buddy.example:80",
      environment: "hosted-personal"
    }))
    expect(result).toStrictEqual(Either.right({
      launchpadOrigin: "https://launchpad.example",
      buddyOrigin: "http://buddy.example",
      environment: "hosted-personal",
      locale: "en"
    }))
  })
})

describe("a config file that is no JSON", () => {
  const said = async (text: string) => {
    const { file, result } = await readText(text)
    return Either.mapLeft(result, (lines) => lines.map((line) => line.replace(file, "FILE")))
  }

  it("is said at the line and column where it breaks, and what was expected there", async () => {
    expect(await said("{\n  \"launchpadOrigin\": \"https://l.example\",\n  \"environment\": \"local\",\n}\n"))
      .toStrictEqual(Either.left([
        "buddy serve: the --config file FILE is not valid JSON at line 4, column 1: expected a member's name in double quotes."
      ]))
    expect(await said("{\"locale\": \"en\" \"x\"}")).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 1, column 17: expected ',' or '}' after the member."
    ]))
    expect(await said("{a")).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 1, column 2: expected a member's name in double quotes, or '}'."
    ]))
    expect(await said("{}\n\n  x")).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 3, column 3: expected nothing after the JSON value."
    ]))
  })

  it("is said where it ends when it ends too soon", async () => {
    expect(await said("{\"a\":")).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 1, column 6, where it ends: expected a value (an object, array, string, number, true, false or null)."
    ]))
    expect(await said("")).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 1, column 1, where it ends: expected a value (an object, array, string, number, true, false or null)."
    ]))
    expect(await said("{\n  \"locale\": \"en")).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 2, column 16, where it ends: expected the string's closing '\"'."
    ]))
  })

  // V8 names no position for an unexpected token and quotes up to ten characters either side of it,
  // the file's own text: a secret beside a missing quote was said on stderr, and the column was the
  // file's end. The break is said where it is, and not a character of the file is repeated.
  it("is said where an unexpected token is, never repeating the file's text", async () => {
    const secret = "sk-live-SECRET0123456789"
    const text =
      `{\n  "launchpadOrigin": "https://launchpad.example",\n  "environment": "local",\n  "note": ${secret},\n  "locale": "en"\n}\n`
    const result = await said(text)
    expect(result).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 4, column 11: expected a value (an object, array, string, number, true, false or null)."
    ]))
    const [line] = Either.getLeft(result).pipe(Option.getOrElse((): ReadonlyArray<string> => []))
    for (const piece of ["sk", "SECRET", "note", secret.slice(0, 3)]) expect(line).not.toContain(piece)
    for (
      const [broken, column] of [
        ["}", 1],
        [`{"hermesHome": "${secret}", "locale": }`, 54],
        [`  }   ${secret}   `, 3]
      ] as const
    ) {
      expect(await said(broken)).toStrictEqual(Either.left([
        `buddy serve: the --config file FILE is not valid JSON at line 1, column ${column}: expected a value (an object, array, string, number, true, false or null).`
      ]))
    }
  })

  it("is read past a byte order mark, which is no part of its JSON", async () => {
    expect((await readText(`\uFEFF${JSON.stringify(valid)}`)).result).toStrictEqual(Either.right(valid))
    // Only one: a second is text, and said at the first column after the mark.
    expect(await said(`\uFEFF\uFEFF${JSON.stringify(valid)}`)).toStrictEqual(Either.left([
      "buddy serve: the --config file FILE is not valid JSON at line 1, column 1: expected a value (an object, array, string, number, true, false or null)."
    ]))
  })
})

describe("a config file that is JSON but not a config", () => {
  const said = async (json: unknown) => (await readText(JSON.stringify(json))).result

  it("says what it holds instead of an object", async () => {
    const kinds: ReadonlyArray<readonly [unknown, string]> = [
      [[1, 2], "an array"],
      [null, "null"],
      [12, "a number"],
      ["text", "a string"],
      [true, "a boolean"]
    ]
    for (const [json, kind] of kinds) {
      expect(await said(json)).toStrictEqual(Either.left([
        `buddy serve: the --config file holds ${kind}, not a JSON object with ${fields}.`
      ]))
    }
  })

  it("names every field missing or wrong, and what it must be, never the value", async () => {
    expect(await said({})).toStrictEqual(Either.left([
      "buddy serve: the --config file has no \"launchpadOrigin\"; it must be an origin such as https://launchpad.example: scheme, host and optional port, nothing after.",
      "buddy serve: the --config file has no \"environment\"; it must be one of hosted-personal, hosted-organization-personal, hosted-organization-team, local."
    ]))
    expect(
      await said({
        hermesHome: 5,
        launchpadOrigin: "https://launchpad.example/",
        buddyOrigin: "buddy.example",
        environment: "production",
        locale: "de",
        socketGroup: "Bad Group!"
      })
    ).toStrictEqual(Either.left([
      "buddy serve: the --config file's \"hermesHome\" must be a directory path, as a string.",
      "buddy serve: the --config file's \"launchpadOrigin\" must be an origin such as https://launchpad.example: scheme, host and optional port, nothing after.",
      "buddy serve: the --config file's \"buddyOrigin\" must be an origin such as https://buddy.example: scheme, host and optional port, nothing after.",
      "buddy serve: the --config file's \"environment\" must be one of hosted-personal, hosted-organization-personal, hosted-organization-team, local.",
      "buddy serve: the --config file's \"locale\" must be one of cs, en.",
      "buddy serve: the --config file's \"socketGroup\" must be a group's name or gid, such as \"buddy-proxy\" or 33."
    ]))
  })

  it("names a field buddy does not know, quoted and cut at 40 characters, and says allowedAccounts went with TCP", async () => {
    const long = `a"${"b".repeat(60)}`
    expect(await said({ ...valid, [long]: 1, token: "secret" })).toStrictEqual(Either.left([
      `buddy serve: the --config file has a field buddy does not know: ${
        JSON.stringify(long.slice(0, 40))
      }; it takes ${fields}.`,
      `buddy serve: the --config file has a field buddy does not know: "token"; it takes ${fields}.`
    ]))
    expect(await said({ ...valid, allowedAccounts: ["www-data"] })).toStrictEqual(Either.left([
      "buddy serve: the --config file has \"allowedAccounts\", which went with TCP: buddy serve listens only on its " +
      "socket; name the proxy's group in \"socketGroup\" instead (docs/operator-guide.md)."
    ]))
  })

  it("answers a field it does not know with the nearest it does, as the command line answers a flag", async () => {
    const { launchpadOrigin, ...rest } = valid
    expect(await said({ ...rest, launchpadOrign: launchpadOrigin })).toStrictEqual(Either.left([
      `buddy serve: the --config file has a field buddy does not know: "launchpadOrign"; it takes ${fields}.`,
      "buddy serve: did you mean \"launchpadOrigin\"?",
      "buddy serve: the --config file has no \"launchpadOrigin\"; it must be an origin such as https://launchpad.example: scheme, host and optional port, nothing after."
    ]))
    // Case, a prefix, and two names at once.
    expect(await said({ ...valid, Locale: "en", hermes: "/h", origin: "x" })).toStrictEqual(Either.left([
      `buddy serve: the --config file has a field buddy does not know: "Locale"; it takes ${fields}.`,
      "buddy serve: did you mean \"locale\"?",
      `buddy serve: the --config file has a field buddy does not know: "hermes"; it takes ${fields}.`,
      "buddy serve: did you mean \"hermesHome\"?",
      `buddy serve: the --config file has a field buddy does not know: "origin"; it takes ${fields}.`
    ]))
    expect(await said({ ...valid, socketGroups: 33, environmnet: "local" })).toStrictEqual(Either.left([
      `buddy serve: the --config file has a field buddy does not know: "socketGroups"; it takes ${fields}.`,
      "buddy serve: did you mean \"socketGroup\"?",
      `buddy serve: the --config file has a field buddy does not know: "environmnet"; it takes ${fields}.`,
      "buddy serve: did you mean \"environment\"?"
    ]))
    // Two names as near as each other: both, joined with "or".
    expect(await said({ ...valid, l: "en" })).toStrictEqual(Either.left([
      `buddy serve: the --config file has a field buddy does not know: "l"; it takes ${fields}.`,
      "buddy serve: did you mean \"launchpadOrigin\" or \"locale\"?"
    ]))
  })

  it("refuses the Launchpad's origin as buddy's own, and takes one without buddyOrigin", async () => {
    expect(await said({ ...valid, buddyOrigin: valid.launchpadOrigin })).toStrictEqual(Either.left([
      "buddy serve: the --config file's launchpadOrigin and buddyOrigin are the same origin; buddy's own origin must " +
      "differ from the Launchpad's page, or every POST from that page is refused."
    ]))
    const { buddyOrigin: _, ...withoutBuddy } = valid
    expect(await said(withoutBuddy)).toStrictEqual(Either.right(withoutBuddy))
  })
})
