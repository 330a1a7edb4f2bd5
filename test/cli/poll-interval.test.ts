// The held sign-in polls at Hermes's poll_interval, within bounds a terminal can live with: found
// by fuzzing the start answer, whose schema takes any positive number (docs/quality.md, Fuzzing).
import { expect, it } from "vitest"
import { pollSeconds } from "../../src/cli/sign-in.js"

it("polls at Hermes's interval between 1 s and 60 s, and at 5 s when the interval is not a number it can wait", () => {
  expect(pollSeconds(5)).toBe(5)
  expect(pollSeconds(1)).toBe(1)
  expect(pollSeconds(2.5)).toBe(2.5)
  expect(pollSeconds(60)).toBe(60)
  expect(pollSeconds(1e-300)).toBe(1)
  expect(pollSeconds(0.5)).toBe(1)
  expect(pollSeconds(3600)).toBe(60)
  expect(pollSeconds(Number.POSITIVE_INFINITY)).toBe(5)
  expect(pollSeconds(Number.NaN)).toBe(5)
})
