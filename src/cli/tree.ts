// The `buddy` command tree as a person meets it: each command's path, description and flags, and
// the flags @effect/cli builds in replaced by ours (D18). Help, usage errors and the completion
// scripts are all made from this one value, and it is read from the @effect/cli commands
// themselves through their public descriptors (names, Usage, HelpDoc), so a command or flag added
// there appears here without a second list to keep in step. Only the flags' descriptions come
// from the words table: @effect/cli merges them with its own sentences in a way that cannot be
// taken apart again.
import * as CliConfig from "@effect/cli/CliConfig"
import type * as Command from "@effect/cli/Command"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import type * as Usage from "@effect/cli/Usage"
import { Array as Arr, HashMap, HashSet, Option } from "effect"
import * as words from "./words.js"

export interface Flag {
  /** As typed: `--home`. */
  readonly name: string
  /** What its value is called (`DIR`), for a flag that takes one. */
  readonly value: Option.Option<string>
  readonly description: string
  /** Whether the value given is usable, or why not in words (usage, exit 2). */
  readonly check: (value: string) => Option.Option<string>
}

export interface Node {
  /** From the root: `["buddy", "sign-in", "start"]`. */
  readonly path: ReadonlyArray<string>
  readonly description: string
  /** Besides -h/--help, which every command takes. */
  readonly flags: ReadonlyArray<Flag>
  /** A command with children is a group: it runs nothing itself. */
  readonly children: ReadonlyArray<Node>
  /** An alias: the words it stands for, read in its place (`login` is `sign-in start`). */
  readonly stands?: ReadonlyArray<string>
}

export type Shell = "bash" | "zsh" | "fish"
export const shells: ReadonlyArray<Shell> = ["bash", "zsh", "fish"]

export const name = (node: Node): string => node.path.at(-1) ?? ""
export const title = (node: Node): string => node.path.join(" ")
export const isGroup = (node: Node): boolean => node.children.length > 0

/** A node's own commands, without the aliases that stand for some of them. */
export const commandsOf = (node: Node): ReadonlyArray<Node> =>
  node.children.filter((child) => child.stands === undefined)

/** A node's aliases. */
export const aliasesIn = (node: Node): ReadonlyArray<Node> =>
  node.children.filter((child) => child.stands !== undefined)

const anyValue = (_value: string): Option.Option<string> => Option.none()

const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
  }
}

const blocks = (doc: HelpDoc.HelpDoc): ReadonlyArray<HelpDoc.HelpDoc> =>
  doc._tag === "Sequence" ? [...blocks(doc.left), ...blocks(doc.right)] : doc._tag === "Empty" ? [] : [doc]

const isHeader = (doc: HelpDoc.HelpDoc, text: string) => doc._tag === "Header" && spanText(doc.value) === text

/** The blocks after a header of the command's own help, up to the next header. */
const section = (descriptor: Descriptor.Command<unknown>, header: string): ReadonlyArray<HelpDoc.HelpDoc> => {
  const all = blocks(Descriptor.getHelp(descriptor, CliConfig.make({ showBuiltIns: false })))
  const start = all.findIndex((doc) => isHeader(doc, header))
  if (start < 0) return []
  const rest = all.slice(start + 1)
  const end = rest.findIndex((doc) => doc._tag === "Header")
  return end < 0 ? rest : rest.slice(0, end)
}

const descriptionOf = (descriptor: Descriptor.Command<unknown>): string =>
  section(descriptor, "DESCRIPTION").flatMap((doc) => (doc._tag === "Paragraph" ? [spanText(doc.value)] : []))
    .join(" ")

/** The named parts of a usage, in order: the command's own name first, then its flags. */
const named = (usage: Usage.Usage): ReadonlyArray<Usage.Named> => {
  switch (usage._tag) {
    case "Named":
      return [usage]
    case "Optional":
    case "Repeated":
      return named(usage.usage)
    case "Alternation":
    case "Concat":
      return [...named(usage.left), ...named(usage.right)]
    case "Empty":
    case "Mixed":
      return []
  }
}

export interface TreeOptions {
  /** Checks for flag values by flag name, beyond "present and not empty". */
  readonly checks?: Readonly<Record<string, (value: string) => Option.Option<string>>>
}

const flagsOf = (
  descriptor: Descriptor.Command<unknown>,
  path: ReadonlyArray<string>,
  options: TreeOptions
): ReadonlyArray<Flag> =>
  named(Descriptor.getUsage(descriptor)).flatMap(({ acceptedValues, names }) =>
    names.filter((flag) => flag.startsWith("-")).map((flag) => ({
      name: flag,
      value: acceptedValues,
      description: words.flagHelp(path.join(" "), flag),
      check: options.checks?.[flag] ?? anyValue
    }))
  )

/**
 * A group's children, in the order its own help lists them. getSubcommands answers one level:
 * asked of the root it gives `sign-in` without `start`. So the first level comes from the
 * commands themselves (`commandTree`'s `subcommands`) and the second from here, which is as deep
 * as buddy goes (`sign-in start`); a group inside `sign-in` would show as a command of its own.
 */
