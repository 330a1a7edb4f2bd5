// A test that needs a program the machine lacks is skipped on a developer's machine, and fails the
// run in CI (issue 19.7): .ci/run installs Chromium, zsh, fish and script, so a skip there would
// hide that the browser and shell tests never ran.
import { afterEach, expect, it } from "vitest"
import { requires } from "./support/required.js"

const before = process.env["CI"]
afterEach(() => {
  if (before === undefined) delete process.env["CI"]
  else process.env["CI"] = before
})

it("runs what is present, skips what is missing locally, and refuses to skip in CI", () => {
  expect(requires(true, "zsh", "apt-get install zsh")).toBe(true)
  delete process.env["CI"]
  expect(requires(false, "zsh", "apt-get install zsh")).toBe(false)
  process.env["CI"] = "true"
  expect(() => requires(false, "zsh", "apt-get install zsh")).toThrow(
    "zsh is missing, and CI does not skip its tests: apt-get install zsh"
  )
})
