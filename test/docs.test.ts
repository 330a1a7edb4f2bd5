// The documentation a Launchpad developer works from lives in the repository (issue 11 item 7):
// docs/http-api.md names every route, every refusal and every closed reason the app can answer,
// and nothing a newcomer reads points outside the repository for the contract.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { BlockedReason, GatewayReason, SignInState } from "../src/schema/reasons.js"
import { PlainError } from "../src/schema/routes.js"
import { testedSnippets } from "./deploy/support/deploy.js"
import { danglingPointers, definedIds, isShippedText, passages } from "./support/shipped-docs.js"

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), "utf8")

describe("docs/http-api.md", () => {
  const doc = read("docs/http-api.md")

  it("names every route of the app with its method", () => {
    for (
      const route of [
        "GET /api/buddy`",
        "POST /api/buddy/sign-in/start",
        "POST /api/buddy/sign-in/poll",
        "POST /api/buddy/sign-in/cancel",
        "POST /api/buddy/sign-out",
        "GET /api/buddy/openapi.json"
      ]
    ) expect(doc).toContain(route)
  })

  it("names every closed reason, refusal and sign-in state a page can meet", () => {
    for (const reason of GatewayReason.literals) expect(doc).toContain(`\`${reason}\``)
    for (const reason of BlockedReason.literals) expect(doc).toContain(`\`${reason}\``)
    for (const error of PlainError.literals) expect(doc).toContain(error)
    for (const state of SignInState.literals) expect(doc).toContain(`\`${state}\``)
  })

  it("says which headers a POST needs and how often to poll", () => {
    expect(doc).toContain("`Sec-Fetch-Site: same-origin`")
    expect(doc).toContain("`launchpadOrigin`")
    expect(doc).toContain("every **5 seconds**")
  })
})

