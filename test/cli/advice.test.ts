// Advice that cannot hurt (issue 39 item 1, C8, D56): every "Fix:" and every command buddy prints
// for a path it judges (Hermes's home, its socket and pointer, the lock area, the socket's place,
// the config file, the group), enumerated as a table. Each situation's advice is asserted, and a
// checker fails any line that removes or chmods a directory buddy did not make, chowns anything, or
// suggests joining root's group or any group but the config's. The paths include /run, /srv, /home
// and /: the places whose removal the old advice suggested.
import { Effect, Option } from "effect"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { diagnose } from "../../src/cli/diagnose.js"
import { lockRefusal } from "../../src/cli/words.js"
import { placeWords } from "../../src/serve/place-words.js"
import { SocketPlaceUnsafe } from "../../src/serve/socket-place-unsafe.js"
import { type LockProblem, lockUnavailable } from "../../src/services/HolderBusy.js"

/** What a line may touch: buddy's own entries, and the config's group. */
interface Own {
  readonly entries: ReadonlyArray<string>
  readonly group: Option.Option<string>
  /** Files (not directories) whose write bits a fix may take away: the config file. */
  readonly files?: ReadonlyArray<string>
  /** Paths the situation says do not exist: making one (install -d) takes nothing from anyone. */
  readonly absent?: ReadonlyArray<string>
}

/** The commands in a line of advice: each `rm`, `chmod`, `chown`, `usermod` or `install -d` with its words. */
const commandsIn = (line: string): ReadonlyArray<ReadonlyArray<string>> =>
  [...line.matchAll(/\b(?:sudo (?:-u \S+ )?)?(rm|chmod|chown|usermod|install|chgrp) ([^;,)]*)/g)].map((match) => {
    const words = (match[2] ?? "").trim().split(/\s+/)
    // A remark in parentheses after the command is no part of it.
    const remark = words.findIndex((word) => word.startsWith("("))
    return [match[1] ?? "", ...(remark === -1 ? words : words.slice(0, remark))]
  })

/** Why a line of advice could hurt, or none. */
const harms = (line: string, own: Own): Option.Option<string> => {
  for (const [command = "", ...words] of commandsIn(line)) {
    const target = words.at(-1) ?? ""
    if (command === "chown" || command === "chgrp") return Option.some(`${command} hands a path over: ${line}`)
    if (command === "rm" && !own.entries.includes(target)) return Option.some(`rm of ${target}, not buddy's: ${line}`)
    if (command === "chmod" && !own.entries.includes(target) && !(own.files ?? []).includes(target)) {
      return Option.some(`chmod of ${target}, not buddy's: ${line}`)
    }
    if (command === "usermod") {
      const group = words[words.indexOf("-aG") + 1]
      if (group === "root" || !Option.contains(own.group, group ?? "")) return Option.some(`joins ${group}: ${line}`)
    }
    if (
      command === "install" && words.includes("-d") && !own.entries.includes(target) &&
      !(own.absent ?? []).includes(target) && target !== "DIR"
    ) {
      return Option.some(`install -d of ${target}, not buddy's own: ${line}`)
    }
  }
  return Option.none()
}

describe("the checker", () => {
  it("catches what the old advice said", () => {
    const own: Own = { entries: ["/run/buddy.sock"], group: Option.some("buddy-proxy") }
    for (
      const line of [
        "have it removed (sudo rm -r /run) or choose another --socket.",
        "Fix: sudo chown \"$(id -un)\" /home/buddyop/.hermes",
        "add it (usermod -aG root $USER, or SupplementaryGroups=root in its systemd unit)",
        "add it (usermod -aG www-data $USER)",
        "Fix: chmod 700 /home/buddyop/.hermes",
        "run chmod 700 /srv."
      ]
    ) expect([line, Option.isSome(harms(line, own))]).toStrictEqual([line, true])
    expect(harms("Fix: while no buddy runs, remove it (sudo rm /run/buddy.sock)", own)).toStrictEqual(Option.none())
  })
})

