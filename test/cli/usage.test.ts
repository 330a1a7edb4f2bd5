// The command line itself: help, version, completions, usage errors (exit 2, a short message on
// stderr, nothing on stdout), and no escape codes when stdout is no terminal or NO_COLOR is set.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { buddyVersion } from "../../src/version.js"
import { BIN, buddy, REPO, spawnBuddy } from "./support/buddy-process.js"

/** util-linux `script` runs a command on a pseudo-terminal: the one case where colour is allowed. */
const hasScript = (() => {
  const found = execFileSync("sh", ["-c", "command -v script || true"], { encoding: "utf8" })
  return found.trim() !== ""
})()

const USAGE = "Usage: buddy <command> [--json] [--home DIR]; `buddy --help` lists the commands."

describe("the buddy command line", () => {
  it("is the package's bin, so `npx buddy` runs it from a clone", async () => {
    const pkg = JSON.parse(fs.readFileSync(`${REPO}package.json`, "utf8")) as { bin: unknown; version: string }
    expect(pkg.bin).toStrictEqual({ buddy: "bin/buddy.js" })
    expect(buddyVersion).toBe(pkg.version)
    const ran = await buddy(["--version"], { command: ["npx", "--no", "--", "buddy"] })
    expect(ran).toMatchObject({ code: 0, stderr: [] })
    expect(ran.stdout[0]).toBe(pkg.version)
  })

  it("--help lists every command with its one-line description", async () => {
    for (const env of [{}, { NO_COLOR: "1" }]) {
      const ran = await buddy(["--help"], { env })
      expect(ran.code).toBe(0)
      const text = ran.rawStdout
      expect(text).toMatch(
        /\n  - status \[--json\] \[--home DIR\] +Read Buddy's state: works, waits, or unknown and why\.\n/
      )
      expect(text).toMatch(
        /- sign-in start \[--json\] \[--home DIR\] +Start a sign-in and hold it here until it ends; Ctrl-C cancels it\./
      )
      expect(text).toMatch(/- sign-out \[--json\] \[--home DIR\] +Sign Buddy out of ChatGPT\./)
      expect(text).toMatch(
        /- serve \[--config FILE\] \[--port N\] \[--home DIR\] +Serve the HTTP app the Launchpad uses, on 127\.0\.0\.1 \(journal on stdout\)\./
      )
      expect(text).toMatch(/- sign-in +Sign Buddy in to ChatGPT with a code you enter in the browser\./)
      expect(text).toContain("--version")
      expect(text).toContain("--completions")
    }
  })

  it("prints shell completions naming the commands", async () => {
    const ran = await buddy(["--completions", "bash"])
    expect(ran.code).toBe(0)
    expect(ran.rawStdout).toContain("buddy,sign__in,start)")
    expect(ran.rawStdout).toContain("buddy,sign__out)")
  })

  const mistakes: Array<[string, ReadonlyArray<string>, string]> = [
    [
      "an unknown command",
      ["bogus"],
      "Invalid subcommand for buddy - use one of 'status', 'sign-in', 'sign-out', 'serve'"
    ],
    ["an unknown flag", ["status", "--jsn"], "Received unknown argument: '--jsn'"],
    ["an extra argument", ["status", "extra"], "Received unknown argument: 'extra'"],
    ["an extra argument to sign-in start", ["sign-in", "start", "now"], "Received unknown argument: 'now'"],
    ["--home without its directory", ["sign-out", "--home"], "Received unknown argument: '--home'"]
  ]
  for (const [name, args, complaint] of mistakes) {
    it(`refuses ${name} with exit 2 and a short usage message on stderr`, async () => {
      for (const env of [{}, { NO_COLOR: "1" }]) {
        const ran = await buddy(args, { env })
        expect(ran.code).toBe(2)
        expect(ran.stdout).toStrictEqual([])
        expect(ran.stderr.filter((line) => line !== "")).toStrictEqual([complaint, USAGE])
      }
    })
  }

  it.skipIf(!hasScript)(
    "keeps @effect/cli's colour on a terminal, and drops it there too when NO_COLOR is set",
    async () => {
      const onTerminal = (env: Record<string, string>) =>
        spawnBuddy([], { env, command: ["script", "-qec", `"${process.execPath}" "${BIN}" --help`, "/dev/null"] })
          .finished
      const coloured = await onTerminal({})
      expect(coloured.code).toBe(0)
      expect(coloured.rawStdout).toContain("\u001b[")
      const plain = await onTerminal({ NO_COLOR: "1" })
      expect(plain.code).toBe(0)
      expect(plain.rawStdout).toContain(`buddy ${buddyVersion}`)
      expect(plain.rawStdout).not.toContain("\u001b")
    }
  )
})
