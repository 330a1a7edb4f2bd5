// How many runs each fuzz property gets, and how to replay one. `npm test` runs 200 per
// decoder; `npm run fuzz` (vitest.fuzz.config.ts) sets FUZZ_RUNS to 10 000. On a failure fast-check
// prints the seed and path; FUZZ_SEED (and FUZZ_PATH) replay exactly that run.
import type { FastCheck } from "effect"

const positive = (text: string | undefined): number | undefined => {
  const value = Number(text)
  return text !== undefined && Number.isSafeInteger(value) && value > 0 ? value : undefined
}

/** Runs per decoder: FUZZ_RUNS, else 200 (the fuzz files stay near 10 s of `npm test`). */
export const fuzzRuns = positive(process.env["FUZZ_RUNS"]) ?? 200

/**
 * Runs for a property that goes through real sockets and a whole sign-in per run: a tenth of
 * FUZZ_RUNS (so 1 000 under `npm run fuzz`), at least 30, unless FUZZ_CANARY_RUNS says otherwise.
 */
export const canaryRuns = positive(process.env["FUZZ_CANARY_RUNS"]) ?? Math.max(30, Math.floor(fuzzRuns / 10))

/** A vitest timeout that grows with the runs: `perRun` ms each, and never under 30 s. */
export const timeoutFor = (runs: number, perRun: number) => Math.max(30_000, Math.ceil(runs * perRun * 3))

/** fast-check parameters for `runs` runs, replaying FUZZ_SEED / FUZZ_PATH when given. */
export const params = <T>(runs: number = fuzzRuns): FastCheck.Parameters<T> => {
  const seed = process.env["FUZZ_SEED"]
  const path = process.env["FUZZ_PATH"]
  return {
    numRuns: runs,
    // Set by the mutation suite (vitest.mutation.config.ts): the first counterexample is enough there.
    ...(process.env["FUZZ_END_ON_FAILURE"] === "1" ? { endOnFailure: true } : {}),
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path })
  }
}

/**
 * Counts the outcomes a property saw, so a test can require that its generators reach both sides
 * (accepted and refused) and FUZZ_STATS=1 prints the spread.
 */
export const tally = (name: string) => {
  const counts = new Map<string, number>()
  return {
    add: (outcome: string) => void counts.set(outcome, (counts.get(outcome) ?? 0) + 1),
    seen: (outcome: string) => counts.get(outcome) ?? 0,
    report: () => {
      if (process.env["FUZZ_STATS"] !== undefined) {
        console.log(
          `${name}: ${JSON.stringify(Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b))))}`
        )
      }
    }
  }
}

/**
 * Lets the event loop reach its poll phase. A property whose runs settle in microtasks only (no real
 * I/O, as the route bodies read from memory) would otherwise hold the loop for its whole run, and the
 * vitest worker's replies from its runner would wait past their fixed 60 s ("Timeout calling
 * onTaskUpdate", vitest-dev/vitest#8164).
 */
export const breathe = () => new Promise<void>((resolve) => setImmediate(resolve))