const naming = (ownDirectory: Option.Option<string>, group: Option.Option<string>) => ({
  account: (uid: number) => (uid === 1000 ? "buddyop (uid 1000)" : `uid ${uid}`),
  self: "buddy",
  group,
  ownDirectory
})

describe("the socket's place: every reason, at /run, /srv, /home and /, as buddy's own place and not", () => {
  const reasons: ReadonlyArray<SocketPlaceUnsafe["reason"]> = [
    "directory-missing",
    "directory-uncreatable",
    "directory-link",
    "directory-not-directory",
    "directory-foreign",
    "directory-open",
    "way-foreign",
    "way-open",
    "way-closed",
    "not-member",
    "socket-not-socket",
    "socket-foreign",
    "socket-open",
    "socket-in-use",
    "too-long",
    "unusable"
  ]
  const places = ["/run", "/srv", "/home", "/", "/run/user/1000/buddy"]
  const groups = [Option.some("buddy-proxy"), Option.none<string>()]
  const table = reasons.flatMap((reason) =>
    places.flatMap((place) =>
      groups.flatMap((group) =>
        [Option.some(place), Option.none<string>()].map((ownDirectory) => ({ reason, place, group, ownDirectory }))
      )
    )
  )

  it(`advises nothing that hurts, in all ${table.length} situations`, () => {
    const hurts = table.flatMap(({ group, ownDirectory, place, reason }) => {
      const socket = reason.startsWith("socket-") ? path.join(place, "serve.sock") : place
      const line = placeWords(
        new SocketPlaceUnsafe({ reason, path: socket, found: reason.includes("open") ? 0o777 : 1000, code: "EACCES" }),
        naming(ownDirectory, group)
      )
      // buddy's own: the socket file, and its directory where it is the default place buddy makes.
      const own: Own = {
        entries: [path.join(place, "serve.sock"), ...Option.toArray(ownDirectory)],
        group,
        absent: reason === "directory-uncreatable" || reason === "directory-missing" ? [place] : []
      }
      return Option.toArray(harms(line, own))
    })
    expect(hurts).toStrictEqual([])
  })

  it("removes a directory only where it is buddy's own place, and otherwise points elsewhere", () => {
    const foreign = (at: string, ownDirectory: Option.Option<string>) =>
      placeWords(
        new SocketPlaceUnsafe({ reason: "directory-foreign", path: at, found: 1000 }),
        naming(ownDirectory, Option.none())
      )
    expect(foreign("/run", Option.none())).not.toContain("rm")
    expect(foreign("/run", Option.none())).toContain("Choose a --socket in a directory of buddy's own.")
    expect(foreign("/run/user/1000/buddy", Option.some("/run/user/1000/buddy"))).toContain(
      "sudo rm -r /run/user/1000/buddy"
    )
  })

  it("joins only the config's group, by its name, as buddy's account", () => {
    const words = placeWords(
      new SocketPlaceUnsafe({ reason: "not-member", path: "/run/buddy" }),
      naming(Option.none(), Option.some("buddy-proxy"))
    )
    expect(words).toContain("sudo usermod -aG buddy-proxy buddy")
    expect(words).not.toContain("$USER")
  })
})

describe("the lock area (D39): every problem", () => {
  const area = "/home/buddyop/.hermes/.buddy-lock"
  const problems: ReadonlyArray<LockProblem> = [
    "link",
    "not-directory",
    "not-file",
    "hard-link",
    "foreign",
    "open",
    "unknown-entries",
    "system",
    "no-proc",
    "unsupported"
  ]
  it("advises only what touches buddy's own entries", () => {
    const hurts = problems.flatMap((problem) =>
      [area, `${area}/holder`].flatMap((at) => {
        const said = lockRefusal(
          lockUnavailable(at, problem, { found: problem === "open" ? 0o770 : 1000, code: "EACCES" })
        )
        return said.split("\n").flatMap((line) =>
          Option.toArray(harms(line, { entries: [area, `${area}/holder`], group: Option.none() }))
        )
      })
    )
    expect(hurts).toStrictEqual([])
  })
})

