// The words table (src/cli/words.ts): every closed reason and state from src/schema/reasons.ts has
// exactly one sentence of its own, walked from the Schema literals themselves, so a reason added
// to a union without words fails here (and, since the tables are typed by the unions, to compile).
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import * as words from "../../src/cli/words.js"
import { BlockedReason, BuddyState, GatewayReason, SignInState } from "../../src/schema/reasons.js"
import { heldBy, type LockProblem, lockUnavailable } from "../../src/services/HolderBusy.js"

const tables: Array<[string, ReadonlyArray<string>, Readonly<Record<string, string>>]> = [
  ["gateway reason", GatewayReason.literals, words.gatewayReason],
  ["blocked reason", BlockedReason.literals, words.blockedReason],
  ["sign-in state", SignInState.literals, words.signInState]
]

describe("the words", () => {
  for (const [kind, literals, table] of tables) {
    it(`give every ${kind} one sentence of plain English, and nothing else`, () => {
      expect(Object.keys(table).sort()).toStrictEqual([...literals].sort())
      for (const literal of literals) {
        const sentence = table[literal]
        // One sentence: a capital first, one full stop, at the end; no code, no internals.
        expect(sentence, literal).toMatch(/^[A-Z][^.{}<>_]*\.$/)
        // Plain English, not the wire code: no "http-error", "sign-in-running"…
        if (literal.includes("-")) expect(sentence, literal).not.toContain(literal)
      }
      expect(new Set(Object.values(table)).size, "each sentence is its own").toBe(literals.length)
    })
  }

  it("give every Buddy state words", () => {
    expect(Object.keys(words.buddyState).sort()).toStrictEqual([...BuddyState.literals].sort())
  })

  it("say C8's sentences exactly", () => {
    expect(words.status({ state: "works" })).toBe("Buddy works.")
    expect(words.status({ state: "waits" })).toBe("Buddy is waiting to be signed in.")
    expect(words.status({ state: "unknown", reason: "not-running" })).toBe(
      "Buddy's state is unknown: Hermes is not running."
    )
    expect(words.blockedReason["hermes-outdated"]).toBe("Buddy needs an update before he can be signed in here.")
    expect(words.openPage("https://auth.openai.com/codex/device", "ABCD-EFGHK")).toBe(
      "Open https://auth.openai.com/codex/device and enter the code ABCD-EFGHK."
    )
    expect(words.waiting).toBe("Waiting for you to finish in the browser. Ctrl-C cancels.")
  })

  it("read as a sentence after the unknown prefix for every gateway reason", () => {
    for (const reason of GatewayReason.literals) {
      expect(words.status({ state: "unknown", reason })).toBe(
        `Buddy's state is unknown: ${words.gatewayReason[reason]}`
      )
    }
  })
})

describe("the holder lock's words (C8, D39): on the terminal only, --json keeps the closed reason", () => {
  const first = "buddy could not take its sign-in lock for this Hermes, so nothing was changed."
  const area = "/home/buddy/.hermes/.buddy-lock"
  const said = (problem: LockProblem, detail: { found?: number; code?: string } = {}, at = area) =>
    words.lockRefusal(lockUnavailable(at, problem, detail)).split("\n")

  it("name the holder's process when it wrote it", () => {
    expect(words.lockRefusal(heldBy(Option.some(4711)))).toBe(
      "Another buddy (process 4711) holds a sign-in for this Hermes, so nothing was changed. " +
        "Its lock goes when that sign-in ends or that buddy stops."
    )
    expect(words.lockRefusal(heldBy(Option.none()))).toBe(
      "Another buddy holds a sign-in for this Hermes, so nothing was changed. " +
        "Its lock goes when that sign-in ends or that buddy stops."
    )
  })

  it("name the path in the way, what is wrong with it, and the command that fixes it", () => {
    const uid = process.getuid?.() ?? -1
    expect(said("link")).toStrictEqual([
      first,
      `${area} is a symbolic link.`,
      `Fix: rm ${area} (buddy makes its own there)`
    ])
    expect(said("not-directory")).toStrictEqual([
      first,
      `${area} is not a directory.`,
      `Fix: rm ${area} (buddy makes its own there)`
    ])
    expect(said("not-file", {}, `${area}/holder.lock`)).toStrictEqual([
      first,
      `${area}/holder.lock is not a regular file.`,
      `Fix: rm -r ${area}/holder.lock (buddy makes its own there)`
    ])
    expect(said("hard-link", { found: 2 }, `${area}/holder.lock`)).toStrictEqual([
      first,
      `${area}/holder.lock has 2 names (a hard link): another name could be someone else's.`,
      `Fix: rm ${area}/holder.lock (buddy makes its own there)`
    ])
    expect(said("foreign", { found: 65534 })).toStrictEqual([
      first,
      `${area} belongs to uid 65534, not to you (uid ${uid}).`,
      `Fix: while no buddy runs, remove buddy's own entry: sudo rm -r ${area} (buddy makes it again)`
    ])
    expect(said("open", { found: 0o755 })).toStrictEqual([
      first,
      `${area} has mode 0755: the group and others may use it.`,
      `Fix: chmod go= ${area}`
    ])
    expect(said("open", { found: 0o7 })).toContain(`${area} has mode 0007: others may use it.`)
    expect(said("open", { found: 0o770 })).toContain(`${area} has mode 0770: the group may use it.`)
    expect(said("unknown-entries", {}, `${area}/holder`)).toStrictEqual([
      first,
      `${area}/holder holds files buddy did not put there, so it cannot be cleared.`,
      `Fix: look at them (ls -la ${area}/holder), then, while no buddy runs: rm -r ${area}/holder`
    ])
    expect(said("system", { code: "EACCES" })).toStrictEqual([
      first,
      `${area}: the system refused (EACCES).`,
      "Check that you can write there: ls -ld /home/buddy/.hermes"
    ])
    expect(said("system", { code: "EROFS" })).toStrictEqual([
      first,
      `${area}: the system refused (EROFS).`,
      "Hermes's home is on a read-only filesystem; buddy keeps its lock beside it and needs to write there."
    ])
    expect(said("no-proc", {}, "/proc/self/fd")).toStrictEqual([
      first,
      "/proc/self/fd is missing: buddy reaches its lock through it on Linux.",
      "Fix: mount /proc (in a container, do not mask /proc/self/fd)"
    ])
    expect(said("unsupported", { code: "win32" })).toStrictEqual([
      first,
      "buddy has no sign-in lock on this system (win32); it has one on Linux, macOS and the BSDs."
    ])
  })
})
