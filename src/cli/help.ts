// The help of each command and the usage line after a mistake, rendered from the command tree
// (D18) in gh's shape: the description, USAGE, COMMANDS, FLAGS, and for `buddy` itself two
// lines on where to look next; one screen, 80 columns. @effect/cli's own help printed 73 lines for
// two flags (its built-ins, "A true or false value." under each flag, the name twice) and showed
// a subcommand's usage without `buddy`. Headings are bold; the console strips that wherever
// colour is not allowed (a pipe, NO_COLOR).
import type { Node } from "./tree.js"
import { aliasesIn, commandsOf, isGroup, isHelpCommand, name, title } from "./tree.js"
import * as words from "./words.js"

const width = 80

const bold = (text: string) => `\u001b[1m${text}\u001b[22m`

/** `text` in lines of at most `width` columns, each after `indent` spaces but the first. */
const wrap = (text: string, first: number, indent: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(" ")) {
    const room = width - (lines.length === 0 ? first : indent)
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line)
      line = word
    } else {
      line = line === "" ? word : `${line} ${word}`
    }
  }
  lines.push(line)
  return lines.map((each, index) => (index === 0 ? each : " ".repeat(indent) + each))
}

/** `text` wrapped, every line after `indent` spaces. */
const indented = (text: string, indent: number): ReadonlyArray<string> =>
  wrap(text, indent, indent).map((line, index) => (index === 0 ? " ".repeat(indent) + line : line))

/** Two columns: each term, then its description wrapped under itself. */
const table = (rows: ReadonlyArray<readonly [string, string]>): ReadonlyArray<string> => {
  const column = 2 + Math.max(...rows.map(([term]) => term.length)) + 2
  return rows.flatMap(([term, description]) => {
    const head = `  ${term}`.padEnd(column)
    const [first, ...rest] = wrap(description, column, column)
    return [`${head}${first ?? ""}`.trimEnd(), ...rest]
  })
}

/** The command's usage in parts, as `buddy serve`, `[--config FILE]`, `[--socket PATH]`, `[--home DIR]`. */
const synopsisParts = (node: Node): ReadonlyArray<string> => {
  if (node.path.length === 1) return [title(node), "<command>", "[flags]"]
  if (isGroup(node)) return [title(node), "<command>"]
  if (isHelpCommand(node)) return [title(node), "[command]"]
  return [
    title(node),
    ...node.flags.map((flag) => `[${flag.name}${flag.value._tag === "Some" ? ` ${flag.value.value}` : ""}]`)
  ]
}

/** The command's usage, as `buddy serve [--config FILE] [--socket PATH] [--home DIR]`. */
export const synopsis = (node: Node): string => synopsisParts(node).join(" ")

/** The usage in help: after two spaces, broken between flags (never inside one) at 80 columns, the rest under the flags. */
const usageLines = (node: Node): ReadonlyArray<string> => {
  const [command = "", ...flags] = synopsisParts(node)
  const indent = 2 + command.length + 1
  const lines: Array<string> = [`  ${command}`]
  for (const flag of flags) {
    const last = lines.length - 1
    if (lines[last]!.length + 1 + flag.length > width && lines[last]!.trim() !== command) {
      lines.push(" ".repeat(indent) + flag)
    } else lines[last] = `${lines[last]} ${flag}`
  }
  return lines
}

/** The last line of a usage error. */
export const usageLine = (node: Node): string => words.usageError.usage(synopsis(node), title(node), isGroup(node))

const section = (heading: string, lines: ReadonlyArray<string>): ReadonlyArray<string> =>
  lines.length === 0 ? [] : ["", bold(heading), ...lines]

/** The help of `node`: its commands (a group's children, as gh lists them) and its flags. */
export const helpText = (node: Node): string => {
  const root = node.path.length === 1
  const commands = commandsOf(node).map((child) => [name(child), child.description] as const)
  const aliases = aliasesIn(node).map((alias) => ({ name: name(alias), stands: alias.stands ?? [] }))
  const flags = [
    ...node.flags.map((flag) =>
      [flag.value._tag === "Some" ? `${flag.name} ${flag.value.value}` : flag.name, flag.description] as const
    ),
    ["-h, --help", words.helpWords.helpFlag] as const
  ]
  return [
    ...wrap(node.description, 0, 0),
    ...section(words.helpWords.usage, usageLines(node)),
    ...section(words.helpWords.commands, commands.length === 0 ? [] : table(commands)),
    ...section(words.helpWords.flags, table(flags)),
    ...section(
      words.helpWords.learnMore,
      root ? [...words.helpWords.more, words.helpWords.aliases(aliases)].flatMap((line) => indented(line, 2)) : []
    )
  ].join("\n")
}
