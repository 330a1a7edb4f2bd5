// The command line itself: the version, flags before the command, and usage errors: exit 2, the
// mistake said at the level where it was made with the nearest name, then that command's usage,
// on stderr, nothing on stdout, and no escape codes when stdout is no terminal or NO_COLOR is set.
// @effect/cli's --wizard and --log-level are not buddy's: refused at once, even on a closed stdin.
// Help itself: help.test.ts; completions: completions.test.ts.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { buddyVersion } from "../../src/version.js"
import { BIN, buddy, cleanEnv, REPO } from "./support/buddy-process.js"

const usageOf = {
  buddy: "Usage: buddy <command> [flags]; `buddy --help` lists its commands.",
  signIn: "Usage: buddy sign-in <command>; `buddy sign-in --help` lists its commands.",
  status: "Usage: buddy status [--json] [--home DIR]; `buddy status --help` says more.",
  start: "Usage: buddy sign-in start [--json] [--home DIR]; `buddy sign-in start --help` says more.",
  signOut: "Usage: buddy sign-out [--json] [--home DIR]; `buddy sign-out --help` says more.",
  serve:
    "Usage: buddy serve [--config FILE] [--socket PATH] [--home DIR] [--print-unit UNIT] [--account NAME]; `buddy serve --help` says more.",
  help: "Usage: buddy help [command]; `buddy help --help` says more."
}

describe("the buddy command line", { timeout: 60_000 }, () => {
  it("is the package's bin, so `npx buddy` runs it from a clone", async () => {
    const pkg = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")) as { bin: unknown; version: string }
    expect(pkg.bin).toStrictEqual({ buddy: "bin/buddy.js", "buddy-simulator": "bin/buddy-simulator.js" })
    expect(buddyVersion).toBe(pkg.version)
    const ran = await buddy(["--version"], { command: ["npx", "--no", "--", "buddy"] })
    expect(ran).toMatchObject({ code: 0, stderr: [] })
    expect(ran.stdout).toStrictEqual([pkg.version])
  })

  it("takes a command's flags before it as well as after it", async () => {
    const home = "/nonexistent/buddy-usage-test"
    const line = "{\"kind\":\"buddy\",\"state\":\"unknown\",\"reason\":\"not-running\"}"
    for (
      const args of [["status", "--json", "--home", home], ["--json", "--home", home, "status"], [
        "--home=" + home,
        "status",
        "--json"
      ]]
    ) {
      const ran = await buddy(args)
      expect({ args, code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
        args,
        code: 1,
        stdout: [line],
        stderr: []
      })
    }
  })

  const mistakes: Array<[string, ReadonlyArray<string>, ReadonlyArray<string>]> = [
    ["an unknown command", ["bogus"], ["unknown command \"bogus\" for \"buddy\"", usageOf.buddy]],
    ["a misspelt command", ["stat"], [
      "unknown command \"stat\" for \"buddy\"",
      "Did you mean \"status\"?",
      usageOf.buddy
    ]],
    [
      "a command started but not finished",
      ["sign"],
      ["unknown command \"sign\" for \"buddy\"", "Did you mean \"sign-in\" or \"sign-out\"?", usageOf.buddy]
    ],
    [
      "a misspelt subcommand of sign-in",
      ["sign-in", "stat"],
      ["unknown command \"stat\" for \"buddy sign-in\"", "Did you mean \"start\"?", usageOf.signIn]
    ],
    [
      "a misspelt flag",
      ["status", "--jsn"],
      ["unknown flag \"--jsn\" for \"buddy status\"", "Did you mean \"--json\"?", usageOf.status]
    ],
    ["an extra argument", ["status", "extra"], [
      "\"buddy status\" takes no arguments, but was given \"extra\"",
      usageOf.status
    ]],
    [
      "an extra argument to sign-in start",
      ["sign-in", "start", "now"],
      ["\"buddy sign-in start\" takes no arguments, but was given \"now\"", usageOf.start]
    ],
    ["--home without its directory", ["sign-out", "--home"], [
      "the value of --home is missing: --home DIR",
      usageOf.signOut
    ]],
    [
      "--home followed by a flag instead of its directory",
      ["sign-out", "--home", "--json"],
      ["the value of --home is missing: --home DIR", usageOf.signOut]
    ],
    ["--home with an empty value", ["status", "--home="], [
      "the value of --home is missing: --home DIR",
      usageOf.status
    ]],
    ["a value for a flag that takes none", ["status", "--json=false"], ["--json takes no value", usageOf.status]],
    ["--json on serve, which has none", ["serve", "--json"], [
      "unknown flag \"--json\" for \"buddy serve\"",
      usageOf.serve
    ]],
    ["--json before serve", ["--json", "serve"], ["unknown flag \"--json\" for \"buddy serve\"", usageOf.serve]],
    [
      "a group without its command",
      ["sign-in", "--json"],
      ["\"buddy sign-in\" needs a command: start", usageOf.signIn]
    ],
    [
      "flags without a command",
      ["--json"],
      ["\"buddy\" needs a command: status, sign-in, sign-out, serve, check or help", usageOf.buddy]
    ],
    ["@effect/cli's --log-level", ["--log-level", "debug", "status"], [
      "unknown flag \"--log-level\" for \"buddy\"",
      usageOf.buddy
    ]],
    ["a shell buddy has no completions for", ["--completions", "sh"], [
      "--completions takes bash, zsh or fish, not \"sh\"",
      usageOf.buddy
    ]],
    [
      "help for a command that does not exist",
      ["help", "sign-in", "stat"],
      ["unknown command \"stat\" for \"buddy sign-in\"", "Did you mean \"start\"?", usageOf.help]
    ],
    [
      "a name that could pass for our words",
      ["sta\u001b[2Jtus"],
      ["unknown command \"sta\\u001b[2Jtus\" for \"buddy\"", usageOf.buddy]
    ]
  ]
  for (const [name, args, complaint] of mistakes) {
    it(`refuses ${name} with exit 2, the mistake and the usage on stderr`, async () => {
      for (const env of [{}, { NO_COLOR: "1" }]) {
        const ran = await buddy(args, { env })
        expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toStrictEqual({
          code: 2,
          stdout: [],
          stderr: complaint
        })
      }
    })
  }

  // @effect/cli's wizard waited for answers on stdin forever, and drew its prompts with escape
  // codes whatever stdout was. "At once" is generous here: under a loaded test run a start alone
  // can take seconds, and the wizard never ended at all.
  it("refuses @effect/cli's --wizard at once on a closed stdin, without escape codes, at any level", {
    timeout: 60_000
  }, async () => {
    const runs: Array<[ReadonlyArray<string>, Record<string, string>, string]> = [
      [["--wizard"], {}, "buddy"],
      [["--wizard"], { NO_COLOR: "1" }, "buddy"],
      [["status", "--wizard"], {}, "buddy status"]
    ]
    for (const [args, env, command] of runs) {
      // spawnBuddy gives the child /dev/null as stdin: read, it ends at once.
      const ran = await buddy(args, { env })
      expect({ code: ran.code, stdout: ran.stdout, first: ran.stderr[0] }).toStrictEqual({
        code: 2,
        stdout: [],
        first: `unknown flag "--wizard" for "${command}"`
      })
    }
  })

  it("refuses --wizard at once while stdin stays open and silent", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [BIN, "--wizard"], { cwd: REPO, env: cleanEnv(), stdio: "pipe" })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    clearTimeout(timer)
    expect({ code, stdout, stderr }).toStrictEqual({
      code: 2,
      stdout: "",
      stderr: `unknown flag "--wizard" for "buddy"\n${usageOf.buddy}\n`
    })
  })
})