describe("Hermes's home, socket and pointer, judged as root and as the owner", () => {
  const dirs: Array<string> = []
  afterAll(() => Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true }))))
  const home = async (mode: number, uid: number) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-advice-"))
    dirs.push(dir)
    await fs.chmod(dir, mode)
    await fs.chown(dir, uid, uid)
    return dir
  }
  const socketIn = async (dir: string, mode: number, uid: number) => {
    const at = path.join(dir, "gateway.sock")
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(at, resolve))
    await fs.link(at, `${at}.kept`)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await fs.rename(`${at}.kept`, at)
    await fs.chmod(at, mode)
    await fs.lchown(at, uid, uid)
  }
  const advice = (dir: string, reason: "unsafe-home" | "unsafe-socket" | "unsafe-pointer", uid: number) =>
    Effect.runPromise(diagnose(reason, { path: dir, from: "from --home" }, { uid, args: ["status", "--home", dir] }))

  it.skipIf(process.getuid?.() !== 0)(
    "never chowns, never chmods the home, and runs buddy as the home's owner",
    async () => {
      const situations = [
        // sudo's mistake: root asks about nobody's home.
        { mode: 0o700, owner: 65534, asker: 0, reason: "unsafe-home" },
        // another account asks.
        { mode: 0o700, owner: 65534, asker: 4243, reason: "unsafe-home" },
        // the owner asks about a home it opened.
        { mode: 0o777, owner: 0, asker: 0, reason: "unsafe-home" },
        { mode: 0o770, owner: 0, asker: 0, reason: "unsafe-home" }
      ] as const
      const said: Array<ReadonlyArray<string>> = []
      for (const { asker, mode, owner, reason } of situations) {
        const dir = await home(mode, owner)
        const lines = await advice(dir, reason, asker)
        said.push(lines.slice(1))
        for (const line of lines) {
          expect(harms(line, { entries: [], group: Option.none() })).toStrictEqual(
            Option.none()
          )
        }
      }
      const [asRoot, asOther, open, groupOpen] = said
      expect(asRoot?.[1]).toMatch(/^Fix: run buddy as the home's owner: sudo -u nobody buddy status --home \/tmp\//)
      expect(asOther?.[0]).toMatch(/belongs to nobody \(uid 65534\); buddy runs as uid 4243\.$/)
      expect(asOther?.[1]).toMatch(/^Fix: run buddy as the home's owner: sudo -u nobody buddy status --home /)
      expect(open?.[0]).toMatch(/has mode 0777: the group and others may write to it\.$/)
      expect(groupOpen?.[0]).toMatch(/has mode 0770: the group may write to it\.$/)
    }
  )

  it.skipIf(process.getuid?.() !== 0)(
    "a socket of another account's in one's own home: the gateway's to make again",
    async () => {
      const dir = await home(0o700, 0)
      await socketIn(dir, 0o600, 65534)
      const lines = await advice(dir, "unsafe-socket", 0)
      expect(lines.slice(1)).toStrictEqual([
        `${path.join(dir, "gateway.sock")} belongs to nobody (uid 65534); buddy runs as root (uid 0).`,
        "The gateway makes it: restart it with: systemctl --user restart hermes-gateway"
      ])
      const pointer = await home(0o700, 0)
      await fs.writeFile(path.join(pointer, "gateway.sock.path"), "/x", { mode: 0o644 })
      await fs.chmod(path.join(pointer, "gateway.sock.path"), 0o644)
      const pointed = await advice(pointer, "unsafe-pointer", 0)
      expect(pointed.slice(1)).toStrictEqual([
        `${path.join(pointer, "gateway.sock.path")} has mode 0644: the group and others may use it.`,
        "The gateway makes it: restart it with: systemctl --user restart hermes-gateway"
      ])
    }
  )
})
