// A setup file of vitest.mutation.config.ts only (StrykerJS runs, D11). The mutation suite runs
// with `isolate: false`, so that a run does not load effect and @effect/platform afresh for every
// test file, which is most of what an isolated run costs (the suite: 45 s isolated, 20 s not).
// But sharing *our* modules between test files would make the mutation score lie, in two ways:
// - code that runs once and is kept (a module's top level, or a value built at first use and
//   cached, such as the OpenAPI document) would run under one test file and then serve every
//   other, so StrykerJS's per-test coverage would credit only the first file's test with it and
//   run only that test against its mutants (the document's content, checked by test/http/openapi,
//   was "covered" by an admission test that never looks at it);
// - a static mutant changes what a module computes as it loads, so it only takes effect in a module
//   loaded while it is active.
// So before each test file every module of this repository is dropped from vitest's module cache
// and loads again, as in an isolated run (StrykerJS's own setup file runs before this one and has
// set a static mutant active by then). Dependencies are loaded natively by Node, outside that
// cache, and stay: they are never mutated.

interface WorkerState {
  readonly moduleCache: { keys(): Iterable<string>; delete(key: string): boolean }
}

const worker = (globalThis as typeof globalThis & { readonly __vitest_worker__?: WorkerState }).__vitest_worker__
if (worker === undefined) {
  throw new Error("test/support/mutation-reload.ts: vitest's worker state is not where vitest 3 keeps it")
}
for (const key of [...worker.moduleCache.keys()]) {
  if (!key.includes("/node_modules/")) worker.moduleCache.delete(key)
}
