// The browser client's weight (issue 25, docs/decisions.md D45): bundled as a Launchpad's front end
// bundles it, at most 15 KB gzipped, with none of effect's Schema in it; and `npm run bench:check`
// fails once it grows more than 25 % over the size docs/performance.md stores.
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { clientGoal, grown, measureClient, storedClient, withClientBlock } from "../../bench/client-size.js"

const root = fileURLToPath(new URL("../../", import.meta.url))

describe("the browser client's bundle", () => {
  it("is at most 15 KB gzipped, and holds none of effect's Schema nor the route table's values", async () => {
    const { inputs, size } = await measureClient(root)
    expect(size.gzipped).toBeLessThanOrEqual(clientGoal)
    const files = inputs.filter(({ bytes }) => bytes > 0).map(({ file }) => file)
    expect(files).toContain("src/client/wire.ts")
    expect(files.filter((file) => /effect\/dist\/esm\/(Schema|SchemaAST|ParseResult)\.js$/.test(file))).toStrictEqual(
      []
    )
    expect(files.filter((file) => file.startsWith("src/schema/"))).toStrictEqual([])
  })

  it("fails `bench:check` past 25 % over the stored size, and not at it", () => {
    const stored = { minified: 16_000, gzipped: 4_000 }
    expect(grown(stored, { minified: 20_000, gzipped: 5_000 }, 1.25)).toStrictEqual([])
    expect(grown(stored, { minified: 20_001, gzipped: 5_000 }, 1.25)).toStrictEqual(["minified"])
    expect(grown(stored, { minified: 16_000, gzipped: 5_001 }, 1.25)).toStrictEqual(["gzipped"])
    // What the bench writes is what it reads back, and a second write replaces the block.
    const once = withClientBlock("# Performance\n", stored, root)
    expect(storedClient(once)).toStrictEqual(stored)
    const twice = withClientBlock(once, { minified: 1, gzipped: 2 }, root)
    expect(storedClient(twice)).toStrictEqual({ minified: 1, gzipped: 2 })
    expect(twice.split("bench:client:begin")).toHaveLength(2)
    expect(storedClient("# Performance\n")).toBeUndefined()
  })

  it("docs/performance.md stores its size, and `bench:check -- --client-size` passes on it", async () => {
    const stored = storedClient(readFileSync(`${root}docs/performance.md`, "utf8"))
    const { size } = await measureClient(root)
    expect(stored).toBeDefined()
    expect(grown(stored ?? size, size, 1.25)).toStrictEqual([])
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "bench/run.ts", "--check", "--client-size"],
      { cwd: root }
    )
    expect(stdout).toContain("the client's size no more than 25 % over docs/performance.md")
  })
})
