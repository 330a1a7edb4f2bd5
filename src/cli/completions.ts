// `buddy --completions bash|zsh|fish`: completion scripts made from the command tree (D18).
// @effect/cli's bash script matched `buddy,sign__in` while the word typed is `sign-in`, so
// `buddy sign-in <TAB>` offered the top-level commands and never `start`. These scripts carry one
// table of levels, keyed by the command path typed so far, and walk the words before the cursor
// through it the way ./command-line.ts reads them: a command word moves down a level, a flag that
// takes a value skips that value, anything else stays. At the cursor: a flag's value (directories
// for DIR, files for FILE and PATH, the shells for SHELL, the units for UNIT), else the level's
// flags after "-", else its commands, else (a command that runs) its flags. Nothing here runs buddy
// on a TAB.
import type { Flag, Node, Shell } from "./tree.js"
import { flagsBelow, helpName, isGroup, isHelpCommand, name, nodes, shells, title } from "./tree.js"
import { unitKinds } from "./unit-text.js"
import * as words from "./words.js"

interface Level {
  /** The command path typed so far: "buddy sign-in". */
  readonly key: string
  readonly commands: ReadonlyArray<readonly [string, string]>
  readonly flags: ReadonlyArray<readonly [string, string]>
  /** Flags of this level or below that take a value: the walk skips their value. */
  readonly values: ReadonlyArray<string>
}

type ValueKind = "directory" | "file" | "choice" | "none"

/** The values of a flag whose value is one of a few words, by what the value is called. */
const choices: Readonly<Record<string, ReadonlyArray<string>>> = { SHELL: shells, UNIT: unitKinds }

const valueName = (flag: Flag) => (flag.value._tag === "Some" ? flag.value.value : "")

const kindOf = (flag: Flag): ValueKind => {
  switch (valueName(flag)) {
    case "DIR":
      return "directory"
    case "FILE":
    case "PATH":
      return "file"
    default:
      return choices[valueName(flag)] === undefined ? "none" : "choice"
  }
}

const helpFlag = ["--help", words.helpWords.helpFlag] as const

/** Each level of the tree, and under `buddy help` the same levels without flags. */
const levels = (root: Node): ReadonlyArray<Level> => {
  const commandsOf = (node: Node, withHelp: boolean) =>
    node.children.filter((child) => withHelp || !isHelpCommand(child)).map((child) =>
      [name(child), child.description] as const
    )
  const named = nodes(root).filter((node) => !isHelpCommand(node))
  const own = named.map((node): Level => ({
    key: title(node),
    commands: isGroup(node) ? commandsOf(node, true) : [],
    flags: [...node.flags.map((flag) => [flag.name, flag.description] as const), helpFlag],
    values: flagsBelow(node).filter((flag) => flag.value._tag === "Some").map((flag) => flag.name)
  }))
  const asked = named.map((node): Level => ({
    key: [title(root), helpName, ...node.path.slice(1)].join(" "),
    commands: commandsOf(node, false),
    flags: [helpFlag],
    values: []
  }))
  return [...own, ...asked]
}

/** Flags that take a value, one per name, with what their value is (and its words, for a choice). */
const valueFlags = (root: Node): ReadonlyArray<readonly [string, ValueKind, string]> =>
  flagsBelow(root).filter((flag) => flag.value._tag === "Some").map((flag) =>
    [flag.name, kindOf(flag), (choices[valueName(flag)] ?? []).join(" ")] as const
  )

/** A POSIX shell word holding exactly `text`. */
const sq = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/** A fish word holding exactly `text`. */
const fq = (text: string) => `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`

const names = (pairs: ReadonlyArray<readonly [string, string]>) => pairs.map(([each]) => each).join(" ")

const header = (shell: Shell, install: ReadonlyArray<string>) => [
  `# ${shell} completion for buddy, made by \`buddy --completions ${shell}\` from buddy's own command tree.`,
  ...install.map((line) => `# ${line}`)
]

