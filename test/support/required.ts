// What a test needs from the machine (a browser, a shell, a pseudo-terminal, root): here it runs;
// missing, it is skipped with a word on a developer's machine, and fails the run in CI (`CI` set),
// where .ci/run installs every such program, so a skip can never pass for a green run there.
import { execFileSync } from "node:child_process"

const inCi = () => process.env["CI"] !== undefined && process.env["CI"] !== ""

/** Whether the tests that need `what` run; throws in CI when it is missing. */
export const requires = (present: boolean, what: string, install: string): boolean => {
  if (present) return true
  if (inCi()) throw new Error(`${what} is missing, and CI does not skip its tests: ${install}`)
  console.warn(`${what} is missing: its tests are skipped (${install})`)
  return false
}

/** Whether a program is on PATH. */
export const onPath = (program: string): boolean =>
  execFileSync("sh", ["-c", `command -v ${program} || true`], { encoding: "utf8" }).trim() !== ""
