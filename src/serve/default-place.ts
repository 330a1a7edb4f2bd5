// Where `buddy serve` listens when no --socket is given (C6 "Who may reach it", D56): only in a
// directory no other account could have made first. A service manager's `RUNTIME_DIRECTORY`
// (systemd's `RuntimeDirectory=`), else the account's own runtime directory (`$XDG_RUNTIME_DIR`, or
// `/run/user/UID` where systemd made it for a cron job or `sudo -u` without the variable). Never
// `/tmp`: another account can make `/tmp/buddy-UID` first and listen there, and a proxy pointed at
// the documented path would get its answers (issue 39).
import { Option } from "effect"
import { existsSync } from "node:fs"
import * as nodePath from "node:path"
import { ownUid } from "../services/private-directory.js"

/** The socket's name inside buddy's runtime directory. */
export const socketName = "serve.sock"

/** buddy's directory in the account's own runtime directory, if the account has one. */
export const runtimeDirectory = (
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync
): Option.Option<string> => {
  const runtime = env["XDG_RUNTIME_DIR"]
  if (runtime !== undefined && nodePath.isAbsolute(runtime)) return Option.some(nodePath.join(runtime, "buddy"))
  const systemd = `/run/user/${ownUid()}`
  return exists(systemd) ? Option.some(nodePath.join(systemd, "buddy")) : Option.none()
}

/** The directory the service manager made for buddy (its first entry if several), if it made one. */
const madeByServiceManager = (env: NodeJS.ProcessEnv): Option.Option<string> =>
  Option.filter(Option.fromNullable(env["RUNTIME_DIRECTORY"]?.split(":")[0]), (made) => nodePath.isAbsolute(made))

/** The socket's default place, or none where no directory is the account's own to put it in. */
export const defaultSocketPath = (
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync
): Option.Option<string> =>
  Option.map(
    Option.orElse(madeByServiceManager(env), () => runtimeDirectory(env, exists)),
    (directory) => nodePath.join(directory, socketName)
  )

/** Why there is no default place, and the two ways to give one (exit 1). */
export const noRuntimeDirectory = (): string =>
  "buddy serve: there is no place for its socket that only this account could have made: no --socket, no " +
  "RUNTIME_DIRECTORY (a systemd unit's RuntimeDirectory=buddy sets it) and no runtime directory of this account's " +
  `own ($XDG_RUNTIME_DIR, /run/user/${ownUid()}). Run it from a unit with RuntimeDirectory=buddy, or give ` +
  "--socket PATH in a directory of this account's own (docs/operator-guide.md)."
