// Every mutated module loads (StrykerJS's static mutants, D37). A static mutant changes what a
// module computes as it loads; one that makes the load throw (an empty Record, a TextDecoder of no
// encoding, a table of undefined entries) fails every test file that imports the module while it is
// collected, and StrykerJS's vitest runner does not count a file that fails to load: with no failed
// test, such a mutant was reported as surviving. Imported here inside a test, the failure is a test's.
// The mutation suite runs this file first (vitest.mutation.config.ts), so such a mutant costs a
// second, not the whole suite.
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const src = fileURLToPath(new URL("../../src/", import.meta.url))
const mutated = ["schema", "http", "services", "serve"].flatMap((dir) =>
  readdirSync(`${src}${dir}`).filter((name) => name.endsWith(".ts")).map((name) => `${dir}/${name}`)
)

describe("the mutated modules", () => {
  it("are the 47 files of src/schema, src/http, src/services and src/serve", () => {
    expect(mutated.length).toBeGreaterThanOrEqual(47)
  })

  it.each(mutated)("%s loads, and exports what it exported", async (file) => {
    const module: Record<string, unknown> = await import(`${src}${file}`)
    for (const [name, value] of Object.entries(module)) expect(value, name).toBeDefined()
  })
})
