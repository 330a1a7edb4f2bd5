// The offer to open the sign-in page (issue 18.4, D28), on a real pseudo-terminal (util-linux
// `script`): shown only there, and the page opened only after Enter, with the desktop's opener (a
// stand-in `xdg-open` on PATH records what it was given). Without a terminal there is no offer.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ink, reset } from "../../src/cli/qr-code.js"
import { drawnCode, hasZbar, readDrawn } from "../support/qr.js"
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

/** The environment without anything that says a desktop is here, and with `extra`. */
const desktopEnv = (extra: Record<string, string>) => {
  const env = cleanEnv()
  for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "BROWSER"]) delete env[name]
  return { ...env, ...extra }
}

/**
 * \`buddy sign-in start\` on a pseudo-terminal \`columns\` wide (util-linux \`script\`; stty sets the
 * size, which script leaves at 0 without a terminal of its own), with \`env\`; what it shows, as it comes.
 */
const onTerminal = (home: string, env: NodeJS.ProcessEnv, columns: number, flags: ReadonlyArray<string> = []) => {
  const child = spawn("script", [
    "-qec",
    `stty cols ${columns} rows 50; exec "${process.execPath}" "${BIN}" sign-in start --home "${home}" ${
      flags.join(" ")
    }`,
    "/dev/null"
  ], { env, stdio: ["pipe", "pipe", "pipe"] })
  let seen = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (seen += chunk))
  const finished = new Promise<number | null>((resolve) => child.once("close", resolve))
  return { child, shown: () => seen.replaceAll("\r\n", "\n"), finished }
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
        env: desktopEnv({ PATH: `${bin}:${process.env["PATH"] ?? ""}`, DISPLAY: ":0" }),
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
      expect(seen).toContain(`Opening ${PAGE} in your browser.`)
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

  it.skipIf(!hasScript)(
    "on a host with no desktop, Enter says no browser can open here and runs no opener",
    async () => {
      const fake = await fakeGateway()
      const sessionId = await fastStart(fake)
      const bin = await tempDir("buddy-opener-")
      const opened = join(bin, "opened")
      await fs.writeFile(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`, { mode: 0o755 })
      const terminal = onTerminal(fake.home, desktopEnv({ PATH: `${bin}:${process.env["PATH"] ?? ""}` }), 100)
      await until("offer", () => terminal.shown().includes("Press Enter to open the page in your browser."))
      terminal.child.stdin.write("\n")
      await until("its words", () => terminal.shown().includes("No browser could be opened here"))
      expect(terminal.shown()).toContain(
        "No browser could be opened here: open the page on another device and enter the code there."
      )
      expect(terminal.shown()).not.toContain("Opening")
      expect(fake.approve(sessionId)).toBe(true)
      expect(await terminal.finished).toBe(0)
      expect(existsSync(opened)).toBe(false)
    }
  )

  it.skipIf(!hasScript)("with an opener that fails, Enter says it is opening, then that no browser could", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const bin = await tempDir("buddy-opener-")
    await fs.writeFile(join(bin, "xdg-open"), "#!/bin/sh\nexit 3\n", { mode: 0o755 })
    const terminal = onTerminal(
      fake.home,
      desktopEnv({ PATH: `${bin}:${process.env["PATH"] ?? ""}`, DISPLAY: ":0" }),
      100
    )
    await until("offer", () => terminal.shown().includes("Press Enter to open the page in your browser."))
    terminal.child.stdin.write("\n")
    await until("its words", () => terminal.shown().includes("No browser could be opened here"))
    const shown = terminal.shown()
    expect(shown.indexOf(`Opening ${PAGE} in your browser.`)).toBeGreaterThan(-1)
    expect(shown.indexOf(`Opening ${PAGE} in your browser.`)).toBeLessThan(shown.indexOf("No browser could"))
    // Said once, though the opener both ran and failed.
    expect(shown.split("No browser could be opened here").length).toBe(2)
    expect(fake.approve(sessionId)).toBe(true)
    expect(await terminal.finished).toBe(0)
  })
})

describe("buddy sign-in start draws the page as a QR code", () => {
  it.skipIf(!hasScript || !hasZbar)(
    "on a terminal wide enough, after the code and page: a camera reads the page from it on either theme",
    async () => {
      const fake = await fakeGateway()
      const sessionId = await fastStart(fake)
      const terminal = onTerminal(fake.home, desktopEnv({}), 80)
      await until("offer", () => terminal.shown().includes("Press Enter to open"))
      const lines = terminal.shown().split("\n")
      const code = drawnCode(lines)
      expect(code.length).toBe(17)
      expect(readDrawn(code, "light")).toBe(PAGE)
      expect(readDrawn(code, "dark")).toBe(PAGE)
      // After the code and page, before the words that wait.
      const open = lines.findIndex((line) => line.startsWith("Open https://"))
      expect(lines.indexOf(code[0]!)).toBe(open + 1)
      expect(fake.approve(sessionId)).toBe(true)
      expect(await terminal.finished).toBe(0)
    }
  )

  // Its two colours are the code, so NO_COLOR and FORCE_COLOR=0 keep them (D58): plain, it would
  // read on a dark terminal only.
  for (const [name, value] of [["NO_COLOR", "1"], ["FORCE_COLOR", "0"]] as const) {
    it.skipIf(!hasScript || !hasZbar)(`in its colours under ${name}=${value}`, async () => {
      const fake = await fakeGateway()
      const sessionId = await fastStart(fake)
      const terminal = onTerminal(fake.home, desktopEnv({ [name]: value }), 80)
      await until("offer", () => terminal.shown().includes("Press Enter to open"))
      const code = drawnCode(terminal.shown().split("\n"))
      expect(code.length).toBe(17)
      expect(code.every((line) => line.startsWith(ink) && line.endsWith(reset))).toBe(true)
      expect(readDrawn(code, "light")).toBe(PAGE)
      expect(fake.approve(sessionId)).toBe(true)
      expect(await terminal.finished).toBe(0)
    })
  }

  for (
    const [what, env, columns, flags] of [
      ["on a terminal too narrow", {}, 32, []],
      ["on TERM=dumb", { TERM: "dumb" }, 80, []],
      ["under --json", {}, 80, ["--json"]]
    ] as const
  ) {
    it.skipIf(!hasScript)(`never ${what}`, async () => {
      const fake = await fakeGateway()
      const sessionId = await fastStart(fake)
      const terminal = onTerminal(fake.home, desktopEnv(env), columns, flags)
      await until("the code", () => terminal.shown().includes("ABCD-EFGHK"))
      expect(fake.approve(sessionId)).toBe(true)
      expect(await terminal.finished).toBe(0)
      expect(terminal.shown()).not.toMatch(/[█▀▄]/)
    })
  }

  it("never on a pipe", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    setTimeout(() => fake.approve(sessionId), 300)
    const words = await buddy(["sign-in", "start", "--home", fake.home])
    expect(words.code).toBe(0)
    expect(words.rawStdout + words.rawStderr).not.toMatch(/[█▀▄]/)
  })
})
