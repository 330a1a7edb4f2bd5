// The mutation record describes the code as committed (issue 19 item 8): every mutated file is in
// `stryker-incremental.json` with exactly its source, so the score in docs/quality.md is the score
// of this tree. A change to src/services, src/http, src/schema, src/serve, src/client, src/testing or the card's
// view and words without `npm run mutate` after it fails here.
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

const root = new URL("../", import.meta.url)
const record = JSON.parse(readFileSync(new URL("stryker-incremental.json", root), "utf8")) as {
  readonly files: Record<string, { readonly source: string }>
}
/** What stryker.config.json mutates: five directories whole (the test kit's too, D53), the client's hand-written files, the card's logic. */
const generated = ["src/client/wire.ts", "src/client/answers.ts"]
/** Files StrykerJS finds nothing to mutate in, so it records none: the kit's re-exports and its one `Effect.flatMap`. */
const unmutable = ["src/testing/index.ts", "src/testing/journal.ts"]
const mutated = [
  ...["schema", "http", "services", "serve", "client", "testing"].flatMap((dir) =>
    readdirSync(new URL(`src/${dir}/`, root)).filter((name) => name.endsWith(".ts")).map((name) => `src/${dir}/${name}`)
  ).filter((file) => !generated.includes(file) && !unmutable.includes(file)),
  "src/element/view.ts",
  "src/element/words.ts"
]

describe("stryker-incremental.json", () => {
  it("holds exactly the mutated files", () => {
    expect(Object.keys(record.files).toSorted()).toStrictEqual(mutated.toSorted())
  })

  it.each(mutated)("holds %s as it is committed", (file) => {
    expect(record.files[file]?.source === readFileSync(new URL(file, root), "utf8")).toBe(true)
  })
})
