// The browser client's weight (issue 25, docs/decisions.md D45) and the card's with it (issue 37,
// D49): bundled as a Launchpad's front end bundles them, the client at most 15 KB gzipped and with
// nothing of effect in it, the card and client together at most 12 KB; and `npm run bench:check`
// fails once either grows more than 25 % over the size docs/performance.md stores.
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import {
  cardEntry,
  cardGoal,
  clientGoal,
  grown,
  measureBoth,
  measureClient,
  storedSizes,
  withClientBlock
} from "../../bench/client-size.js"

const root = fileURLToPath(new URL("../../", import.meta.url))

describe("the browser client's bundle", () => {
  it("is at most 15 KB gzipped, and holds none of effect's Schema nor the route table's values", async () => {
    const { inputs, size } = await measureClient(root)
    expect(size.gzipped).toBeLessThanOrEqual(clientGoal)
    const files = inputs.filter(({ bytes }) => bytes > 0).map(({ file }) => file)
    expect(files).toContain("src/client/wire.ts")
    expect(files.filter((file) => file.includes("node_modules/"))).toStrictEqual([])
    expect(files.filter((file) => file.startsWith("src/schema/"))).toStrictEqual([])
  })

  it("with the card, at most 12 KB gzipped, and nothing but buddy's own files in it", async () => {
    const { inputs, size } = await measureClient(root, cardEntry)
    expect(size.gzipped).toBeLessThanOrEqual(cardGoal)
    const files = inputs.filter(({ bytes }) => bytes > 0).map(({ file }) => file)
    expect(files).toEqual(expect.arrayContaining(["src/element/card.ts", "src/client/index.ts"]))
    expect(files.filter((file) => !file.startsWith("src/element/") && !file.startsWith("src/client/"))).toStrictEqual(
      []
    )
  })

  it("fails `bench:check` past 25 % over the stored size, and not at it", () => {
    const stored = { minified: 16_000, gzipped: 4_000 }
    expect(grown(stored, { minified: 20_000, gzipped: 5_000 }, 1.25)).toStrictEqual([])
    expect(grown(stored, { minified: 20_001, gzipped: 5_000 }, 1.25)).toStrictEqual(["minified"])
    expect(grown(stored, { minified: 16_000, gzipped: 5_001 }, 1.25)).toStrictEqual(["gzipped"])
    // What the bench writes is what it reads back, and a second write replaces the block.
    const card = { minified: 30_000, gzipped: 9_000 }
    const once = withClientBlock("# Performance\n", { client: stored, card }, root)
    expect(storedSizes(once)).toStrictEqual({ client: stored, card })
    const twice = withClientBlock(
      once,
      { client: { minified: 1, gzipped: 2 }, card: { minified: 3, gzipped: 4 } },
      root
    )
    expect(storedSizes(twice)).toStrictEqual({ client: { minified: 1, gzipped: 2 }, card: { minified: 3, gzipped: 4 } })
    expect(twice.split("bench:client:begin")).toHaveLength(2)
    expect(storedSizes("# Performance\n")).toBeUndefined()
  })

  it("docs/performance.md stores both sizes, and `bench:check -- --client-size` passes on them", async () => {
    const stored = storedSizes(readFileSync(`${root}docs/performance.md`, "utf8"))
    const sizes = await measureBoth(root)
    expect(stored?.client).toBeDefined()
    expect(stored?.card).toBeDefined()
    expect(grown(stored?.client ?? sizes.client, sizes.client, 1.25)).toStrictEqual([])
    expect(grown(stored?.card ?? sizes.card, sizes.card, 1.25)).toStrictEqual([])
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "bench/run.ts", "--check", "--client-size"],
      { cwd: root }
    )
    expect(stdout).toContain("the client's and the card's sizes no more than 25 % over docs/performance.md")
  })
})
