// `buddy sign-in start` as a child process against the fake gateway: the held sign-in prints the
// code and page first, then one line per change until Hermes ends it; Ctrl-C (SIGINT) cancels it on
// Hermes, confirmed or explained; SIGTERM and SIGHUP stop it and cancel nothing (C4.9); exit codes as C8.
import { describe, expect, it } from "vitest"
import type { FakeGatewayHandle } from "../../fixtures/fake-gateway.js"
import { buddy, expectPlain, spawnBuddy } from "./support/buddy-process.js"
import { fakeGateway } from "./support/cleanup.js"
import { CANCEL, CODE, fastStart, httpLines, PAGE, POLL, PROVIDERS, START } from "./support/fast-start.js"

const OPEN = `Open ${PAGE} and enter the code ${CODE}.`
const WAITING = "Waiting for you to finish in the browser. Ctrl-C cancels."
const PENDING_LINE = JSON.stringify({ kind: "sign-in", state: "pending", code: CODE, page: PAGE })
const changeLine = (state: string) => JSON.stringify({ kind: "sign-in", state })

/** Resolves once `ready` holds, checking every 20 ms (at most 10 s). */
const until = async (ready: () => boolean) => {
  for (let waited = 0; !ready(); waited += 20) {
    if (waited > 10_000) throw new Error("condition not reached within 10 s")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The one session on the fake, the one the CLI holds. */
const onlySession = (fake: FakeGatewayHandle) => {
  const sessions = fake.sessions()
  expect(sessions).toHaveLength(1)
  return sessions[0]!
}

describe("buddy sign-in start, held in a terminal", () => {
  it("prints the page and code first, then the change to signed in once approved; exit 0", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const run = spawnBuddy(["sign-in", "start", "--home", fake.home])
    expect(await run.stdoutLines(1)).toStrictEqual([OPEN])
    // The words only a person needs go to stderr: stdout holds only answers (D46).
    expect(await run.stderrWith(WAITING)).toStrictEqual([WAITING])
    // Approved in the browser only after the code was shown, as a person would.
    expect(fake.approve(sessionId)).toBe(true)
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({ code: 0, stdout: [OPEN, "Buddy is signed in."], stderr: [WAITING] })
    expect(fake.signedIn).toBe(true)
    const requests = httpLines(fake, sessionId)
    // Buddy's state is read first, to say whether he already works (issue 18.4), then the start.
    expect(requests.slice(0, 2)).toStrictEqual([PROVIDERS, START])
    expect(requests.slice(2).every((line) => line === POLL)).toBe(true)
    expect(requests.length).toBeGreaterThanOrEqual(2)
  })

  it("with --json: the pending line without a handle, then one line per change", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const run = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    expect(await run.stdoutLines(1)).toStrictEqual([PENDING_LINE])
    fake.approve(sessionId)
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({ code: 0, stdout: [PENDING_LINE, changeLine("signed-in")], stderr: [] })
    // Nothing but the code and page leaves: no handle, no session id.
    expect(ran.rawStdout).not.toContain(sessionId)
    expect(ran.rawStdout).not.toMatch(/handle|[0-9a-f]{32}/)
  })

  const endings: Array<[string, (fake: FakeGatewayHandle, id: string) => boolean, string, string, number]> = [
    [
      "expires",
      (fake, id) => fake.expire(id),
      "expired",
      "The code expired before the sign-in was finished; Buddy is not signed in.",
      3
    ],
    [
      "is denied",
      (fake, id) => fake.deny(id),
      "refused",
      "The sign-in was refused in the browser; Buddy is not signed in.",
      3
    ],
    ["fails", (fake, id) => fake.error(id), "failed", "Hermes could not finish the sign-in; Buddy is not signed in.", 1]
  ]
  for (const [how, act, state, sentence, code] of endings) {
    it(`ends ${state} when Hermes's session ${how}; exit ${code}`, async () => {
      const fake = await fakeGateway()
      const sessionId = await fastStart(fake)
      const json = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
      await json.stdoutLines(1)
      act(fake, sessionId)
      expect(expectPlain(await json.finished)).toMatchObject({ code, stdout: [PENDING_LINE, changeLine(state)] })

      const again = await fakeGateway()
      const second = await fastStart(again)
      const words = spawnBuddy(["sign-in", "start", "--home", again.home])
      await words.stderrWith(WAITING)
      act(again, second)
      expect(expectPlain(await words.finished)).toMatchObject({ code, stdout: [OPEN, sentence], stderr: [WAITING] })
    })
  }

  it("ends lost when a restarted Hermes holding the contract no longer knows the session; exit 3", async () => {
    const fake = await fakeGateway()
    await fastStart(fake)
    const run = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    await run.stdoutLines(1)
    fake.restart()
    expect(expectPlain(await run.finished)).toMatchObject({ code: 3, stdout: [PENDING_LINE, changeLine("lost")] })
  })

  it("keeps holding while Hermes does not answer a poll, says so once per change on stderr", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    fake.fault("poll", { kind: "status", status: 500 }, 2)
    const run = spawnBuddy(["sign-in", "start", "--home", fake.home])
    await run.stderrWith("answering again")
    fake.approve(sessionId)
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({
      code: 0,
      stdout: [OPEN, "Buddy is signed in."],
      stderr: [
        WAITING,
        "Hermes is not answering about the sign-in: Hermes answered with an error. Still waiting; Ctrl-C cancels.",
        "Hermes is answering again. Waiting for you to finish in the browser."
      ]
    })
    expect(httpLines(fake, sessionId).filter((line) => line === POLL).length).toBeGreaterThanOrEqual(3)
  })

  it("Ctrl-C cancels the sign-in on Hermes and prints the cancelled state; exit 130", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const run = spawnBuddy(["sign-in", "start", "--home", fake.home])
    await run.stderrWith(WAITING)
    run.child.kill("SIGINT")
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({
      code: 130,
      signal: null,
      stdout: [OPEN, "The sign-in was cancelled; Buddy is not signed in."],
      stderr: [WAITING, "Cancelling the sign-in on Hermes…"]
    })
    expect(httpLines(fake, sessionId)).toContain(CANCEL)
    expect(httpLines(fake, sessionId).at(-1)).toBe(CANCEL)
    expect(onlySession(fake)).toMatchObject({ id: sessionId, cancelled: true, inMap: false })
    // Its worker can no longer save: a late approval does not sign Buddy in.
    expect(fake.approve(sessionId)).toBe(false)
    expect(fake.signedIn).toBe(false)
  })

  it("Ctrl-C with --json: the cancelled line on stdout; exit 130", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const run = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    await run.stdoutLines(1)
    run.child.kill("SIGINT")
    expect(expectPlain(await run.finished)).toMatchObject({
      code: 130,
      stdout: [PENDING_LINE, changeLine("cancelled")]
    })
    expect(onlySession(fake)).toMatchObject({ id: sessionId, cancelled: true })
  })

  const stoppedWithoutCancel =
    "buddy was stopped without cancelling the sign-in on Hermes; it may still complete if you finish it in the " +
    "browser. Run `buddy status` to see whether Buddy is signed in."

  for (const [signal, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    it(`${signal} stops the hold within a second and cancels nothing on Hermes (C4.9); exit ${code}`, async () => {
      const fake = await fakeGateway()
      const sessionId = await fastStart(fake)
      const run = spawnBuddy(["sign-in", "start", "--home", fake.home])
      await run.stderrWith(WAITING)
      const sent = Date.now()
      run.child.kill(signal)
      const ran = expectPlain(await run.finished)
      expect(Date.now() - sent).toBeLessThan(1000)
      expect(ran).toMatchObject({ code, signal: null, stdout: [OPEN], stderr: [WAITING, stoppedWithoutCancel] })
      expect(httpLines(fake, sessionId)).not.toContain(CANCEL)
      // Hermes's worker is still free to save the sign-in the person finishes.
      expect(onlySession(fake)).toMatchObject({ cancelled: false, status: "pending", inMap: true })
      expect(fake.approve(sessionId)).toBe(true)
    })
  }

  it("SIGTERM while Hermes has not answered the start stops within a second, cancelling nothing; exit 143", async () => {
    const fake = await fakeGateway()
    fake.fault("start", { kind: "timeout" })
    const run = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    await until(() => httpLines(fake).includes(START))
    const sent = Date.now()
    run.child.kill("SIGTERM")
    const ran = expectPlain(await run.finished)
    expect(Date.now() - sent).toBeLessThan(1000)
    expect(ran).toMatchObject({ code: 143, stdout: [], stderr: [stoppedWithoutCancel] })
    expect(httpLines(fake)).toStrictEqual([PROVIDERS, START])
    // The start Hermes registered before it went quiet is left to Hermes, not cancelled.
    expect(onlySession(fake)).toMatchObject({ cancelled: false, inMap: true })
  })

  it("Ctrl-C while Hermes has not answered the start waits for its answer, then cancels what it started; exit 130", async () => {
    const fake = await fakeGateway()
    fake.fault("start", { kind: "late", ms: 800 }, 1)
    const run = spawnBuddy(["sign-in", "start", "--home", fake.home])
    await until(() => httpLines(fake).includes(START))
    run.child.kill("SIGINT")
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({
      code: 130,
      stdout: ["The sign-in was cancelled; Buddy is not signed in."],
      stderr: ["Cancelling the sign-in on Hermes…"]
    })
    const session = onlySession(fake)
    // The cancel polls first (C4.7): still pending, so it is cancelled.
    expect(httpLines(fake, session.id)).toStrictEqual([PROVIDERS, START, POLL, CANCEL])
    expect(session).toMatchObject({ cancelled: true, inMap: false })
  })

  it("Ctrl-C while Hermes ignores the cancel explains, once the cancel's deadline passes, that it was not confirmed", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    fake.fault("cancel", { kind: "timeout" })
    const run = spawnBuddy(["sign-in", "start", "--home", fake.home])
    await run.stderrWith(WAITING)
    run.child.kill("SIGINT")
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({
      code: 130,
      stdout: [OPEN],
      stderr: [
        WAITING,
        "Cancelling the sign-in on Hermes…",
        "The sign-in could not be cancelled: Hermes did not confirm the cancel.",
        "It may still complete if you finish it in the browser; run `buddy status` to see whether Buddy is signed in."
      ]
    })
    expect(httpLines(fake, sessionId).at(-1)).toBe(CANCEL)
    expect(onlySession(fake)).toMatchObject({ cancelled: false, status: "pending" })
  })

  it("Ctrl-C whose cancel Hermes does not confirm explains on stderr what that means; exit 130", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    fake.fault("cancel", { kind: "status", status: 500 })
    const run = spawnBuddy(["sign-in", "start", "--home", fake.home])
    await run.stderrWith(WAITING)
    run.child.kill("SIGINT")
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({
      code: 130,
      stdout: [OPEN],
      stderr: [
        WAITING,
        "Cancelling the sign-in on Hermes…",
        "The sign-in could not be cancelled: Hermes did not confirm the cancel.",
        "It may still complete if you finish it in the browser; run `buddy status` to see whether Buddy is signed in."
      ]
    })
    expect(httpLines(fake, sessionId).at(-1)).toBe(CANCEL)
    // Still pending on Hermes: finishing it in the browser still signs Buddy in, as the words say.
    expect(onlySession(fake)).toMatchObject({ cancelled: false, status: "pending" })
    expect(fake.approve(sessionId)).toBe(true)
  })

  it("Ctrl-C with an unconfirmed cancel and --json: the refusal line on stdout, the words on stderr", async () => {
    const fake = await fakeGateway()
    await fastStart(fake)
    fake.fault("cancel", { kind: "status", status: 500 })
    const run = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    await run.stdoutLines(1)
    run.child.kill("SIGINT")
    const ran = expectPlain(await run.finished)
    expect(ran).toMatchObject({
      code: 130,
      stdout: [PENDING_LINE, "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}"]
    })
    expect(ran.stderr).toContain("The sign-in could not be cancelled: Hermes did not confirm the cancel.")
  })

  it("is refused in words and JSON without the cancellation contract: exit 4, no start reaches Hermes", async () => {
    const fake = await fakeGateway({ contract: false })
    expect(await buddy(["sign-in", "start", "--home", fake.home])).toMatchObject({
      code: 4,
      stdout: [],
      stderr: ["Buddy needs an update before he can be signed in here."]
    })
    expect(await buddy(["sign-in", "start", "--json", "--home", fake.home])).toMatchObject({
      code: 4,
      stdout: ["{\"kind\":\"blocked\",\"reason\":\"hermes-outdated\"}"],
      stderr: []
    })
    expect(httpLines(fake)).not.toContain(START)
    expect(fake.sessions()).toHaveLength(0)
  })

  it("is unavailable when no gateway runs: exit 1", async () => {
    const fake = await fakeGateway()
    await fake.close()
    expect(await buddy(["sign-in", "start", "--json", "--home", fake.home])).toMatchObject({
      code: 1,
      stdout: ["{\"error\":\"buddy-unavailable\",\"reason\":\"not-running\"}"]
    })
    const words = await buddy(["sign-in", "start", "--home", fake.home])
    expect(words).toMatchObject({ code: 1, stdout: [] })
    // The refusal, then where (test/cli/diagnostics.test.ts has every case).
    expect(words.stderr[0]).toBe("Buddy cannot be reached: Hermes is not running.")
    expect(words.stderr[1]).toBe(`The Hermes home is ${fake.home} (from --home).`)
  })
})

describe("buddy sign-in start while Buddy already works (issue 18.4)", () => {
  it("says so on stderr before it starts, then holds the sign-in as ever", async () => {
    const fake = await fakeGateway({ signedIn: true })
    const sessionId = await fastStart(fake)
    const running = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    expect(JSON.parse((await running.stdoutLines(1))[0]!)).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(running.stderrNow()).toStrictEqual([
      "Buddy already works: he is signed in to ChatGPT. Finishing this sign-in replaces his sign-in; Ctrl-C leaves it as it is."
    ])
    expect(fake.approve(sessionId)).toBe(true)
    expect(await running.finished).toMatchObject({ code: 0 })
  })

  it("says nothing of the kind while Buddy waits", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const running = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    await running.stdoutLines(1)
    expect(fake.approve(sessionId)).toBe(true)
    expect(await running.finished).toMatchObject({ code: 0, stderr: [] })
  })
})
