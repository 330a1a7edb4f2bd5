// `buddy --completions bash|zsh|fish`, run in the shells themselves (D18). The script @effect/cli
// made for bash matched `buddy,sign__in` while the word typed is `sign-in`, so `buddy sign-in <TAB>`
// offered the top-level commands and never `start`. Each shell is asked what it completes at each
// level: bash by calling the function `complete -p buddy` names with COMP_WORDS and COMP_CWORD set;
// zsh by calling `_buddy` with `words` and CURRENT set and compadd/_files standing in (compadd only
// works inside the line editor), plus once for real on a pseudo-terminal and once registered by
// compinit both ways; fish by `complete -C`. zsh and fish are skipped, saying so, where absent
// (.ci/run installs them).
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { requires } from "../support/required.js"
import { buddy } from "./support/buddy-process.js"

type Shell = "bash" | "zsh" | "fish"

const installed = (shell: Shell) => spawnSync("sh", ["-c", `command -v ${shell}`]).status === 0
const hasZsh = requires(installed("zsh"), "zsh", "apt-get install zsh")
const hasFish = requires(installed("fish"), "fish", "apt-get install fish")

let dir = ""
const scripts: Record<Shell, string> = { bash: "", zsh: "", fish: "" }
const file = (shell: Shell) => path.join(dir, `buddy.${shell}`)

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-completions-"))
  await fs.mkdir(path.join(dir, "tree", "alpha"), { recursive: true })
  await fs.mkdir(path.join(dir, "tree", "beta"))
  await fs.writeFile(path.join(dir, "tree", "config.json"), "{}")
  for (const shell of ["bash", "zsh", "fish"] as const) {
    const ran = await buddy(["--completions", shell])
    expect({ code: ran.code, stderr: ran.rawStderr }).toStrictEqual({ code: 0, stderr: "" })
    scripts[shell] = ran.rawStdout
    await fs.writeFile(file(shell), ran.rawStdout)
  }
})

afterAll(async () => {
  if (dir !== "") await fs.rm(dir, { recursive: true, force: true })
})

const aliases = ["login", "logout", "version", "completion"]
const top = ["status", "sign-in", "sign-out", "serve", "check", "help", ...aliases]
const common = ["--json", "--home", "--help"]
const serve = ["--config", "--socket", "--home", "--print-unit", "--account", "--help"]

/** The words before the cursor, the word at it, and what every shell completes there. */
const levels: Array<[ReadonlyArray<string>, string, ReadonlyArray<string>]> = [
  [["buddy"], "", top],
  [["buddy"], "s", ["status", "sign-in", "sign-out", "serve"]],
  [["buddy"], "--", ["--version", "--completions", "--help"]],
  [["buddy", "sign-in"], "", ["start"]],
  [["buddy", "sign-in"], "st", ["start"]],
  [["buddy", "sign-in", "start"], "--", common],
  [["buddy", "status"], "--", common],
  [["buddy", "sign-out"], "--", common],
  [["buddy", "serve"], "--", serve],
  [["buddy", "serve"], "--c", ["--config"]],
  [["buddy", "--home", "/tmp", "sign-in"], "", ["start"]],
  [["buddy", "--json", "sign-in", "start", "--home", "/tmp"], "--j", ["--json"]],
  [["buddy", "help"], "", ["status", "sign-in", "sign-out", "serve", "check", ...aliases]],
  [["buddy"], "lo", ["login", "logout"]],
  [["buddy", "login"], "--", common],
  [["buddy", "help", "sign-in"], "", ["start"]],
  [["buddy", "--completions"], "", ["bash", "zsh", "fish"]],
  [["buddy", "serve", "--print-unit"], "", ["user", "system", "socket"]],
  [["buddy", "serve", "--print-unit"], "s", ["system", "socket"]]
]

