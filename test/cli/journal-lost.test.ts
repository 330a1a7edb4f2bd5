// `buddy serve`'s journal when stdout cannot take its lines (issue 39, D58), on the real
// executable: stdout on /dev/full (every write ENOSPC, as a full disk) and a pipe whose reader has
// gone (EPIPE). Every request is answered as ever; stderr says once that lines are being lost,
// never a line's content, and at the stop how many were.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { spawnBuddy } from "./support/buddy-process.js"
import { onCleanup, serveConfig, tempDir } from "./support/cleanup.js"
import { call } from "./support/socket-call.js"

const waits = "{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"none\"},\"locale\":\"en\"}"

/** A sign-in started, polled three times and cancelled, then a status read: five journal lines. */
const fiveLines = async (socket: string) => {
  const started = await call(socket, "POST", "/api/buddy/sign-in/start", "{}")
  expect(started.status).toBe(200)
  expect(JSON.parse(started.body)).toMatchObject({ kind: "sign-in", state: "pending", code: "ABCD-EFGHK" })
  const { handle } = JSON.parse(started.body) as { handle: string }
  for (let i = 0; i < 3; i++) {
    const polled = await call(socket, "POST", "/api/buddy/sign-in/poll", JSON.stringify({ handle }))
    expect(polled.status).toBe(200)
    expect(JSON.parse(polled.body)).toMatchObject({ kind: "sign-in", state: "pending" })
  }
  expect(await call(socket, "POST", "/api/buddy/sign-in/cancel", JSON.stringify({ handle }))).toStrictEqual({
    status: 200,
    body: "{\"kind\":\"sign-in\",\"state\":\"cancelled\"}"
  })
  expect(await call(socket, "GET", "/api/buddy")).toStrictEqual({ status: 200, body: waits })
}

// buddy's own words on stderr, not serve's ("buddy serve: listening on …", whose path names the journal).
const said = (lines: ReadonlyArray<string>) => lines.filter((line) => line.startsWith("buddy: "))

describe("buddy serve with a journal it cannot write", () => {
  it("on /dev/full: answers every request, says ENOSPC once, and at its stop that five lines were lost", async () => {
    const { config } = await serveConfig("buddy-journal-lost-")
    const socket = path.join(await tempDir("buddy-journal-lost-runtime-", 0o700), "serve.sock")
    const full = fs.openSync("/dev/full", "w")
    onCleanup(async () => fs.closeSync(full))
    const serve = spawnBuddy(["serve", "--config", config, "--socket", socket], { stdout: full })
    await serve.stderrWith("listening on")
    await fiveLines(socket)
    expect(said(serve.stderrNow())).toStrictEqual([
      "buddy: the journal could not be written (ENOSPC); its lines are being lost"
    ])
    expect(serve.child.exitCode).toBeNull()
    serve.child.kill("SIGTERM")
    const finished = await serve.finished
    expect(finished.code).toBe(143)
    expect(said(finished.stderr)).toStrictEqual([
      "buddy: the journal could not be written (ENOSPC); its lines are being lost",
      "buddy: 5 journal lines lost: the journal could not be written (ENOSPC)"
    ])
    // Nothing of a line reached stderr: no scope, operation or outcome.
    expect(finished.rawStderr).not.toMatch(/buddy-sign-in|"operation"|pending|cancelled/)
  })

  it("on a pipe whose reader has gone: says EPIPE once after the first line, and counts the rest", async () => {
    const { config } = await serveConfig("buddy-journal-closed-")
    const socket = path.join(await tempDir("buddy-journal-closed-runtime-", 0o700), "serve.sock")
    const serve = spawnBuddy(["serve", "--config", config, "--socket", socket])
    await serve.stderrWith("listening on")
    serve.child.stdout!.destroy()
    await fiveLines(socket)
    // Node hears the broken pipe after the write: give it time to be said.
    await serve.stderrWith("could not be written")
    expect(said(serve.stderrNow())).toStrictEqual([
      "buddy: the journal could not be written (EPIPE); its lines are being lost"
    ])
    serve.child.kill("SIGTERM")
    const finished = await serve.finished
    expect(finished.code).toBe(143)
    expect(said(finished.stderr)).toStrictEqual([
      "buddy: the journal could not be written (EPIPE); its lines are being lost",
      "buddy: 5 journal lines lost: the journal could not be written (EPIPE)"
    ])
  })
})
