// `npm run campaign`: the whole fault matrix (./matrix.ts) through buddy serve against the fake
// gateway in another process. Prints each broken cell, writes the matrix and its results to
// docs/quality.md (between its campaign markers), and fails if any cell does not hold. Run by
// vitest (vitest.campaign.config.ts) because its helpers are test support; never part of `npm test`.
import * as os from "node:os"
import { expect, it } from "vitest"
import { writeQualitySection } from "../support/quality-doc.js"
import { cellName, cells, deadlines, faultCases, routeNames, runCampaign } from "./matrix.js"

it("the whole fault matrix holds", async () => {
  const workers = Number(process.env["CAMPAIGN_WORKERS"] ?? 3)
  const started = performance.now()
  let done = 0
  const results = await runCampaign(cells, workers, (result) => {
    done += 1
    if (result.violations.length > 0) console.log(`BROKEN ${cellName(result.cell)}: ${result.violations.join("; ")}`)
    if (done % 25 === 0) console.log(`${done}/${cells.length} cells`)
  })
  const seconds = Math.round((performance.now() - started) / 1000)
  const holding = results.filter((result) => result.violations.length === 0)

  const steps = ["identify", "session-ticket", "providers", "start", "poll", "cancel", "sign-out", "between"] as const
  const row = (fault: (typeof faultCases)[number]) =>
    `| ${fault.name} | ${
      steps.map((step) => {
        const mine = results.filter((result) => result.cell.fault === fault && result.cell.step === step)
        if (mine.length === 0) return "·"
        const held = mine.filter((result) => result.violations.length === 0).length
        return held === mine.length ? `${held}` : `**${held}/${mine.length}**`
      }).join(" | ")
    } |`

  await writeQualitySection("campaign", [
    "## Fault campaign",
    "",
    `Run by \`npm run campaign\` on ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${workers} ` +
    `workers, ${seconds} s. Each cell: a fresh \`buddy serve\` server (serveOn in a child, deadlines control ` +
    `${deadlines.control} ms, API ${deadlines.api} ms, start ${deadlines.start} ms) and the fake gateway in its own ` +
    "process, restarted between cells. A cell holds " +
    "when the answer is a closed C6 body within the faulted step's deadline + 2 s, the journal has exactly the line " +
    "the answer implies (none for a status read), nothing was sent twice but a refused ticket's one retry, no provider " +
    "DELETE went out while the held sign-in was not ended on Hermes, no ending was reported that Hermes did not prove, " +
    "no Hermes text, home, instance id, session id, ticket or (outside its answer) handle reached the answer, the " +
    "journal or stderr, `GET /api/buddy` still answered 200 afterwards, no ending in the answer or as its holder " +
    "read it afterwards contradicted what Hermes saved (`signed-in` only after an approval; `cancelled`, `expired`, " +
    "`refused` or `failed` never after one; `lost` claims only that Hermes let the session go), and a second buddy " +
    "process beside a held sign-in was refused, sending nothing. Routes that end a held sign-in poll it first " +
    "(C4.7), and `status (held)` is a status read while a sign-in is held, which polls it (C5).",
    "",
    `**${results.length} cells run, ${holding.length} holding.** Routes: ${routeNames.join(", ")}. ` +
    "Each number is the count of holding cells (one per route that asks Hermes for that step); · = the fault does not " +
    "apply at that step. `between` = an event on the gateway just before the route is asked.",
    "",
    `| fault | ${steps.join(" | ")} |`,
    `|---|${steps.map(() => "---").join("|")}|`,
    ...faultCases.map(row),
    "",
    ...(holding.length === results.length ? [] : [
      "Cells that did not hold:",
      "",
      ...results.filter((result) => result.violations.length > 0).map((result) =>
        `- ${cellName(result.cell)}: ${result.violations.join("; ")}`
      ),
      ""
    ])
  ])

  console.log(`${results.length} cells run, ${holding.length} holding, ${seconds} s`)
  expect(holding.length).toBe(results.length)
}, 3_600_000)
