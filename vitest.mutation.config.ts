// The tests StrykerJS runs against each mutant: the in-process suites of the services, the HTTP
// app and `buddy serve`'s host (test/serve: real sockets and files in temporary directories; the few
// things a worker thread may not do, another uid or umask, in a child that runs the mutated source
// with the active mutant), and the browser client's and the card's view and words (D49.8). Nothing that runs the built executable runs here (test/boundary,
// test/campaign, test/cli, test/browser, test/fixtures, test/load, and the no-proxy test, which
// needs a child with its own environment): no mutant reaches it, and each is seconds per mutant.
// See docs/decisions.md D11.
import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"
import { selfReference } from "./vitest.config.js"

/**
 * test/schema, the card's view and words and the client's decoding first, then test/serve, then
 * vitest's own order: a static mutant runs every file until one fails (StrykerJS bails at the first
 * failure); the focused suite in test/schema loads each module afresh and fails in milliseconds for
 * what it pins (D37), as the words' and decoding's pure tests do for the card's catalogs (every word
 * a static mutant, D49.8), and test/serve, a few seconds in all, pins the module-level words, answers
 * and limits of src/serve, which no other suite reaches.
 */
class FocusedFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>) {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) =>
      file.moduleId.includes("/test/schema/") || file.moduleId.includes("/test/element/") ||
        file.moduleId.endsWith("/test/client/decode.test.ts")
        ? 0
        : file.moduleId.includes("/test/serve/")
        ? 1
        : file.moduleId.endsWith("/test/services/reuse-resend.test.ts")
        ? 3
        : 2
    return sorted.toSorted((a, b) => rank(a) - rank(b))
  }
}

export default defineConfig({
  // "@lazurio/buddy" is the (mutated) source, as in `npm test`: without this the examples test ran against
  // dist/lib, built at install, so no mutant ever reached it.
  resolve: { alias: selfReference },
  test: {
    include: [
      "test/schema/**/*.test.ts",
      "test/services/**/*.test.ts",
      "test/http/**/*.test.ts",
      "test/serve/**/*.test.ts",
      "test/fuzz/**/*.test.ts",
      "test/client/**/*.test.ts",
      "test/element/view.test.ts",
      "test/element/words.test.ts",
      "test/testing/**/*.test.ts",
      "test/examples.test.ts"
    ],
    // The canary property runs whole sign-ins per case (test/http/secrets covers leaks per mutant).
    // The client's size and generated files are pinned where they are built (bench/client-size.ts,
    // scripts/client-wire.ts), not by the mutants of their source.
    exclude: [
      "test/services/no-proxy.test.ts",
      "test/fuzz/canary.test.ts",
      "test/client/size.test.ts",
      "test/client/wire.test.ts",
      "test/client/answers.test.ts"
    ],
    // The fuzz properties as `npm test` runs them (200 runs each), from one fixed seed, so that a
    // mutant is killed or not the same way in every run; the first counterexample is enough to kill
    // it, so nothing is shrunk.
    env: { FUZZ_SEED: "20261130", FUZZ_END_ON_FAILURE: "1", MUTATION_RUN: "1" },
    // One test sets HOME to see the ~/.hermes default; only a process of its own sees that in os.homedir().
    pool: "forks",
    // Dependencies are loaded once for all the files of a run (the suite: 45 s isolated, 20 s not);
    // our own modules load again for each file (test/support/mutation-reload.ts, D11).
    isolate: false,
    setupFiles: ["test/support/mutation-reload.ts"],
    sequence: { sequencer: FocusedFirst },
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
