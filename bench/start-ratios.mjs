// Start-up times as ratios, for `npm run bench` (bench/run.ts) and `npm run bench:cli-steps`:
// hyperfine (a new process per run) over every command in `rounds` rounds of `runs` runs each; each
// round gives every command's median as a ratio to the first command's, and the figure is the
// median of those ratios over the rounds, so a change of load on this shared machine weighs on
// every command alike.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

export const startRatios = (commands, rounds, runs) => {
  const work = mkdtempSync(join(tmpdir(), "buddy-bench-start-"))
  const ratios = commands.map(() => [])
  try {
    for (let round = 0; round < rounds; round++) {
      const file = join(work, `round-${round}.json`)
      const flags = ["-N", "--warmup", "2", "--runs", String(runs), "--style", "none", "--export-json", file]
      // Its warnings about outliers say what we know: the machine is shared.
      execFileSync("hyperfine", [...flags, ...commands], { stdio: ["ignore", "ignore", "pipe"] })
      const { results } = JSON.parse(readFileSync(file, "utf8"))
      results.forEach((result, i) => ratios[i].push(result.median / results[0].median))
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  return ratios.map(median)
}