// Issue 38 item 6 (D55): the package is read without the repository beside it.
describe("what the package ships", () => {
  const manifest = JSON.parse(read("package.json")) as { readonly files: ReadonlyArray<string> }
  // What npm pack would ship now; dist/ is what prepack builds, so a clone that has not packed yet
  // has it by the "files" entries that name it.
  const packed = (JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: fileURLToPath(new URL("../", import.meta.url)),
      encoding: "utf8",
      env: { ...process.env, npm_config_update_notifier: "false" }
    })
  ) as [{ readonly files: ReadonlyArray<{ readonly path: string }> }])[0].files.map(({ path }) => path)
  const built = (file: string) =>
    manifest.files.some((entry) =>
      entry.startsWith("dist/") && (entry.endsWith("/") ? file.startsWith(entry) : file === entry)
    )

  it("ships the guides a package reader uses, and keeps the repository's records in the repository", () => {
    expect(packed.filter((file) => file.endsWith(".md")).toSorted()).toStrictEqual([
      "CHANGELOG.md",
      "README.md",
      "docs/element.md",
      "docs/http-api.md",
      "docs/operator-guide.md",
      "docs/testing.md"
    ])
    expect(packed.filter((file) => /^(?:src|test|fixtures|scripts|bench)\//.test(file))).toStrictEqual([])
    // The texts the scan reads: the README, the guides, the examples, the units and the executables.
    expect(packed.filter(isShippedText).length).toBeGreaterThanOrEqual(15)
    expect(packed.filter(isShippedText)).toEqual(
      expect.arrayContaining([
        "README.md",
        "CHANGELOG.md",
        "bin/buddy.js",
        "examples/mount-web.ts",
        "systemd/buddy.service"
      ])
    )
  })

  it("points, in every shipped text, only to files it ships and to ids a shipped document defines", () => {
    expect(danglingPointers(packed, read, built).map(({ file, pointer }) => `${file}: ${pointer}`)).toStrictEqual([])
  })

  it("says, in buddy's and the simulator's help, nothing the package lacks", () => {
    const help =
      ["--help", "status --help", "sign-in --help", "sign-out --help", "serve --help", "check --help"].map((words) =>
        execFileSync(process.execPath, ["bin/buddy.js", ...words.split(" ")], {
          cwd: fileURLToPath(new URL("../", import.meta.url)),
          encoding: "utf8"
        })
      ).join("\n\n") + execFileSync(process.execPath, ["bin/buddy-simulator.js", "--help"], {
        cwd: fileURLToPath(new URL("../", import.meta.url)),
        encoding: "utf8"
      })
    expect(help).toContain("buddy serve")
    const file = "help.md"
    expect(
      danglingPointers([...packed, file], (name) => name === file ? help : read(name), built).map(({ pointer }) =>
        pointer
      )
    ).toStrictEqual([])
  })

  it("defines every contract id C1–C10 in docs/http-api.md", () => {
    expect([...definedIds([read("docs/http-api.md")])].toSorted()).toStrictEqual(
      Array.from({ length: 10 }, (_, index) => `C${index + 1}`).toSorted()
    )
  })

  it("opens the README with the clone's two commands, labelled, then what a package reader runs", () => {
    const [label, clone, from, install] = passages(read("README.md")).slice(1, 5).map(({ text }) => text)
    expect(label).toMatch(/^From a clone of the repository \(.*the package does not ship\):$/)
    expect(clone?.split("\n").slice(1, 3).map((line) => line.replace(/\s+#.*$/, ""))).toStrictEqual([
      "npm run demo",
      "npm test"
    ])
    expect(from).toMatch(/^From the package \(`@lazurio\/buddy`/)
    expect(install).toMatch(/^```sh\n# a Launchpad: .*\nnpm install @lazurio\/buddy /)
  })

  it("marks every clone-only command in the README as the repository's", () => {
    const clone = /\bnpm (?:run|test|ci|publish)\b|\bnpx vitest\b/
    const all = passages(read("README.md"))
    const unmarked = all.filter(({ marked, text }, index) =>
      clone.test(text) && !marked && !(all[index - 1]?.marked === true && all[index - 1]?.text.endsWith(":"))
    )
    expect(unmarked.map(({ text }) => text)).toStrictEqual([])
    // (the case under test: the README names many, most in its sections for a clone)
    expect(all.filter(({ text }) => clone.test(text)).length).toBeGreaterThan(15)
  })
})

describe("the scan of shipped texts", () => {
  const texts: Record<string, string> = {
    "README.md": "# pkg\n\nSee src/index.ts, [the guide](docs/guide.md) and docs/gone.md.\n\n" +
      "As C1 says, and D7.2, not C11.\n\nIn the repository, not in the package: test/x.test.ts, D9.\n\n" +
      "| row | scripts/build.js |\n| row | in the repository: bench/run.ts |\n\n" +
      "## The repository's layout\n\nsrc/ test/\n\n## Next\n\nfixtures/a.ts\n",
    "docs/guide.md": "# Guide\n\n- **C1** the first.\n\n## D7 a decision\n\n" +
      "[up](../README.md), [out](../../shared/contract.md), [image](element/a.png), " +
      "[web](https://example.com/src/x.ts), examples/, dist/lib/index.js, dist/none.js\n",
    "docs/element/a.png": "",
    "examples/one.ts": "// ../shared/design/contract.md and C1\n"
  }
  const found = danglingPointers(
    Object.keys(texts),
    (file) => texts[file] ?? "",
    (file) => file === "dist/lib/index.js"
  )

  it("reports each path, link and id that leads outside, with its file", () => {
    expect(found.map(({ file, pointer }) => `${file}: ${pointer}`)).toStrictEqual([
      "README.md: src/index.ts",
      "README.md: docs/gone.md",
      "README.md: C11",
      "README.md: scripts/build.js",
      "README.md: fixtures/a.ts",
      "docs/guide.md: ../../shared/contract.md",
      "docs/guide.md: dist/none.js",
      "examples/one.ts: ../shared/design/contract.md"
    ])
  })

  it("names the paragraph it found each in", () => {
    expect(found[2]?.paragraph).toBe("As C1 says, and D7.2, not C11.")
  })

  it("marks a section by its heading until the next heading", () => {
    const marks = passages("# a\n\nx\n\n## In the repository\n\ny\n\n## b\n\nz\n\na clone of the repository\n")
    expect(marks.map(({ marked }) => marked)).toStrictEqual([false, false, true, true, false, false, true])
  })
})

describe("what a newcomer reads", () => {
  it("points at the API document, not at a contract outside the repository", () => {
    for (const file of ["README.md", "docs/operator-guide.md"]) {
      expect(read(file)).not.toContain("../shared")
      expect(read(file)).toContain("docs/http-api.md")
    }
  })
})

describe("docs/operator-guide.md", () => {
  const guide = read("docs/operator-guide.md")

  it("runs the proxy snippets it marks as tested: each marker names a test that reads that snippet", () => {
    const marked = testedSnippets(guide)
    // Every marker is followed by its fence (a marker the pattern misses would test nothing).
    expect(marked).toHaveLength(guide.split("<!-- tested").length - 1)
    expect(marked.map(({ language, name, test }) => [test, name, language])).toStrictEqual([
      ["test/deploy/proxies.test.ts", "group", "sh"],
      ["test/deploy/proxies.test.ts", "manual-place", "sh"],
      ["test/deploy/proxies.test.ts", "nginx", "nginx"],
      ["test/deploy/proxies.test.ts", "caddy", "caddy"]
    ])
    for (const { name, test } of marked) {
      const source = read(test)
      expect([test, source.includes(`const TEST = "${test}"`)]).toStrictEqual([test, true])
      expect([name, source.includes(`guideSnippet(TEST, "${name}")`)]).toStrictEqual([name, true])
    }
  })
})

describe("docs/security.md", () => {
  const doc = read("docs/security.md")
  const rows = doc.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| who "))

  it("has a row for each party issue 15 names", () => {
    for (
      const party of [
        "another local account",
        "another site",
        "rebinds its DNS name",
        "Buddy's own page",
        "reverse proxy",
        "root"
      ]
    ) expect(rows.some((row) => row.includes(party))).toBe(true)
  })

  it("names in every row a test file that exists, and test names that file has", () => {
    expect(rows.length).toBeGreaterThan(10)
    for (const row of rows) {
      const proof = row.split(" | ").at(-1) ?? ""
      if (proof.startsWith("none")) continue
      let file = ""
      for (const part of proof.split(";")) {
        file = /`(test\/[^`]+)`/.exec(part)?.[1] ?? file
        expect([row, existsSync(new URL(`../${file}`, import.meta.url))]).toStrictEqual([row, true])
        const text = read(file)
        for (const [, name] of part.matchAll(/"([^"]+)"/g)) {
          expect([file, text.includes(name ?? "")]).toStrictEqual([file, true])
        }
      }
    }
  })
})
