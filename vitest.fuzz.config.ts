// `npm run fuzz`: only the fuzz properties (test/fuzz), at 10 000 runs per decoder unless FUZZ_RUNS
// says otherwise, without building the CLI first (no fuzz test spawns it). See docs/quality.md.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/fuzz/**/*.test.ts"],
    env: { FUZZ_RUNS: process.env["FUZZ_RUNS"] ?? "10000" },
    // One file at a time: the properties keep a core busy each, and the machine is shared.
    fileParallelism: false,
    testTimeout: 30 * 60_000,
    hookTimeout: 60_000
  }
})
