// `buddy sign-out` as a child process against the fake gateway.
import { describe, expect, it } from "vitest"
import { buddy } from "./support/buddy-process.js"
import { fakeGateway } from "./support/cleanup.js"
import { httpLines, SIGN_OUT } from "./support/fast-start.js"

describe("buddy sign-out", () => {
  it("signs Buddy out: the C8 line, exit 0, one provider DELETE", async () => {
    const fake = await fakeGateway({ signedIn: true })
    expect(await buddy(["sign-out", "--json", "--home", fake.home])).toMatchObject({
      code: 0,
      stdout: ["{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"],
      stderr: []
    })
    expect(fake.signedIn).toBe(false)
    expect(httpLines(fake)).toStrictEqual([SIGN_OUT])
  })

  it("in words, also when nothing was stored; without the contract too (no sign-in held)", async () => {
    const fake = await fakeGateway({ contract: false })
    expect(await buddy(["sign-out", "--home", fake.home])).toMatchObject({
      code: 0,
      stdout: ["Buddy is signed out."],
      stderr: []
    })
    expect(httpLines(fake)).toStrictEqual([SIGN_OUT])
  })

  it("is unavailable when Hermes answers with an error: exit 1, no Hermes text", async () => {
    const fake = await fakeGateway({ signedIn: true })
    fake.fault("sign-out", { kind: "status", status: 500 })
    const json = await buddy(["sign-out", "--json", "--home", fake.home])
    expect(json).toMatchObject({ code: 1, stdout: ["{\"error\":\"buddy-unavailable\",\"reason\":\"http-error\"}"] })
    fake.fault("sign-out", { kind: "status", status: 500 })
    const words = await buddy(["sign-out", "--home", fake.home])
    expect(words).toMatchObject({
      code: 1,
      stdout: [],
      stderr: ["Buddy cannot be reached: Hermes answered with an error."]
    })
    expect(words.rawStdout + words.rawStderr).not.toContain("Internal Server Error")
    expect(fake.signedIn).toBe(true)
  })
})
