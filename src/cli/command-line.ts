// Our own reading of the command line, before @effect/cli sees it (D18). @effect/cli names the
// wrong level ("Invalid subcommand for buddy" for `buddy sign-in stat`), suggests nothing, calls a
// flag without its value an "unknown argument", accepts flags a command does not have, and builds
// in --wizard (which hangs on a closed stdin) and --log-level. Here the line is read against the
// command tree: help, version and completions are answered from it, a mistake is said at the
// level where it was made with the nearest name, and a good line is handed on to @effect/cli in
// one canonical form (the command's path, then its flags, each flag once), which it parses the
// same way whatever order the person typed.
//
// The rules, as gh's: flags may come anywhere after `buddy`, but only flags of the command that
// runs (`buddy --home DIR status` is `buddy status --home DIR`; `buddy --json serve` is refused);
// a flag given twice counts the last time; a value is the next word, or follows `=`, and a word
// that starts with "-" is a flag, not a value (`--home=-odd` gives such a value); -h/--help
// anywhere shows the help of the command named so far.
import { Array as Arr, Data, Option } from "effect"
import { nearest } from "../services/nearest.js"
import type { Flag, Node, Shell } from "./tree.js"
import { commandsOf, find, flagsBelow, helpName, isGroup, name, shellNamed, title } from "./tree.js"
import * as words from "./words.js"

export type CommandLine = Data.TaggedEnum<{
  /** Run `node` with `args` (after the executable): its path, then its flags. */
  Run: { readonly node: Node; readonly args: ReadonlyArray<string> }
  Help: { readonly node: Node }
  Version: {}
  Completions: { readonly shell: Shell }
  /** A usage error at `node`: what was wrong, in words, one line each. */
  Wrong: { readonly node: Node; readonly complaint: ReadonlyArray<string> }
}>
export const CommandLine = Data.taggedEnum<CommandLine>()

const helpFlags: ReadonlyArray<string> = ["-h", "--help"]

const withSuggestion = (line: string, typed: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const near = nearest(typed, names)
  return near.length === 0 ? [line] : [line, words.usageError.didYouMean(near)]
}

/** A flag as given: the last of each name counts. */
interface Given {
  readonly flag: Flag
  readonly value: Option.Option<string>
}

interface State {
  /** The command named so far. */
  readonly node: Node
  /** Under `buddy help`: the command asked about. */
  readonly asked: Option.Option<Node>
  readonly given: ReadonlyArray<Given>
}

type Step = { readonly _tag: "Next"; readonly state: State; readonly rest: ReadonlyArray<string> } | {
  readonly _tag: "Stop"
  readonly wrong: CommandLine
  readonly at: Node
}

const next = (state: State, rest: ReadonlyArray<string>): Step => ({ _tag: "Next", state, rest })
const stop = (at: Node, complaint: ReadonlyArray<string>): Step => ({
  _tag: "Stop",
  wrong: CommandLine.Wrong({ node: at, complaint }),
  at
})

/** A word that starts with "-" is a flag, unless it is a negative number: a value, for its flag to judge (`--count -1`). */
const isFlagWord = (word: string) => word.startsWith("-") && word.length > 1 && !/^-[0-9]/.test(word)

const readFlag = (state: State, word: string, rest: ReadonlyArray<string>): Step => {
  const { node } = state
  const equals = word.startsWith("--") ? word.indexOf("=") : -1
  const typed = equals < 0 ? word : word.slice(0, equals)
  const inline = equals < 0 ? Option.none() : Option.some(word.slice(equals + 1))
  const known = flagsBelow(node)
  const flag = Arr.findFirst(known, (each) => each.name === typed)
  if (Option.isNone(flag)) {
    const gone = words.goneFlags[`${title(node)} ${typed}`]
    if (gone !== undefined) return stop(node, [gone])
    const names = [...known.map((each) => each.name), "--help"]
    return stop(node, withSuggestion(words.usageError.unknownFlag(typed, title(node)), typed, names))
  }
  const add = (value: Option.Option<string>, left: ReadonlyArray<string>) =>
    next(
      { ...state, given: [...state.given.filter((each) => each.flag.name !== typed), { flag: flag.value, value }] },
      left
    )
  return Option.match(flag.value.value, {
    onNone: () =>
      Option.isSome(inline) ? stop(node, [words.usageError.unwantedValue(typed)]) : add(Option.none(), rest),
    onSome: (valueName) => {
      const following = Arr.head(rest).pipe(Option.filter((word) => !isFlagWord(word)))
      const value = Option.orElse(inline, () => following)
      const left = Option.isSome(inline) || Option.isNone(following) ? rest : rest.slice(1)
      if (Option.isNone(value) || value.value === "") {
        return stop(node, [words.usageError.missingValue(typed, valueName)])
      }
      return Option.match(flag.value.check(value.value), {
        onNone: () => add(value, left),
        onSome: (complaint) => stop(node, [complaint])
      })
    }
  })
}

