// The offer to open the sign-in page (issue 18.4, D28), on a real pseudo-terminal (util-linux
// `script`): shown only there, and the page opened only after Enter, with the desktop's opener (a
// stand-in `xdg-open` on PATH records what it was given). Without a terminal there is no offer.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { onPath, requires } from "../support/required.js"
import { BIN, buddy, cleanEnv } from "./support/buddy-process.js"
import { fakeGateway, tempDir } from "./support/cleanup.js"
import { fastStart, PAGE } from "./support/fast-start.js"

const hasScript = requires(onPath("script"), "script (util-linux)", "apt-get install bsdutils")

const until = async (what: string, ready: () => boolean | Promise<boolean>) => {
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (await ready()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no ${what} within 10 s`)
}

describe("buddy sign-in start offers to open the page", () => {
  it.skipIf(!hasScript)(
    "on a terminal: after Enter, and only then, the page opens",
    async () => {
      const fake = await fakeGateway()
      const sessionId = await fastStart(fake)
      const bin = await tempDir("buddy-opener-")
      const opened = join(bin, "opened")
      await fs.writeFile(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`, { mode: 0o755 })
      const child = spawn("script", [
        "-qec",
        `"${process.execPath}" "${BIN}" sign-in start --home "${fake.home}"`,
        "/dev/null"
      ], {
        env: cleanEnv({ PATH: `${bin}:${process.env["PATH"] ?? ""}` }),
        stdio: ["pipe", "pipe", "pipe"]
      })
      let seen = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (seen += chunk))
      const finished = new Promise<number | null>((resolve) => child.once("close", resolve))
      await until("offer", () => seen.includes("Press Enter to open the page in your browser."))
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(existsSync(opened)).toBe(false)
      child.stdin.write("\n")
      await until("opened page", () => existsSync(opened))
      expect(await fs.readFile(opened, "utf8")).toBe(PAGE)
      expect(fake.approve(sessionId)).toBe(true)
      expect(await finished).toBe(0)
      expect(seen).toContain("Buddy is signed in.")
    }
  )

  it("without a terminal, or with --json, nothing is offered", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    setTimeout(() => fake.approve(sessionId), 300)
    const words = await buddy(["sign-in", "start", "--home", fake.home])
    expect(words.code).toBe(0)
    expect(words.rawStdout).not.toContain("Press Enter")
  })
})
