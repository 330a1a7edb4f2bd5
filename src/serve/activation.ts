// Socket activation (systemd's `.socket` units, `systemd-socket-activate`): the service manager
// listens before buddy starts and hands the socket over as fd 3, saying so in `LISTEN_PID` and
// `LISTEN_FDS` (sd_listen_fds(3)). The variables are for this process only: a child must not take
// them for its own, so they are removed once read, as sd_listen_fds(unset=1) does.
import { Array as Arr, Effect, Option } from "effect"
import * as fsp from "node:fs/promises"

/** The first descriptor a service manager passes (SD_LISTEN_FDS_START). */
export const firstPassedFd = 3

/** What the environment says of sockets handed over: none, exactly one (its fd), or a number buddy cannot use. */
export type Handed =
  | { readonly _tag: "None" }
  | { readonly _tag: "One"; readonly fd: number }
  | { readonly _tag: "Several"; readonly count: number }

/** Reads (and removes) the service manager's word; sockets meant for another process are none of ours. */
export const handedSockets = (env: NodeJS.ProcessEnv = process.env, pid: number = process.pid): Handed => {
  const forPid = env["LISTEN_PID"]
  const count = Option.fromNullable(env["LISTEN_FDS"]).pipe(
    Option.filter((text) => /^[0-9]{1,4}$/.test(text)),
    Option.map(Number)
  )
  delete env["LISTEN_PID"]
  delete env["LISTEN_FDS"]
  delete env["LISTEN_FDNAMES"]
  if (forPid !== String(pid)) return { _tag: "None" }
  return Option.match(count, {
    onNone: () => ({ _tag: "None" }),
    onSome: (
      n
    ) => (n === 0 ? { _tag: "None" } : n === 1 ? { _tag: "One", fd: firstPassedFd } : { _tag: "Several", count: n })
  })
}

/**
 * The path of a listening socket handed over as `fd`, so it can be checked like a socket of our own:
 * the descriptor names its inode (`socket:[N]`), and the kernel's list of Unix sockets names the
 * inode's path. None when it has no path (an abstract or unnamed socket, or no /proc).
 */
export const handedPath = (
  fd: number,
  files = { descriptor: `/proc/self/fd/${fd}`, sockets: "/proc/net/unix" }
): Effect.Effect<Option.Option<string>> =>
  Effect.gen(function*() {
    const link = yield* Effect.tryPromise(() => fsp.readlink(files.descriptor))
    const inode = /^socket:\[([0-9]+)\]$/.exec(link)?.[1]
    if (inode === undefined) return Option.none()
    const table = yield* Effect.tryPromise(() => fsp.readFile(files.sockets, "utf8"))
    return Arr.findFirst(table.split("\n"), (line) => {
      const fields = line.trim().split(/\s+/)
      return fields[6] === inode && fields[7]?.startsWith("/") === true
        ? Option.some(fields.slice(7).join(" "))
        : Option.none()
    })
  }).pipe(Effect.orElseSucceed(() => Option.none<string>()))
