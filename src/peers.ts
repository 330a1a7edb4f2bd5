// The check the package's entry runs before any of the library loads (docs/decisions.md D44): the
// `effect` beside it must be on the line buddy is built for. Effect 4 is the registry's `latest`, so
// an unpinned `npm install @lazurio/buddy effect` brings it, and the library's own imports cannot
// even be resolved against it (Node resolves a module's whole import graph before it runs any of it):
// without this check a Launchpad's first sight of the mistake was `ERR_MODULE_NOT_FOUND
// …/effect/dist/GlobalValue.js`. The entries scripts/build-lib.js writes (dist/lib/main.js for
// import, dist/lib/main.cjs for require) call `assertEffect()` and only then load index.js.
//
// It imports `effect/Effect` alone, a module both lines have, and reads the version Effect 3 stamps
// on every effect (`VarianceStruct._V`, public in Effect 3's types; Effect 4 stamps none), so it
// holds in a Launchpad's server bundle too, where no package.json is left to read. The browser
// client (`@lazurio/buddy/client`) does not run it: a bundler resolves the client's imports at build
// time and stops there on a module Effect 4 lacks.
/* eslint-disable no-restricted-syntax -- a module load can fail only by throwing */
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { buddyVersion } from "./version.js"

/** package.json's peer ranges, word for word (test/package-toolchain.test.ts keeps them equal). */
export const supportedPeers = { effect: "^3.21.0", "@effect/platform": "^0.96.0 || ^0.97.0" } as const

/** The version of the `effect` this module imported, as Effect 3 stamps it; undefined on another line. */
export const stampedVersion = (): string | undefined => {
  const field = (value: unknown, key: PropertyKey): unknown =>
    typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined
  const version = field(field(Effect.void, Symbol.for("effect/Effect")), "_V")
  return typeof version === "string" ? version : undefined
}

/** Only to name what was found: its package.json, where one is installed to read. */
const installedVersion = (): string | undefined => {
  try {
    const { version } = createRequire(import.meta.url)("effect/package.json") as { readonly version?: unknown }
    return typeof version === "string" ? version : undefined
  } catch {
    return undefined
  }
}

/** The sentence a Launchpad reads when `found` (an effect version, or undefined: not Effect 3) cannot run buddy. */
export const effectProblem = (found: string | undefined): string | undefined => {
  const [major, minor] = (found ?? "").split(".").map(Number)
  if (major === 3 && minor !== undefined && minor >= 21) return undefined
  const install = Object.entries(supportedPeers).map(([name, range]) => `${name}@"${range}"`).join(" ")
  return `@lazurio/buddy ${buddyVersion} supports effect ${supportedPeers.effect} (Effect 3) only, and found ${
    found === undefined ? "an effect that is not Effect 3" : `effect ${found}`
  }: install the supported versions beside it (npm install ${install}).`
}

/** Throws the sentence when the effect beside the library cannot run it. */
export const assertEffect = (): void => {
  const problem = effectProblem(stampedVersion() ?? installedVersion())
  if (problem !== undefined) throw new Error(problem)
}
