#!/usr/bin/env node
// `buddy-simulator` (package.json "bin"): a simulated Hermes gateway on a home of your choosing, to
// try buddy without Hermes (`buddy-simulator --help`). It runs dist/simulator.js, beside the recorded
// answers it serves: the bundle the repository's scripts/build.js makes of its fixtures/simulator.ts.
const { main } = await import(new URL("../dist/simulator.js", import.meta.url).href)
await main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`buddy-simulator: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