const bash = (root: Node): string => {
  const valueCase = valueFlags(root).map(([flag, kind, values]) => {
    const reply = kind === "directory"
      ? `compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$2")`
      : kind === "file"
      ? `compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$2")`
      : kind === "choice"
      ? `mapfile -t COMPREPLY < <(compgen -W ${sq(values)} -- "$2")`
      : "COMPREPLY=()"
    return `    ${sq(flag)}) ${reply} ;;`
  })
  return [
    ...header("bash", [
      "Load it from ~/.bashrc with `source <(buddy --completions bash)`, or save it as",
      "~/.local/share/bash-completion/completions/buddy."
    ]),
    "_buddy_level() {",
    "  case \"$1\" in",
    ...levels(root).map((level) =>
      `    ${sq(level.key)}) _buddy_commands=${sq(names(level.commands))} _buddy_flags=${
        sq(names(level.flags))
      } _buddy_values=${sq(level.values.join(" "))} ;;`
    ),
    "    *) _buddy_commands='' _buddy_flags='' _buddy_values='' ;;",
    "  esac",
    "}",
    "_buddy_value() {",
    "  case \"$1\" in",
    ...valueCase,
    "    *) COMPREPLY=() ;;",
    "  esac",
    "}",
    "_buddy() {",
    "  local node=buddy flag='' word i cur=\"${COMP_WORDS[COMP_CWORD]}\"",
    "  local _buddy_commands _buddy_flags _buddy_values",
    "  COMPREPLY=()",
    "  for ((i = 1; i < COMP_CWORD; i++)); do",
    "    word=\"${COMP_WORDS[i]}\"",
    "    if [[ -n $flag ]]; then",
    "      # bash splits `--home=DIR` at the `=`: the value is the word after it.",
    "      [[ $word == = ]] || flag=''",
    "      continue",
    "    fi",
    "    _buddy_level \"$node\"",
    "    if [[ \" $_buddy_values \" == *\" $word \"* ]]; then",
    "      flag=$word",
    "    elif [[ $word != -* && \" $_buddy_commands \" == *\" $word \"* ]]; then",
    "      node=\"$node $word\"",
    "    fi",
    "  done",
    "  if [[ -n $flag ]]; then",
    "    [[ $cur == = ]] && cur=''",
    "    _buddy_value \"$flag\" \"$cur\"",
    "    return 0",
    "  fi",
    "  _buddy_level \"$node\"",
    "  if [[ $cur == -* || -z $_buddy_commands ]]; then",
    "    mapfile -t COMPREPLY < <(compgen -W \"$_buddy_flags\" -- \"$cur\")",
    "  else",
    "    mapfile -t COMPREPLY < <(compgen -W \"$_buddy_commands\" -- \"$cur\")",
    "  fi",
    "}",
    "complete -F _buddy buddy"
  ].join("\n")
}