const readWord = (state: State, word: string, rest: ReadonlyArray<string>): Step => {
  const { node } = state
  if (Option.isSome(state.asked)) {
    const asked = state.asked.value
    return Option.match(find(asked, [word]), {
      onNone: () =>
        stop(node, withSuggestion(words.usageError.unknownCommand(word, title(asked)), word, asked.children.map(name))),
      onSome: (child) => next({ ...state, asked: Option.some(child) }, rest)
    })
  }
  if (!isGroup(node)) return stop(node, [words.usageError.unexpectedArgument(word, title(node))])
  return Option.match(find(node, [word]), {
    onNone: () =>
      stop(node, withSuggestion(words.usageError.unknownCommand(word, title(node)), word, node.children.map(name))),
    // An alias is read as the words it stands for (`buddy login --json` is `buddy sign-in start --json`).
    onSome: (child) =>
      child.stands !== undefined ? next(state, [...child.stands, ...rest]) : next(
        node.path.length === 1 && word === helpName ? { ...state, node: child, asked: Option.some(node) } : {
          ...state,
          node: child
        },
        rest
      )
  })
}

const read = (state: State, args: ReadonlyArray<string>): Step =>
  Arr.matchLeft(args, {
    onEmpty: () => next(state, []),
    onNonEmpty: (word, rest) => {
      const step = helpFlags.includes(word)
        ? next(state, rest)
        : isFlagWord(word)
        ? readFlag(state, word, rest)
        : readWord(state, word, rest)
      return step._tag === "Next" && step.rest.length > 0 ? read(step.state, step.rest) : step
    }
  })

const lastValue = (given: ReadonlyArray<Given>, flag: string): Option.Option<string> =>
  Option.flatMap(Arr.findLast(given, (each) => each.flag.name === flag), (each) => each.value)

/** What a whole command line (without node and the script) asks for. */
export const parse = (root: Node, args: ReadonlyArray<string>): CommandLine => {
  const step = read({ node: root, asked: Option.none(), given: [] }, args)
  const help = args.some((word) => helpFlags.includes(word))
  if (step._tag === "Stop") return help ? CommandLine.Help({ node: step.at }) : step.wrong
  const { asked, given, node } = step.state
  if (help || Option.isSome(asked)) return CommandLine.Help({ node: help ? node : Option.getOrElse(asked, () => node) })
  const foreign = given.find((each) => !node.flags.some((flag) => flag.name === each.flag.name))
  if (isGroup(node)) {
    if (given.length === 0) return CommandLine.Help({ node })
    if (foreign !== undefined) {
      return CommandLine.Wrong({
        node,
        complaint: [words.usageError.missingCommand(title(node), commandsOf(node).map(name))]
      })
    }
    // The root's own flags: a shell was checked when it was read.
    return Option.match(Option.flatMap(lastValue(given, "--completions"), shellNamed), {
      onSome: (shell) => CommandLine.Completions({ shell }),
      onNone: () => CommandLine.Version()
    })
  }
  if (foreign !== undefined) {
    const typed = foreign.flag.name
    const names = [...node.flags.map((flag) => flag.name), "--help"]
    return CommandLine.Wrong({
      node,
      complaint: withSuggestion(words.usageError.unknownFlag(typed, title(node)), typed, names)
    })
  }
  return CommandLine.Run({
    node,
    args: [
      ...node.path.slice(1),
      ...given.flatMap(({ flag, value }) =>
        Option.match(value, { onNone: () => [flag.name], onSome: (v) => [flag.name, v] })
      )
    ]
  })
}
