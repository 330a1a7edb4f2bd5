// The words table (src/cli/words.ts): every closed reason and state from src/schema/reasons.ts has
// exactly one sentence of its own, walked from the Schema literals themselves, so a reason added
// to a union without words fails here (and, since the tables are typed by the unions, to compile).
import { describe, expect, it } from "vitest"
import * as words from "../../src/cli/words.js"
import { BlockedReason, BuddyState, GatewayReason, SignInState } from "../../src/schema/reasons.js"

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
