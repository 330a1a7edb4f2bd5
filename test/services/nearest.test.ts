// "Did you mean" (src/services/nearest.ts): the edit distance, and the names within two edits of
// what was typed or that begin with it, dashes aside, as the command line's words and the config
// file's fields suggest them (test/cli/usage.test.ts and test/serve/config-file.test.ts show them in use).
import { describe, expect, it } from "vitest"
import { distance, nearest } from "../../src/services/nearest.js"

describe("the edit distance", () => {
  it("counts insertions, deletions and substitutions, one each, whichever side is longer", () => {
    const cases: ReadonlyArray<readonly [string, string, number]> = [
      ["", "", 0],
      ["", "abc", 3],
      ["a", "", 1],
      ["abc", "", 3],
      ["abc", "abc", 0],
      ["kitten", "sitting", 3],
      ["ab", "ba", 2],
      ["launchpadOrign", "launchpadOrigin", 1],
      ["stat", "start", 1],
      ["flaw", "lawn", 2]
    ]
    for (const [a, b, edits] of cases) expect([a, b, distance(a, b)]).toStrictEqual([a, b, edits])
  })
})

describe("the nearest names", () => {
  it("are those within two edits, case aside", () => {
    expect(nearest("--hme", ["--home", "--json"])).toStrictEqual(["--home"])
    expect(nearest("Locale", ["locale", "environment"])).toStrictEqual(["locale"])
    expect(nearest("xyz", ["locale", "environment"])).toStrictEqual([])
  })

  it("are those that begin with what was typed, its dashes and theirs aside", () => {
    expect(nearest("--js", ["--home", "--json"])).toStrictEqual(["--json"])
    expect(nearest("--j", ["--home", "--json"])).toStrictEqual(["--json"])
    expect(nearest("j", ["--home", "--json"])).toStrictEqual(["--json"])
    expect(nearest("hermes", ["hermesHome", "launchpadOrigin"])).toStrictEqual(["hermesHome"])
    // Only leading dashes are set aside: one inside a word is the word's.
    expect(nearest("a-b", ["ab-long", "a-bc"])).toStrictEqual(["a-bc"])
    expect(nearest("abc", ["ab-cdef"])).toStrictEqual([])
  })

  it("are none for dashes alone: an empty word begins every name but suggests none", () => {
    expect(nearest("--", ["--home", "--json"])).toStrictEqual([])
    expect(nearest("-", ["--home-directory", "--json-lines"])).toStrictEqual([])
  })
})
