// Diagnostics that name the thing and the fix (C8, issue 18.3, D29): after the closed answer, in
// words on stderr, the home used and where it came from, and for each refusal of the path checks the
// path, what is wrong with it and the command that fixes it. --json keeps the closed reason alone.
import * as fs from "node:fs/promises"
import * as net from "node:net"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { requires } from "../support/required.js"
import { buddy } from "./support/buddy-process.js"
import { fakeGateway, tempDir } from "./support/cleanup.js"

const checkGateway = "Check the gateway with: systemctl --user status hermes-gateway"
const restartGateway = "The gateway makes it: restart it with: systemctl --user restart hermes-gateway"

/** A socket file nobody listens on, of the given mode. */
const deadSocket = async (path: string, mode: number) => {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(path, resolve))
  await fs.link(path, `${path}.kept`)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await fs.rename(`${path}.kept`, path)
  await fs.chmod(path, mode)
}

describe("buddy status, in words, says where and how to fix", () => {
  it("a --home that does not exist (a typo): the path, where it came from, and how to check the gateway", async () => {
    const dir = await tempDir("buddy-diagnose-")
    const home = join(dir, ".hermse")
    expect(await buddy(["status", "--home", home])).toMatchObject({
      code: 1,
      stdout: ["Buddy's state is unknown: Hermes is not running."],
      stderr: [
        `The Hermes home is ${home} (from --home).`,
        `${home} does not exist: no gateway has run for this home.`,
        checkGateway
      ]
    })
  })

  it("the home from HERMES_HOME, and the default ~/.hermes, each named as such", async () => {
    const dir = await tempDir("buddy-diagnose-")
    const fromEnv = await buddy(["status"], { env: { HERMES_HOME: join(dir, "env-home") } })
    expect(fromEnv.stderr[0]).toBe(`The Hermes home is ${join(dir, "env-home")} (from HERMES_HOME).`)
    const byDefault = await buddy(["status"], { env: { HOME: dir } })
    expect(byDefault.stderr[0]).toBe(`The Hermes home is ${join(dir, ".hermes")} (the default, ~/.hermes).`)
  })

  it("a home with no gateway in it, and one with a socket nobody listens on", async () => {
    const home = await tempDir("buddy-diagnose-", 0o700)
    expect((await buddy(["status", "--home", home])).stderr.slice(1)).toStrictEqual([
      `No gateway has said where it listens for this home (no ${join(home, "gateway.sock")}, no ${
        join(home, "gateway.sock.path")
      }).`,
      checkGateway
    ])
    await deadSocket(join(home, "gateway.sock"), 0o600)
    expect((await buddy(["status", "--home", home])).stderr.slice(1)).toStrictEqual([
      `${join(home, "gateway.sock")} is there, but no gateway listens on it.`,
      checkGateway
    ])
  })

  it("a home the group or others may write to: its mode in words its bits say, and no chmod of Hermes's home", async () => {
    const home = await tempDir("buddy-diagnose-", 0o700)
    await fs.chmod(home, 0o777)
    expect(await buddy(["status", "--home", home])).toMatchObject({
      code: 1,
      stdout: ["Buddy's state is unknown: Hermes's home directory is not private to you, so buddy will not use it."],
      stderr: [
        `The Hermes home is ${home} (from --home).`,
        `${home} has mode 0777: the group and others may write to it.`,
        `Hermes keeps its home closed to others; look at how it was opened (ls -ld ${home}).`
      ]
    })
    await fs.chmod(home, 0o770)
    expect((await buddy(["status", "--home", home])).stderr[1]).toBe(
      `${home} has mode 0770: the group may write to it.`
    )
  })

  it.skipIf(
    !requires(
      process.getuid?.() === 0,
      "root (to give a directory to another account)",
      "run the suite as root, as CI does"
    )
  )(
    "a home another account owns, asked as root (sudo's mistake): its owner, and buddy run as that owner, never a chown",
    async () => {
      const home = await tempDir("buddy-diagnose-", 0o700)
      await fs.chown(home, 65534, 65534)
      expect((await buddy(["status", "--home", home])).stderr.slice(1)).toStrictEqual([
        `${home} belongs to nobody (uid 65534); buddy runs as root (uid 0).`,
        `Fix: run buddy as the home's owner: sudo -u nobody buddy status --home ${home}`
      ])
      // A socket another account made in a home of one's own: the gateway's to make again, not buddy's to chown.
      const mine = await tempDir("buddy-diagnose-", 0o700)
      await deadSocket(join(mine, "gateway.sock"), 0o600)
      await fs.lchown(join(mine, "gateway.sock"), 65534, 65534)
      expect((await buddy(["status", "--home", mine])).stderr.slice(1)).toStrictEqual([
        `${join(mine, "gateway.sock")} belongs to nobody (uid 65534); buddy runs as root (uid 0).`,
        restartGateway
      ])
    }
  )

  it("a home that is a file, and a home reached through a link, named as what they are", async () => {
    const dir = await tempDir("buddy-diagnose-")
    await fs.writeFile(join(dir, "file"), "x")
    expect((await buddy(["status", "--home", join(dir, "file")])).stderr.slice(1)).toStrictEqual([
      `${join(dir, "file")} is a file, not a directory.`
    ])
    const real = join(dir, "real")
    await fs.mkdir(real, { mode: 0o777 })
    await fs.chmod(real, 0o777)
    await fs.symlink(real, join(dir, "link"))
    expect((await buddy(["status", "--home", join(dir, "link")])).stderr.slice(0, 2)).toStrictEqual([
      `The Hermes home is ${join(dir, "link")} (from --home), which is ${real}.`,
      `${real} has mode 0777: the group and others may write to it.`
    ])
  })

  it("a control socket others may use, and a pointer that is a link: the path, what is wrong, what to do", async () => {
    const home = await tempDir("buddy-diagnose-", 0o700)
    await deadSocket(join(home, "gateway.sock"), 0o666)
    expect((await buddy(["status", "--home", home])).stderr.slice(1)).toStrictEqual([
      `${join(home, "gateway.sock")} has mode 0666: the group and others may use it.`,
      restartGateway
    ])
    const other = await tempDir("buddy-diagnose-", 0o700)
    await fs.writeFile(join(other, "target"), "/nowhere/control.sock")
    await fs.symlink(join(other, "target"), join(other, "gateway.sock.path"))
    expect((await buddy(["status", "--home", other])).stderr.slice(1)).toStrictEqual([
      `${join(other, "gateway.sock.path")} is a symbolic link, not a file.`
    ])
  })

  it("with --json, or through sign-out's refusal in JSON, the closed reason alone", async () => {
    const dir = await tempDir("buddy-diagnose-")
    for (const args of [["status", "--json"], ["sign-out", "--json"]]) {
      expect(await buddy([...args, "--home", join(dir, "none")])).toMatchObject({ code: 1, stderr: [] })
    }
    const words = await buddy(["sign-out", "--home", join(dir, "none")])
    expect(words.stderr).toStrictEqual([
      "Buddy cannot be reached: Hermes is not running.",
      `The Hermes home is ${join(dir, "none")} (from --home).`,
      `${join(dir, "none")} does not exist: no gateway has run for this home.`,
      checkGateway
    ])
  })
})

describe("a gateway that is not ready, told apart by what it reports", () => {
  for (
    const [state, said] of [
      ["starting", "The gateway is starting; try again in a moment."],
      [
        "draining",
        "The gateway is shutting down; if it does not come back, start it: systemctl --user start hermes-gateway"
      ],
      ["failed", "The gateway has failed; restart it: systemctl --user restart hermes-gateway"]
    ] as const
  ) {
    it(`${state}: ${said}`, async () => {
      const fake = await fakeGateway({ state })
      expect(await buddy(["status", "--home", fake.home])).toMatchObject({
        code: 1,
        stdout: ["Buddy's state is unknown: Hermes is starting up or shutting down and is not ready yet."],
        stderr: [`The Hermes home is ${fake.home} (from --home).`, said]
      })
      // With --json the closed reason alone, and no second identify.
      fake.clearReceived()
      expect(await buddy(["status", "--json", "--home", fake.home])).toMatchObject({ code: 1, stderr: [] })
      expect(fake.received.filter((entry) => entry.channel === "control")).toHaveLength(1)
    })
  }
})