/** bash: the function `complete -p buddy` names, called as readline would. */
const bashCompletes = (before: ReadonlyArray<string>, current: string): ReadonlyArray<string> => {
  const runner = [
    "source \"$1\"; shift",
    "spec=$(complete -p buddy) || exit 3",
    "fn=${spec##*-F }; fn=${fn%% *}",
    "COMP_WORDS=(\"$@\"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))",
    "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}",
    "\"$fn\" buddy \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"",
    "(( ${#COMPREPLY[@]} )) && printf '%s\\n' \"${COMPREPLY[@]}\"",
    "exit 0"
  ].join("\n")
  const out = execFileSync("bash", ["--norc", "-c", runner, "bash", file("bash"), ...before, current], {
    encoding: "utf8"
  })
  return out.split("\n").filter((line) => line !== "")
}

/** zsh: `_buddy` as the completion system calls it, with compadd and _files printing what they are given. */
const zshCompletes = (before: ReadonlyArray<string>, current: string): ReadonlyArray<string> => {
  const runner = [
    // As compadd does, keep the candidates that start with the word at the cursor.
    "compadd() {",
    "  while (( $# )) && [[ $1 != -- ]]; do shift; done; shift",
    "  local each; for each in \"$@\"; do [[ $each == \"${words[CURRENT]}\"* ]] && print -r -- $each; done; :",
    "}",
    "_files() { print -r -- \"(files${1:+ $1})\" }",
    "compset() { : }",
    "compdef() { : }",
    "source $1; shift",
    "words=(\"$@\"); CURRENT=$#words",
    "_buddy; :"
  ].join("\n")
  const out = execFileSync("zsh", ["-f", "-c", runner, "zsh", file("zsh"), ...before, current], { encoding: "utf8" })
  return out.split("\n").filter((line) => line !== "")
}

/** fish: what `complete -C` lists for the line, names only. */
const fishCompletes = (before: ReadonlyArray<string>, current: string): ReadonlyArray<string> => {
  const line = [...before, current].join(" ")
  const out = execFileSync("fish", ["--no-config", "-c", "source $argv[1]; complete -C$argv[2]", file("fish"), line], {
    encoding: "utf8"
  })
  return out.split("\n").filter((each) => each !== "").map((each) => each.split("\t")[0] ?? "")
}

describe("bash completion", () => {
  it("offers start after `buddy sign-in`, not the top-level commands (@effect/cli matched `sign__in`)", () => {
    expect(scripts.bash).not.toContain("sign__in")
    expect(bashCompletes(["buddy", "sign-in"], "")).toStrictEqual(["start"])
    expect(execFileSync("bash", ["--norc", "-c", "source \"$1\"; complete -p buddy", "bash", file("bash")], {
      encoding: "utf8"
    })).toBe("complete -F _buddy buddy\n")
  })

  for (const [before, current, expected] of levels) {
    it(`completes "${[...before, current].join(" ")}" with ${expected.join(" ") || "nothing"}`, () => {
      expect(bashCompletes(before, current)).toStrictEqual(expected)
    })
  }

  it("offers a command's flags at an empty word once its command is named", () => {
    expect(bashCompletes(["buddy", "sign-out"], "")).toStrictEqual(common)
    expect(bashCompletes(["buddy", "serve"], "")).toStrictEqual(serve)
  })

  it("completes directories for --home and files for --config, also after `=`", () => {
    const tree = `${path.join(dir, "tree")}/`
    const dirs = [`${tree}alpha`, `${tree}beta`]
    expect([...bashCompletes(["buddy", "serve", "--home"], tree)].sort()).toStrictEqual(dirs)
    expect([...bashCompletes(["buddy", "status", "--home", "="], tree)].sort()).toStrictEqual(dirs)
    expect([...bashCompletes(["buddy", "serve", "--config"], tree)].sort()).toStrictEqual([
      `${tree}alpha`,
      `${tree}beta`,
      `${tree}config.json`
    ])
    expect([...bashCompletes(["buddy", "serve", "--socket"], tree)].sort()).toStrictEqual([
      `${tree}alpha`,
      `${tree}beta`,
      `${tree}config.json`
    ])
  })
})

