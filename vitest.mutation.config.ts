// The tests StrykerJS runs against each mutant: the in-process suites of the services and the
// HTTP app. Nothing that spawns a process runs here (test/boundary, test/campaign, test/cli,
// test/browser, test/fixtures, test/load, and the no-proxy test, which needs a child with its own
// environment): each is seconds per mutant. See docs/decisions.md D11.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/services/**/*.test.ts", "test/http/**/*.test.ts"],
    exclude: ["test/services/no-proxy.test.ts"],
    // One test sets HOME to see the ~/.hermes default; only a process of its own sees that in os.homedir().
    pool: "forks",
    // Dependencies are loaded once for all the files of a run (the suite: 45 s isolated, 20 s not);
    // our own modules load again for each file (test/support/mutation-reload.ts, D11).
    isolate: false,
    setupFiles: ["test/support/mutation-reload.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
