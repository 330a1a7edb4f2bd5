// The card's words (src/element/words.ts, C10): every closed value of the one table has words in both
// locales, held to the Schemas' own literals here (the records' types hold them at compile time too),
// no two values share words, Czech reads as Czech (its diacritics, its three plural forms), and the
// closed values themselves are never what the person reads.
import { describe, expect, it } from "vitest"
import { words } from "../../src/element/words.js"
import { BlockedReason, BuddyState, GatewayReason } from "../../src/schema/reasons.js"
import { DeniedReason, PlainError, SignInEnding } from "../../src/schema/routes.js"

const tables = [
  ["buddy", BuddyState.literals],
  ["endings", SignInEnding.literals],
  ["blocked", BlockedReason.literals],
  ["unavailable", GatewayReason.literals],
  ["denied", DeniedReason.literals],
  ["errors", PlainError.literals]
] as const

describe("the card's words", () => {
  for (const locale of ["cs", "en"] as const) {
    const said = words[locale]
    it(`${locale}: every closed value of the table has its own words, and none reads as its code`, () => {
      for (const [table, values] of tables) {
        const record: Readonly<Record<string, string>> = said[table]
        expect(Object.keys(record).toSorted(), `${locale} ${table}`).toStrictEqual([...values].toSorted())
        for (const value of values) {
          const text = record[value] ?? ""
          expect(text.length, `${locale} ${table} ${value}`).toBeGreaterThan(10)
          expect(text, `${locale} ${table} ${value}`).not.toContain(value.includes("-") ? value : `\`${value}\``)
        }
        expect(new Set(Object.values(record)).size, `${locale} ${table}: each value its own words`).toBe(values.length)
      }
    })
  }

  it("every sentence and label is words in both locales: none empty, and each its own in Czech and in English", () => {
    /** Each string of a catalog, by its path (`buddy.works`, `title`); the one function is `waiting`. */
    const leaves = (catalog: object, at = ""): ReadonlyArray<readonly [string, string]> =>
      Object.entries(catalog).flatMap(([key, value]) =>
        typeof value === "string"
          ? [[`${at}${key}`, value] as const]
          : typeof value === "object" && value !== null
          ? leaves(value, `${at}${key}.`)
          : []
      )
    const en = new Map(leaves(words.en))
    const cs = new Map(leaves(words.cs))
    expect([...cs.keys()]).toStrictEqual([...en.keys()])
    expect(en.size).toBeGreaterThan(60)
    for (const [key, text] of en) {
      expect(text.trim().length, `en ${key}`).toBeGreaterThan(key === "title" ? 0 : 4)
      expect(cs.get(key)?.trim().length ?? 0, `cs ${key}`).toBeGreaterThan(key === "title" ? 0 : 4)
      // Only the name is the same in both.
      if (key !== "title") expect(cs.get(key), key).not.toBe(text)
    }
    expect(words.en.title).toBe("Buddy")
    expect(words.cs.title).toBe("Buddy")
    for (const said of [en, cs]) expect(new Set(said.values()).size, "no two keys share words").toBe(said.size)
  })

  it("hermes-outdated reads \"Buddy needs an update…\", in both words", () => {
    expect(words.en.blocked["hermes-outdated"]).toMatch(/^Buddy needs an update/)
    expect(words.cs.blocked["hermes-outdated"]).toMatch(/^Buddy potřebuje aktualizaci/)
  })

  it("Czech is written with its diacritics, and differs from English everywhere it is a sentence", () => {
    const czech = JSON.stringify(words.cs)
    for (
      const letter of ["á", "č", "ď", "é", "ě", "í", "ň", "ó", "ř", "š", "ť", "ú", "ů", "ý", "ž"].filter((l) =>
        l !== "ď" && l !== "ť" && l !== "ň"
      )
    ) {
      expect(czech, letter).toContain(letter)
    }
    for (const [table] of tables) {
      const cs: Readonly<Record<string, string>> = words.cs[table]
      const en: Readonly<Record<string, string>> = words.en[table]
      for (const key of Object.keys(cs)) expect(cs[key], `${table} ${key}`).not.toBe(en[key])
    }
  })

  it("a number of minutes takes its plural form: one, two to four, five and more in Czech; one, other in English", () => {
    expect(words.en.waiting(0)).toBe("Waiting for you to approve it…")
    expect(words.en.waiting(1)).toBe("Waiting for you to approve it, for 1 minute now…")
    expect(words.en.waiting(2)).toBe("Waiting for you to approve it, for 2 minutes now…")
    expect(words.cs.waiting(0)).toBe("Čekám, až přihlášení schválíte…")
    expect([1, 2, 3, 4, 5, 11, 21, 22].map((minutes) => words.cs.waiting(minutes).split(" ").at(-1))).toStrictEqual([
      "minutu…",
      "minuty…",
      "minuty…",
      "minuty…",
      "minut…",
      "minut…",
      "minut…",
      "minut…"
    ])
  })
})
