// The check the package's entries run before the library loads (src/peers.ts, D44): which effect
// versions it lets through, the sentence it says otherwise, and that it reads Effect 3's own stamp
// (what a server bundle still has) rather than a package.json. The installed package against a real
// Effect 4 is test/package-toolchain.test.ts.
import { readFileSync } from "node:fs"
import { expect, it } from "vitest"
import { assertEffect, effectProblem, stampedVersion, supportedPeers } from "../src/peers.js"

const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  readonly version: string
  readonly peerDependencies: Record<string, string>
}
const installed = JSON.parse(readFileSync(new URL("../node_modules/effect/package.json", import.meta.url), "utf8")) as {
  readonly version: string
}

it("names the ranges package.json gives its peers, word for word", () => {
  for (const [name, range] of Object.entries(supportedPeers)) expect(manifest.peerDependencies[name]).toBe(range)
})

it("accepts Effect 3 from 3.21 on, and refuses an older 3, Effect 4 and an effect that is not Effect 3", () => {
  expect(effectProblem("3.21.0")).toBeUndefined()
  expect(effectProblem("3.22.4")).toBeUndefined()
  expect(effectProblem("3.99.0")).toBeUndefined()
  expect(effectProblem("3.20.9")).toBe(
    `@lazurio/buddy ${manifest.version} supports effect ^3.21.0 (Effect 3) only, and found effect 3.20.9: install the supported ` +
      "versions beside it (npm install effect@\"^3.21.0\" @effect/platform@\"^0.96.0 || ^0.97.0\")."
  )
  expect(effectProblem("2.4.0")).toContain("found effect 2.4.0: ")
  expect(effectProblem("4.0.0")).toContain("found effect 4.0.0: ")
  expect(effectProblem("4.1.0")).toContain("found effect 4.1.0: ")
  expect(effectProblem(undefined)).toContain("found an effect that is not Effect 3: ")
})

it("reads the version Effect 3 stamps on its effects, and lets this repository's effect through", () => {
  expect(stampedVersion()).toBe(installed.version)
  expect(() => assertEffect()).not.toThrow()
})
