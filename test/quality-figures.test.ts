// docs/quality.md's long-run figures are written by the runs themselves (test/support/quality-doc.ts);
// this holds them to what the runs count today, so a figure cannot outlive the code it describes: the
// campaign's cells are the matrix's own (a cell added or a route changed makes the recorded run stale),
// all of them holding, and the chaos and soak sections say a run that broke nothing (issue 36: the
// campaign once went red with nobody looking, while this document still said 350/350).
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { cells } from "./campaign/matrix.js"

const quality = readFileSync(new URL("../docs/quality.md", import.meta.url), "utf8")

/** The text of the section a long run owns, between its markers. */
const section = (name: string) => {
  const start = quality.indexOf(`<!-- ${name}:start -->`)
  const end = quality.indexOf(`<!-- ${name}:end -->`)
  expect(start, `docs/quality.md has no ${name} section`).toBeGreaterThanOrEqual(0)
  expect(end).toBeGreaterThan(start)
  return quality.slice(start, end)
}

describe("docs/quality.md's long-run figures agree with the runs' own counts", () => {
  it("the campaign: as many cells as the matrix has, every one holding, and no broken cell listed", () => {
    const campaign = section("campaign")
    const figure = /\*\*(\d+) cells run, (\d+) holding\.\*\*/.exec(campaign)
    expect(figure, "the campaign's figure line").not.toBeNull()
    const [, run, holding] = figure!
    expect(Number(run)).toBe(cells.length)
    expect(Number(holding)).toBe(cells.length)
    expect(campaign).not.toContain("Cells that did not hold")
    // Each table cell is a count of holding cells; a broken one is written in bold as held/all.
    expect(campaign).not.toMatch(/\*\*\d+\/\d+\*\*/)
  })

  it("restart chaos: its rounds, and no violation", () => {
    const chaos = section("chaos")
    expect(chaos).toMatch(/Run by `npm run chaos` on \d{4}-\d\d-\d\d, .*: 300 rounds/)
    expect(chaos).toContain("**Violations: 0.**")
  })

  it("the soak: every answer closed", () => {
    const soak = section("soak")
    const answers = /- (\d+) answers in \d+ ms, (\d+) of them closed/.exec(soak)
    expect(answers, "the soak's answers line").not.toBeNull()
    expect(answers?.[1]).toBe("2000")
    expect(answers?.[2]).toBe("2000")
  })
})
