// A CLI safe in pipes (C8, D27): a reader that goes away (`buddy status | head -1`) ends the
// command quietly with 141, as a shell reports a process SIGPIPE ended: no stack, no word, and
// nothing cancelled on Hermes, even for a sign-in held in the terminal.
import { describe, expect, it } from "vitest"
import { spawnBuddy } from "./support/buddy-process.js"
import { fakeGateway, tempDir } from "./support/cleanup.js"
import { CANCEL, fastStart, httpLines, POLL } from "./support/fast-start.js"

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
})
