// `buddy serve --print-unit user|system|socket` (issue 39): the unit for this buddy, on stdout, so
// that ExecStart= names where it is installed rather than where a shipped copy guessed (npm's global
// prefix is /usr on Debian, /usr/local elsewhere, a home directory under nvm). Where buddy is: the
// bin as it was invoked, made absolute, not its real path: npm links PREFIX/bin/buddy to the package
// in PREFIX/lib/node_modules, and the link is npm's promise of where `buddy` stays through upgrades.
// The bin starts with `#!/usr/bin/env node`, so ExecStart= names it alone only when systemd can run
// it: it is executable, and the first `node` on a service's PATH is the node running now; otherwise
// ExecStart= names that node first. The texts are ./unit-text.ts's.
import { Console, Effect, Option } from "effect"
import { constants as fsConstants } from "node:fs"
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import { ExitCode } from "./exit.js"
import { defaultAccount, hasControl, type UnitKind, unitKindNamed, unitLines } from "./unit-text.js"
import * as words from "./words.js"

/**
 * The PATH systemd gives the services it starts (and its user manager, unless environment.d says
 * otherwise): where the bin's `/usr/bin/env node` looks under the unit, whatever the operator's own.
 */
export const servicePath: ReadonlyArray<string> = [
  "/usr/local/sbin",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/bin",
  "/sbin",
  "/bin"
]

/** What a systemd account name may be here: systemd's strict rule, which also keeps a unit line whole. */
const accountName = /^[A-Za-z_][A-Za-z0-9_-]{0,31}$/

/** The checks of the command line's reading (./command-line.ts): a wrong value is a usage error there. */
export const printUnitChecks: Readonly<Record<string, (value: string) => Option.Option<string>>> = {
  "--print-unit": (value) =>
    Option.isSome(unitKindNamed(value)) ? Option.none() : Option.some(words.printUnit.notAUnit(value)),
  "--account": (value) => accountName.test(value) ? Option.none() : Option.some(words.printUnit.notAnAccount(value))
}

export interface PrintUnitFlags {
  readonly unit: Option.Option<string>
  readonly account: Option.Option<string>
  readonly config: Option.Option<string>
  readonly home: Option.Option<string>
  readonly socket: Option.Option<string>
}

const usage = (line: string) => Effect.zipRight(Console.error(line), Effect.fail(new ExitCode({ code: 2 })))

/** The real path of `file` if it is a file systemd could execute (any x bit: the unit's account may be another). */
const executable = (file: string): Effect.Effect<Option.Option<string>> =>
  Effect.tryPromise(async () => {
    const stats = await fsp.stat(file)
    if (!stats.isFile()) return Option.none()
    await fsp.access(file, fsConstants.X_OK)
    return Option.some(await fsp.realpath(file))
  }).pipe(Effect.orElseSucceed(() => Option.none()))

/** The first executable `node` in `search`, by its real path, as `env` finds it. */
const nodeOn = (search: ReadonlyArray<string>): Effect.Effect<Option.Option<string>> =>
  Effect.reduce(
    search,
    Option.none<string>(),
    (found, dir) => Option.isSome(found) ? Effect.succeed(found) : executable(nodePath.join(dir, "node"))
  )

/**
 * ExecStart='s program for the bin `bin` (absolute, as invoked) run by the node `node`: the bin alone
 * when it is executable and `search` finds that same node first, else `node` then the bin.
 */
export const commandOf = (
  bin: string,
  node: string,
  search: ReadonlyArray<string> = servicePath
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const runnable = Option.isSome(yield* executable(bin))
    const found = yield* nodeOn(search)
    const running = yield* executable(node)
    const same = Option.isSome(found) && Option.isSome(running) && found.value === running.value
    return runnable && same ? [bin] : [node, bin]
  })

/** The unit asked for, or the usage error of a flag that has no use with it. */
const kindOf = (flags: PrintUnitFlags): Effect.Effect<UnitKind, ExitCode> =>
  Effect.gen(function*() {
    if (Option.isNone(flags.unit)) return yield* usage(words.printUnit.accountAlone)
    const kind = unitKindNamed(flags.unit.value)
    // The command line's reading refused any other value; this is for the type.
    if (Option.isNone(kind)) return yield* usage(words.printUnit.notAUnit(flags.unit.value))
    if (Option.isSome(flags.socket)) return yield* usage(words.printUnit.socketGiven)
    if (kind.value === "user" && Option.isSome(flags.account)) return yield* usage(words.printUnit.accountOfUser)
    if (kind.value === "socket" && Option.isSome(flags.config)) {
      return yield* usage(words.printUnit.socketUnitRuns("--config"))
    }
    if (kind.value === "socket" && Option.isSome(flags.home)) {
      return yield* usage(words.printUnit.socketUnitRuns("--home"))
    }
    return kind.value
  })

/**
 * Writes the unit on stdout, naming this buddy (`argv1`, run by `execPath`), the config and home
 * given (absolute: a unit's working directory is /), and the account. Nothing is read or served.
 */
export const printUnit = (
  flags: PrintUnitFlags,
  argv1: string = process.argv[1] ?? "",
  execPath: string = process.execPath
): Effect.Effect<void, ExitCode> =>
  Effect.gen(function*() {
    const kind = yield* kindOf(flags)
    const bin = nodePath.resolve(argv1)
    const config = Option.map(flags.config, (file) => nodePath.resolve(file))
    const home = Option.map(flags.home, (dir) => nodePath.resolve(dir))
    for (const [flag, given] of [["--config", config], ["--home", home]] as const) {
      if (Option.exists(given, hasControl)) return yield* usage(words.printUnit.controlIn(flag))
    }
    const command = yield* commandOf(bin, execPath)
    if (command.some(hasControl)) return yield* usage(words.printUnit.controlIn("buddy"))
    // npx runs a package from its cache, which npm clears as it likes: the unit would outlive it.
    if (bin.split(nodePath.sep).includes("_npx")) yield* Console.error(words.printUnit.fromNpxCache(bin))
    const account = Option.getOrElse(flags.account, () => defaultAccount)
    yield* Console.log(unitLines(kind, { command, config, home, account }).join("\n"))
  })
