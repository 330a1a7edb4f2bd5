// A CLI safe in pipes (C8, D27): a reader that goes away (`buddy status | head -1`) ends the
// command quietly with 141, as a shell reports a process SIGPIPE ended: no stack, no word, and
// nothing cancelled on Hermes, even for a sign-in held in the terminal.
import { describe, expect, it } from "vitest"
import { BIN, spawnBuddy } from "./support/buddy-process.js"
import { fakeGateway, tempDir } from "./support/cleanup.js"
import { CANCEL, CODE, fastStart, httpLines, PAGE, POLL } from "./support/fast-start.js"

const OPEN = `Open ${PAGE} and enter the code ${CODE}.`
const WAITING = "Waiting for you to finish in the browser. Ctrl-C cancels."

/** Resolves once `ready()` holds, looking every 20 ms: what the test waits on is the fake's record, not a time. */
const until = (ready: () => boolean) =>
  new Promise<void>((resolve) => {
    const check = () => (ready() ? resolve() : setTimeout(check, 20))
    check()
  })

const polls = (fake: Parameters<typeof httpLines>[0], sessionId: string) =>
  httpLines(fake, sessionId).filter((line) => line === POLL).length

describe("a closed stdout or stderr", () => {
  it("before the answer is written: status ends with 141 and says nothing", async () => {
    const fake = await fakeGateway({ signedIn: true })
    fake.fault("providers", { kind: "late", ms: 300 })
    const running = spawnBuddy(["status", "--home", fake.home])
    running.child.stdout!.destroy()
    expect(await running.finished).toMatchObject({ code: 141, signal: null, stderr: [] })
  })

  it("before --help is written: 141, no stack", async () => {
    const running = spawnBuddy(["--help"])
    running.child.stdout!.destroy()
    expect(await running.finished).toMatchObject({ code: 141, signal: null, stderr: [] })
  })

  it("before a refusal's words reach stderr: 141", async () => {
    const home = await tempDir("buddy-pipes-")
    const running = spawnBuddy(["sign-out", "--home", `${home}/none`])
    running.child.stderr!.destroy()
    expect(await running.finished).toMatchObject({ code: 141, signal: null, stdout: [] })
  })

  it("`sign-in start | head -1`: the reader leaves after the code; the next change ends it quietly and nothing is cancelled", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const running = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    expect(JSON.parse((await running.stdoutLines(1))[0]!)).toMatchObject({ kind: "sign-in", state: "pending" })
    running.child.stdout!.destroy()
    expect(fake.approve(sessionId)).toBe(true)
    expect(await running.finished).toMatchObject({ code: 141, signal: null, stderr: [] })
    expect(httpLines(fake, sessionId)).not.toContain(CANCEL)
    expect(httpLines(fake, sessionId)).toContain(POLL)
    expect(fake.signedIn).toBe(true)
  })

  // Issue 26: without --json, "Waiting…" followed the code on stdout, so whether buddy held on or
  // ended 141 at once (the sign-in left pending, unheld) was a race between that write and head's
  // exit. stdout now holds only answers: the code and page, then nothing until the sign-in changes.
  it("`sign-in start | head -1` in words: the code and page are all of stdout until the change, which ends it 141", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const running = spawnBuddy(["sign-in", "start", "--home", fake.home])
    expect(await running.stdoutLines(1)).toStrictEqual([OPEN])
    running.child.stdout!.destroy()
    // Still holding: it keeps polling Hermes after its reader has gone.
    const seen = polls(fake, sessionId)
    await until(() => polls(fake, sessionId) >= seen + 2)
    expect(running.child.exitCode).toBeNull()
    expect(fake.approve(sessionId)).toBe(true)
    expect(await running.finished).toMatchObject({ code: 141, signal: null, stdout: [OPEN], stderr: [WAITING] })
    expect(httpLines(fake, sessionId)).not.toContain(CANCEL)
    expect(fake.signedIn).toBe(true)
  })

  it("through a shell's pipe into head -1: head prints the code and page, buddy holds until approval and ends 141", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const script = `"${process.execPath}" "${BIN}" sign-in start --home "${fake.home}" 2>/dev/null | head -1; ` +
      "echo \"\${PIPESTATUS[*]}\""
    const shell = spawnBuddy([], { command: ["bash", "-c", script] })
    expect(await shell.stdoutLines(1)).toStrictEqual([OPEN])
    const seen = polls(fake, sessionId)
    await until(() => polls(fake, sessionId) >= seen + 2)
    expect(shell.stdoutNow()).toStrictEqual([OPEN])
    expect(fake.approve(sessionId)).toBe(true)
    expect(await shell.finished).toMatchObject({ code: 0, stdout: [OPEN, "141 0"] })
    expect(httpLines(fake, sessionId)).not.toContain(CANCEL)
  })
})