const zsh = (root: Node): string => {
  const array = (pairs: ReadonlyArray<string>) => `(${pairs.map(sq).join(" ")})`
  const described = (pairs: ReadonlyArray<readonly [string, string]>) =>
    array(pairs.map(([each, description]) => `${each}  -- ${description}`))
  const valueCase = valueFlags(root).map(([flag, kind, values]) => {
    const reply = kind === "directory"
      ? "_files -/"
      : kind === "file"
      ? "_files"
      : kind === "choice"
      ? `compadd -- ${values}`
      : "return 1"
    return `    (${sq(flag)}) ${reply} ;;`
  })
  return [
    "#compdef buddy",
    ...header("zsh", [
      "Save it as _buddy in a directory on $fpath before compinit runs, or, after compinit,",
      "`source <(buddy --completions zsh)`."
    ]),
    "_buddy_level() {",
    "  case $1 in",
    ...levels(root).flatMap((level) => [
      `    (${sq(level.key)})`,
      `      _buddy_commands=${array(level.commands.map(([each]) => each))}`,
      `      _buddy_commands_described=${described(level.commands)}`,
      `      _buddy_flags=${array(level.flags.map(([each]) => each))}`,
      `      _buddy_flags_described=${described(level.flags)}`,
      `      _buddy_values=${array(level.values)} ;;`
    ]),
    "    (*) _buddy_commands=() _buddy_commands_described=() _buddy_flags=() _buddy_flags_described=()",
    "      _buddy_values=() ;;",
    "  esac",
    "}",
    "_buddy_value() {",
    "  case $1 in",
    ...valueCase,
    "    (*) return 1 ;;",
    "  esac",
    "}",
    "_buddy() {",
    "  local node=buddy flag= word i cur=${words[CURRENT]}",
    "  local -a _buddy_commands _buddy_commands_described _buddy_flags _buddy_flags_described _buddy_values",
    "  for (( i = 2; i < CURRENT; i++ )); do",
    "    word=${words[i]}",
    "    if [[ -n $flag ]]; then",
    "      flag=",
    "      continue",
    "    fi",
    "    _buddy_level $node",
    "    if (( ${_buddy_values[(Ie)$word]} )); then",
    "      flag=$word",
    "    elif [[ $word != -* ]] && (( ${_buddy_commands[(Ie)$word]} )); then",
    "      node=\"$node $word\"",
    "    fi",
    "  done",
    "  if [[ -n $flag ]]; then",
    "    _buddy_value $flag",
    "    return",
    "  fi",
    "  if [[ $cur == --*=* ]]; then",
    "    flag=${cur%%=*}",
    "    compset -P '*='",
    "    _buddy_value $flag",
    "    return",
    "  fi",
    "  _buddy_level $node",
    "  if [[ $cur == -* || ${#_buddy_commands} -eq 0 ]]; then",
    "    compadd -l -d _buddy_flags_described -- \"${_buddy_flags[@]}\"",
    "  else",
    "    compadd -l -d _buddy_commands_described -- \"${_buddy_commands[@]}\"",
    "  fi",
    "}",
    "# Autoloaded from $fpath, this file is _buddy's body: complete now. Sourced: register it.",
    "if [[ $funcstack[1] == _buddy ]]; then",
    "  _buddy \"$@\"",
    "else",
    "  compdef _buddy buddy",
    "fi"
  ].join("\n")
}

const fish = (root: Node): string => {
  const at = (key: string) => `-n ${fq(`test "$(__buddy_level)" = ${fq(key)}`)}`
  const levelCase = levels(root).flatMap((level) => [
    `            case ${fq(level.key)}`,
    `                set commands ${level.commands.map(([each]) => fq(each)).join(" ")}`,
    `                set values ${level.values.map(fq).join(" ")}`
  ])
  const kinds = new Map(valueFlags(root).map(([flag, kind, values]) => [flag, { kind, values }] as const))
  const lines = levels(root).flatMap((level) => [
    ...level.commands.map(([command, description]) =>
      `complete -c buddy ${at(level.key)} -a ${fq(command)} -d ${fq(description)}`
    ),
    ...level.flags.map(([flag, description]) => {
      const taken = kinds.get(flag)
      const value = taken === undefined
        ? ""
        : taken.kind === "directory"
        ? " -x -a '(__fish_complete_directories (commandline -ct))'"
        : taken.kind === "file"
        ? " -r -F"
        : taken.kind === "choice"
        ? ` -x -a ${fq(taken.values)}`
        : " -x"
      const short = flag === "--help" ? " -s h" : ""
      return `complete -c buddy ${at(level.key)}${short} -l ${fq(flag.slice(2))}${value} -d ${fq(description)}`
    })
  ])
  return [
    ...header("fish", [
      "Save it as ~/.config/fish/completions/buddy.fish, or load it with `buddy --completions fish | source`."
    ]),
    "# The command path typed so far, walking the words before the cursor.",
    "function __buddy_level",
    "    set -l node buddy",
    "    set -l flag",
    "    set -l words (commandline -opc)",
    "    set -e words[1]",
    "    for word in $words",
    "        if set -q flag[1]",
    "            set -e flag",
    "            continue",
    "        end",
    "        set -l commands",
    "        set -l values",
    "        switch $node",
    ...levelCase,
    "        end",
    "        if contains -- $word $values",
    "            set flag $word",
    "        else if not string match -q -- '-*' $word; and contains -- $word $commands",
    "            set node \"$node $word\"",
    "        end",
    "    end",
    "    echo $node",
    "end",
    "complete -c buddy -e",
    "complete -c buddy -f",
    ...lines
  ].join("\n")
}

/** The completion script for `shell`. */
export const completionScript = (root: Node, shell: Shell): string =>
  shell === "bash" ? bash(root) : shell === "zsh" ? zsh(root) : fish(root)
