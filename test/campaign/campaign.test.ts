// The fault campaign's fast subset in `npm test`: each fault the fake gateway can play, once, at a
// step and route where it matters (the full matrix is `npm run campaign`, docs/quality.md).
import { describe, expect, it } from "vitest"
import { cellName, cells, faultCases, runCampaign } from "./matrix.js"

/** For each fault, the cell on the route that asks Hermes the most (a held sign-in replaced), else the first. */
const subset = faultCases.map((fault) => {
  const mine = cells.filter((cell) => cell.fault === fault)
  return mine.find((cell) => cell.route === "start (replacing)") ?? mine.find((cell) =>
    cell.route === "sign-out (held)"
  ) ??
    mine[0]!
})

describe("the fault campaign, one cell per fault", () => {
  it(`holds in all ${subset.length} cells`, async () => {
    const results = await runCampaign(subset, 2)
    const broken = results.filter((result) => result.violations.length > 0).map((result) =>
      `${cellName(result.cell)}: ${result.violations.join("; ")}`
    )
    expect(broken).toStrictEqual([])
    expect(results).toHaveLength(faultCases.length)
  }, 180_000)
})
