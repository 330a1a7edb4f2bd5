// The documentation a Launchpad developer works from lives in the repository (issue 11 item 7):
// docs/http-api.md names every route, every refusal and every closed reason the app can answer,
// and nothing a newcomer reads points outside the repository for the contract.
import { existsSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { BlockedReason, GatewayReason, SignInState } from "../src/schema/reasons.js"
import { PlainError } from "../src/schema/routes.js"
import { testedSnippets } from "./deploy/support/deploy.js"

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), "utf8")

describe("docs/http-api.md", () => {
  const doc = read("docs/http-api.md")

  it("names every route of the app with its method", () => {
    for (
      const route of [
        "GET /api/buddy`",
        "POST /api/buddy/sign-in/start",
        "POST /api/buddy/sign-in/poll",
        "POST /api/buddy/sign-in/cancel",
        "POST /api/buddy/sign-out",
        "GET /api/buddy/openapi.json"
      ]
    ) expect(doc).toContain(route)
  })

  it("names every closed reason, refusal and sign-in state a page can meet", () => {
    for (const reason of GatewayReason.literals) expect(doc).toContain(`\`${reason}\``)
    for (const reason of BlockedReason.literals) expect(doc).toContain(`\`${reason}\``)
    for (const error of PlainError.literals) expect(doc).toContain(error)
    for (const state of SignInState.literals) expect(doc).toContain(`\`${state}\``)
  })

  it("says which headers a POST needs and how often to poll", () => {
    expect(doc).toContain("`Sec-Fetch-Site: same-origin`")
    expect(doc).toContain("`launchpadOrigin`")
    expect(doc).toContain("every **5 seconds**")
  })
})

describe("what a newcomer reads", () => {
  it("points at the API document, not at a contract outside the repository", () => {
    for (const file of ["README.md", "docs/operator-guide.md"]) {
      expect(read(file)).not.toContain("../shared")
      expect(read(file)).toContain("docs/http-api.md")
    }
  })
})

describe("docs/operator-guide.md", () => {
  const guide = read("docs/operator-guide.md")

  it("runs the proxy snippets it marks as tested: each marker names a test that reads that snippet", () => {
    const marked = testedSnippets(guide)
    // Every marker is followed by its fence (a marker the pattern misses would test nothing).
    expect(marked).toHaveLength(guide.split("<!-- tested: ").length - 1)
    expect(marked.map(({ language, name, test }) => [test, name, language])).toStrictEqual([
      ["test/deploy/proxies.test.ts", "nginx", "nginx"],
      ["test/deploy/proxies.test.ts", "caddy", "caddy"]
    ])
    for (const { name, test } of marked) {
      const source = read(test)
      expect([test, source.includes(`const TEST = "${test}"`)]).toStrictEqual([test, true])
      expect([name, source.includes(`guideSnippet(TEST, "${name}")`)]).toStrictEqual([name, true])
    }
  })
})

describe("docs/security.md", () => {
  const doc = read("docs/security.md")
  const rows = doc.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| who "))

  it("has a row for each party issue 15 names", () => {
    for (
      const party of [
        "another local account",
        "another site",
        "rebinds its DNS name",
        "Buddy's own page",
        "reverse proxy",
        "root"
      ]
    ) expect(rows.some((row) => row.includes(party))).toBe(true)
  })

  it("names in every row a test file that exists, and test names that file has", () => {
    expect(rows.length).toBeGreaterThan(10)
    for (const row of rows) {
      const proof = row.split(" | ").at(-1) ?? ""
      if (proof.startsWith("none")) continue
      let file = ""
      for (const part of proof.split(";")) {
        file = /`(test\/[^`]+)`/.exec(part)?.[1] ?? file
        expect([row, existsSync(new URL(`../${file}`, import.meta.url))]).toStrictEqual([row, true])
        const text = read(file)
        for (const [, name] of part.matchAll(/"([^"]+)"/g)) {
          expect([file, text.includes(name ?? "")]).toStrictEqual([file, true])
        }
      }
    }
  })
})