const childrenOf = (descriptor: Descriptor.Command<unknown>): ReadonlyArray<Descriptor.Command<unknown>> => {
  const byName = Descriptor.getSubcommands(descriptor)
  // A command without subcommands answers itself (a group of one named as itself would be missed).
  if (HashMap.size(byName) === 1 && HashSet.some(Descriptor.getNames(descriptor), (own) => HashMap.has(byName, own))) {
    return []
  }
  const listed = section(descriptor, "COMMANDS").flatMap((doc) =>
    doc._tag === "DescriptionList" ? doc.definitions.map(([usage]) => spanText(usage).split(" ")[0] ?? "") : []
  )
  const order = (child: string) => (listed.includes(child) ? listed.indexOf(child) : listed.length)
  return Array.from(HashMap.keys(byName))
    .sort((a, b) => order(a) - order(b) || a.localeCompare(b))
    .flatMap((child) => Option.toArray(HashMap.get(byName, child)))
}

const nodeOf = (descriptor: Descriptor.Command<unknown>, parent: ReadonlyArray<string>, options: TreeOptions): Node => {
  const path = [...parent, ...Arr.take(HashSet.toValues(Descriptor.getNames(descriptor)), 1)]
  return {
    path,
    description: descriptionOf(descriptor),
    flags: flagsOf(descriptor, path, options),
    children: childrenOf(descriptor).map((child) => nodeOf(child, path, options))
  }
}

export const shellNamed = (value: string): Option.Option<Shell> => Arr.findFirst(shells, (shell) => shell === value)

const shellCheck = (value: string): Option.Option<string> =>
  Option.isSome(shellNamed(value)) ? Option.none() : Option.some(words.notAShell(value))

/** Flags of the root that @effect/cli would otherwise build in, with its `--wizard` and `--log-level` left out. */
const rootFlags: ReadonlyArray<Flag> = [
  { name: "--version", value: Option.none(), description: words.helpWords.version, check: anyValue },
  { name: "--completions", value: Option.some("SHELL"), description: words.helpWords.completions, check: shellCheck }
]

/** What the tree reads of an @effect/cli `Command`. */
export type Described = Pick<Command.Command<string, unknown, unknown, unknown>, "descriptor">

/** `buddy help [command]`: a command of ours, not of @effect/cli's. */
export const helpName = "help"

export const isHelpCommand = (node: Node): boolean => node.path.length === 2 && name(node) === helpName

/**
 * The names a gh or tailscale user types, each standing for buddy's own words (issue 18.4): shown
 * in help and completed as commands, read as what they stand for.
 */
const aliasesOf = (path: ReadonlyArray<string>, children: ReadonlyArray<Node>): ReadonlyArray<Node> => {
  const flagsAt = (target: ReadonlyArray<string>) =>
    Option.match(find({ path, description: "", flags: [], children }, target), {
      onNone: () => [],
      onSome: (node) => node.flags
    })
  return [
    { name: "login", stands: ["sign-in", "start"] },
    { name: "logout", stands: ["sign-out"] },
    { name: "version", stands: ["--version"] },
    { name: "completion", stands: ["--completions"] }
  ].map(({ name: alias, stands }) => ({
    path: [...path, alias],
    description: words.helpWords.alias(stands),
    flags: flagsAt(stands),
    children: [],
    stands
  }))
}

/** The tree under `root`, whose subcommands are `subcommands` in the order given, plus `help` and the aliases. */
export const commandTree = (
  root: Described,
  subcommands: ReadonlyArray<Described>,
  options: TreeOptions = {}
): Node => {
  const path = [...Arr.take(HashSet.toValues(Descriptor.getNames(root.descriptor)), 1)]
  const commands = subcommands.map((command) => nodeOf(command.descriptor, path, options))
  return {
    path,
    description: descriptionOf(root.descriptor),
    flags: [...flagsOf(root.descriptor, path, options), ...rootFlags],
    children: [
      ...commands,
      { path: [...path, helpName], description: words.helpWords.command, flags: [], children: [] },
      ...aliasesOf(path, commands)
    ]
  }
}

/** The node at `path` below `node` (names after its own), if there is one. */
export const find = (node: Node, path: ReadonlyArray<string>): Option.Option<Node> =>
  Arr.matchLeft(path, {
    onEmpty: () => Option.some(node),
    onNonEmpty: (head, tail) =>
      Option.flatMap(Arr.findFirst(node.children, (child) => name(child) === head), (child) => find(child, tail))
  })

/** Every node, depth first, the root first. */
export const nodes = (node: Node): ReadonlyArray<Node> => [node, ...node.children.flatMap(nodes)]

/** The flags of a node and of every node below it, one per name. */
export const flagsBelow = (node: Node): ReadonlyArray<Flag> =>
  Arr.dedupeWith(nodes(node).flatMap((each) => each.flags), (a, b) => a.name === b.name)