describe("the names a gh or tailscale user types (issue 18.4)", () => {
  it("version, completion SHELL, login and logout are what they stand for, flags and all", async () => {
    const home = "/nonexistent/buddy-aliases-test"
    for (
      const [alias, same] of [
        [["version"], ["--version"]],
        [["completion", "bash"], ["--completions", "bash"]],
        [["completion", "fish"], ["--completions", "fish"]],
        [["logout", "--json", "--home", home], ["sign-out", "--json", "--home", home]],
        [["--home", home, "login", "--json"], ["sign-in", "start", "--json", "--home", home]]
      ] as const
    ) {
      const [viaAlias, direct] = [await buddy(alias), await buddy(same)]
      expect({ alias, code: viaAlias.code, stdout: viaAlias.stdout, stderr: viaAlias.stderr }).toStrictEqual({
        alias,
        code: direct.code,
        stdout: direct.stdout,
        stderr: direct.stderr
      })
      expect(direct.stdout.length).toBeGreaterThan(0)
    }
  })

  it("help for an alias says what it stands for, with that command's flags", async () => {
    const ran = await buddy(["help", "logout"])
    expect(ran.code).toBe(0)
    expect(ran.stdout.slice(0, 4)).toStrictEqual([
      "Alias of buddy sign-out.",
      "",
      "USAGE",
      "  buddy logout [--json] [--home DIR]"
    ])
  })
})