describe.skipIf(!hasZsh)("zsh completion", () => {
  for (const [before, current, expected] of levels) {
    it(`completes "${[...before, current].join(" ")}" with ${expected.join(" ") || "nothing"}`, () => {
      expect(zshCompletes(before, current)).toStrictEqual(expected)
    })
  }

  it("offers a command's flags at an empty word, directories for --home and files for --config", () => {
    expect(zshCompletes(["buddy", "sign-out"], "")).toStrictEqual(common)
    expect(zshCompletes(["buddy", "serve", "--home"], "")).toStrictEqual(["(files -/)"])
    expect(zshCompletes(["buddy", "serve"], "--home=/t")).toStrictEqual(["(files -/)"])
    expect(zshCompletes(["buddy", "serve", "--config"], "")).toStrictEqual(["(files)"])
    expect(zshCompletes(["buddy", "serve", "--socket"], "")).toStrictEqual(["(files)"])
  })

  it("is registered for buddy by compinit, sourced or autoloaded from $fpath", async () => {
    const fpath = path.join(dir, "fpath")
    await fs.mkdir(fpath, { recursive: true })
    await fs.copyFile(file("zsh"), path.join(fpath, "_buddy"))
    const sourced = "autoload -U compinit; compinit -u -D; source $1; print -r -- ${_comps[buddy]}"
    const autoloaded = "fpath=($2 $fpath); autoload -U compinit; compinit -u -D; print -r -- ${_comps[buddy]}"
    for (const runner of [sourced, autoloaded]) {
      expect(execFileSync("zsh", ["-f", "-c", runner, "zsh", file("zsh"), fpath], { encoding: "utf8" })).toBe(
        "_buddy\n"
      )
    }
  })

  it("completes `buddy sign-in <TAB>` to `buddy sign-in start` in an interactive zsh", () => {
    // zsh's own pty module types the line into an interactive shell; `zpty -r -m` waits for the text.
    const runner = [
      "zmodload zsh/zpty",
      "zpty z 'zsh -f -i'",
      "zpty -w z \"PS1='> '; autoload -U compinit; compinit -u -D; source $1; print RE''ADY\"",
      "zpty -r -m z out '*READY*' || exit 3",
      "zpty -w -n z $'buddy sign-in \\t'",
      "zpty -r -m z out '*buddy sign-in start*' && print completed",
      "zpty -d z"
    ].join("\n")
    const out = execFileSync("zsh", ["-f", "-c", runner, "zsh", file("zsh")], { encoding: "utf8", timeout: 20_000 })
    expect(out).toBe("completed\n")
  })
})

describe.skipIf(!hasFish)("fish completion", () => {
  for (const [before, current, expected] of levels) {
    it(`completes "${[...before, current].join(" ")}" with ${expected.join(" ") || "nothing"}`, () => {
      expect([...fishCompletes(before, current)].sort()).toStrictEqual([...expected].sort())
    })
  }

  it("describes each command, and completes directories for --home and files for --config", () => {
    const out = execFileSync("fish", [
      "--no-config",
      "-c",
      "source $argv[1]; complete -C'buddy sign-in '",
      file("fish")
    ], {
      encoding: "utf8"
    })
    expect(out).toBe("start\tStart a sign-in and hold it here until it ends; Ctrl-C cancels it.\n")
    const tree = `${path.join(dir, "tree")}/`
    expect([...fishCompletes(["buddy", "serve", "--home"], tree)].sort()).toStrictEqual([
      `${tree}alpha/`,
      `${tree}beta/`
    ])
    expect([...fishCompletes(["buddy", "serve", "--config"], tree)].sort()).toStrictEqual([
      `${tree}alpha/`,
      `${tree}beta/`,
      `${tree}config.json`
    ])
  })
})
