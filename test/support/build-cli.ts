// Vitest global setup: the CLI tests spawn bin/buddy.js, which runs dist/buddy.js; build it from
// the current source first so no test ever runs a stale bundle.
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"

export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../../scripts/build.js", import.meta.url))], {
    stdio: "inherit"
  })
}
