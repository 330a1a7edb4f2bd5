// `buddy status` as a child process against the fake gateway: the C8 JSON line and the words for
// works, waits and each unknown reason a fake can produce quickly; exit 0 works, 3 waits, 1 unknown.
// A sign-in another buddy process holds for the home is said, in words and as `signIn`, and the
// holder goes on undisturbed (D46).
import { describe, expect, it } from "vitest"
import type { FakeGatewayHandle } from "../../fixtures/fake-gateway.js"
import { buddy, spawnBuddy } from "./support/buddy-process.js"
import { fakeGateway, tempDir } from "./support/cleanup.js"
import { CANCEL, fastStart, httpLines, POLL, PROVIDERS } from "./support/fast-start.js"

type Fault = Parameters<FakeGatewayHandle["fault"]>[1]

const tempHome = (mode: number) => tempDir("buddy-cli-home-", mode)

describe("buddy status while another buddy holds a sign-in", () => {
  it("says so in words and as signIn pending, naming the holder's process, and the holder goes on", async () => {
    const fake = await fakeGateway()
    const sessionId = await fastStart(fake)
    const holder = spawnBuddy(["sign-in", "start", "--json", "--home", fake.home])
    await holder.stdoutLines(1)
    const pid = holder.child.pid!
    fake.clearReceived()

    const json = await buddy(["status", "--json", "--home", fake.home])
    expect(json).toMatchObject({
      code: 3,
      stdout: ["{\"kind\":\"buddy\",\"state\":\"waits\",\"signIn\":{\"state\":\"pending\"}}"],
      stderr: []
    })
    const words = await buddy(["status", "--home", fake.home])
    expect(words).toMatchObject({
      code: 3,
      stdout: [
        "Buddy is waiting to be signed in.",
        `A sign-in is in progress: another buddy (process ${pid}) holds it until it is finished in the browser or that buddy stops.`
      ],
      stderr: []
    })
    // The status reads asked Hermes for the card only: the holder's session was neither polled nor cancelled by them.
    expect(httpLines(fake, sessionId).filter((line) => line !== POLL)).toStrictEqual([PROVIDERS, PROVIDERS])
    expect(fake.approve(sessionId)).toBe(true)
    expect(await holder.finished).toMatchObject({ code: 0 })
    expect(httpLines(fake, sessionId)).not.toContain(CANCEL)

    // Once it has ended, nobody holds it: no signIn.
    expect(await buddy(["status", "--json", "--home", fake.home])).toMatchObject({
      code: 0,
      stdout: ["{\"kind\":\"buddy\",\"state\":\"works\"}"]
    })
  })
})

describe("buddy status", () => {
  it("works: one JSON line, exit 0, one provider card read", async () => {
    const fake = await fakeGateway({ signedIn: true })
    const ran = await buddy(["status", "--json", "--home", fake.home])
    expect(ran).toMatchObject({ code: 0, stdout: ["{\"kind\":\"buddy\",\"state\":\"works\"}"], stderr: [] })
    expect(httpLines(fake)).toStrictEqual([PROVIDERS])
  })

  it("waits, in JSON and in words", async () => {
    const fake = await fakeGateway()
    expect(await buddy(["status", "--json", "--home", fake.home])).toMatchObject({
      code: 3,
      stdout: ["{\"kind\":\"buddy\",\"state\":\"waits\"}"],
      stderr: []
    })
    expect(await buddy(["status", "--home", fake.home])).toMatchObject({
      code: 3,
      stdout: ["Buddy is waiting to be signed in."],
      stderr: []
    })
  })

  it("works, in words", async () => {
    const fake = await fakeGateway({ signedIn: true })
    expect(await buddy(["status", "--home", fake.home])).toMatchObject({ code: 0, stdout: ["Buddy works."] })
  })

  it("takes --home and --json before the subcommand too", async () => {
    const fake = await fakeGateway({ signedIn: true })
    expect(await buddy(["--home", fake.home, "--json", "status"])).toMatchObject({
      code: 0,
      stdout: ["{\"kind\":\"buddy\",\"state\":\"works\"}"]
    })
  })

  it("is unknown: not running, when no gateway runs for the home", async () => {
    const home = await tempHome(0o700)
    expect(await buddy(["status", "--json", "--home", home])).toMatchObject({
      code: 1,
      stdout: ["{\"kind\":\"buddy\",\"state\":\"unknown\",\"reason\":\"not-running\"}"],
      stderr: []
    })
    expect(await buddy(["status", "--home", home])).toMatchObject({
      code: 1,
      stdout: ["Buddy's state is unknown: Hermes is not running."]
    })
  })

  it("is unknown: unsafe-home, for a home others can write to", async () => {
    const home = await tempHome(0o777)
    expect(await buddy(["status", "--json", "--home", home])).toMatchObject({
      code: 1,
      stdout: ["{\"kind\":\"buddy\",\"state\":\"unknown\",\"reason\":\"unsafe-home\"}"]
    })
  })

  it("is unknown: not-ready, while the gateway starts", async () => {
    const fake = await fakeGateway({ state: "starting" })
    expect(await buddy(["status", "--json", "--home", fake.home])).toMatchObject({
      code: 1,
      stdout: ["{\"kind\":\"buddy\",\"state\":\"unknown\",\"reason\":\"not-ready\"}"]
    })
    expect(await buddy(["status", "--home", fake.home])).toMatchObject({
      code: 1,
      stdout: ["Buddy's state is unknown: Hermes is starting up or shutting down and is not ready yet."]
    })
  })

  const faults: Array<[string, "identify" | "providers", Fault, string, string]> = [
    ["a 500", "providers", { kind: "status", status: 500 }, "http-error", "Hermes answered with an error."],
    [
      "a reset",
      "providers",
      { kind: "reset" },
      "lost",
      "The connection to Hermes closed before its answer was complete."
    ],
    [
      "an oversized answer",
      "providers",
      { kind: "oversize" },
      "too-large",
      "Hermes sent an answer too large to accept."
    ],
    ["a refused ticket", "providers", { kind: "refuse-ticket" }, "refused", "Hermes refused buddy's access ticket."],
    [
      "an answer that is no JSON",
      "providers",
      { kind: "raw", status: 200, body: "nope" },
      "malformed",
      "Hermes sent an answer buddy could not read."
    ],
    [
      "a gateway that does not know identify",
      "identify",
      { kind: "reply", line: "{\"ok\": false, \"error\": \"unknown verb: 'identify'\", \"protocol\": 1, \"id\": 1}\n" },
      "incompatible",
      "Hermes answered in a way this version of buddy does not understand."
    ]
  ]
  for (const [name, route, fault, reason, sentence] of faults) {
    it(`is unknown: ${reason}, on ${name}`, async () => {
      const fake = await fakeGateway()
      fake.fault(route, fault)
      expect(await buddy(["status", "--json", "--home", fake.home])).toMatchObject({
        code: 1,
        stdout: [`{"kind":"buddy","state":"unknown","reason":"${reason}"}`],
        stderr: []
      })
      const words = await buddy(["status", "--home", fake.home])
      expect(words).toMatchObject({ code: 1, stdout: [`Buddy's state is unknown: ${sentence}`], stderr: [] })
      // No Hermes text reaches the operator, whatever Hermes said.
      expect(words.rawStdout).not.toMatch(/Internal Server Error|unknown verb|nope/)
    })
  }
})
