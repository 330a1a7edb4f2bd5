// The tests StrykerJS runs against each mutant: the in-process suites of the services and the
// HTTP app (the CLI and browser suites spawn processes and are too slow to run per mutant).
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/services/**/*.test.ts", "test/http/**/*.test.ts"],
    // One test sets HOME to see the ~/.hermes default; only a process of its own sees that in os.homedir().
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
