// Each reason the socket's place is refused, in words (C8): the path, what is wrong with it, and a
// fix that cannot hurt (D56). A fix names only buddy's own entries (the socket file, buddy's own
// directory); it never removes, chowns or chmods a directory buddy did not make, never hands a path
// to another account, and never names a group but the config's, by the name the group file gives
// it (the config's own text is never repeated).
import { Option } from "effect"
import { octal, openedTo } from "../services/mode-words.js"
import type { SocketPlaceUnsafe } from "./socket-place-unsafe.js"

/** The longest path a Unix socket may have on Linux (`sun_path` is 108 bytes with its NUL). */
export const socketPathLimit = 107

/** What names accounts and groups in the words, from the system's account files. */
export interface Naming {
  /** `buddy (uid 999)`, or `uid 999`. */
  readonly account: (uid: number) => string
  /** The running account's name, for a command to run as it (`uid N` where none is listed). */
  readonly self: string
  /** The config's socketGroup, by the group file's name for its gid (else the gid), if it names one. */
  readonly group: Option.Option<string>
  /** The directory buddy makes for itself by default: the only one a fix may remove. */
  readonly ownDirectory: Option.Option<string>
}

const prefix = "buddy serve:"

/** A place the guide's steps make (docs/operator-guide.md), as the fix for a directory that is not this account's. */
const madePlace = (naming: Naming, path: string) =>
  `make buddy a directory of its own, as root: install -d -o ${naming.self} ${
    Option.match(naming.group, { onNone: () => "-m 0700", onSome: (group) => `-g ${group} -m 0710` })
  } ${path}`

const elsewhere = "or choose another --socket"

export const placeWords = (error: SocketPlaceUnsafe, naming: Naming): string => {
  const { path } = error
  const found = error.found ?? 0
  const owner = naming.account(found)
  const ours = Option.contains(naming.ownDirectory, path)
  const theGroup = Option.match(naming.group, {
    onNone: () => "the socketGroup's group",
    onSome: (group) => `the group ${group} (socketGroup)`
  })
  switch (error.reason) {
    case "directory-missing":
      return `${prefix} ${path} does not exist; create it (mkdir -p ${path}) ${elsewhere}.`
    case "directory-uncreatable":
      return `${prefix} this account (${naming.self}) may not create the socket's directory ${path} (${
        error.code ?? "EACCES"
      }); ${madePlace(naming, path)}, ${elsewhere}.`
    case "directory-link":
      return `${prefix} the socket's directory ${path} is a symbolic link; buddy does not follow one. ` +
        `Choose a real directory with --socket.`
    case "directory-not-directory":
      return `${prefix} the socket's directory ${path} is not a directory; choose another --socket.`
    case "directory-foreign":
      return `${prefix} the socket's directory ${path} belongs to ${owner}; buddy runs as ${naming.self}. ` +
        (ours
          ? `It is buddy's own place: look at it (sudo ls -la ${path}), then, while no buddy runs, remove it ` +
            `(sudo rm -r ${path}) and start again.`
          : `Choose a --socket in a directory of ${naming.self}'s own.`)
    case "directory-open":
      return `${prefix} the socket's directory ${path} has mode ${octal(found)}: ${
        openedTo(found, 0o077)
      } may enter it. ` +
        (ours
          ? `It is buddy's own place: while no buddy runs, remove it (rm -r ${path}); buddy makes it again closed.`
          : `Choose a --socket in a directory closed to others (${madePlace(naming, "DIR")}).`)
    case "way-foreign":
      return `${prefix} ${path}, on the way to the socket, belongs to ${owner}, who could swap what lies below it; ` +
        `choose a --socket under directories of ${naming.self}'s or root's only.`
    case "way-open":
      return `${prefix} ${path}, on the way to the socket, has mode ${octal(found)}: ${
        openedTo(found, 0o022)
      } may rename what lies below it; choose a --socket under directories only their owner may write.`
    case "way-closed":
      return `${prefix} ${path}, on the way to the socket, has mode ${
        octal(found)
      }: ${theGroup} cannot pass it, so its proxy could not connect. Choose a --socket the ` +
        `group can reach, such as /run/buddy made as docs/operator-guide.md says, or run buddy from its system ` +
        `unit (RuntimeDirectory=buddy).`
    case "not-member":
      return `${prefix} this account (${naming.self}) is not a member of ${theGroup}, so ` +
        `it cannot share ${path} with it; ${
          Option.match(naming.group, {
            onNone: () => "add it to that group",
            onSome: (group) =>
              `add it (sudo usermod -aG ${group} ${naming.self}, or SupplementaryGroups=${group} in its systemd unit)`
          })
        } and start again.`
    case "socket-not-socket":
      return `${prefix} ${path} exists and is not a socket; buddy replaces only a socket of its own. ` +
        `Look at it (ls -la ${path}), ${elsewhere}.`
    case "socket-foreign":
      return `${prefix} the socket ${path} belongs to ${owner}; buddy runs as ${naming.self}. While no buddy ` +
        `runs, remove that socket (sudo rm ${path}), ${elsewhere}.`
    case "socket-open":
      return `${prefix} the socket ${path} has mode ${octal(found)}: accounts the config does not ` +
        `name may connect; give it SocketMode=0600 (or 0660 with SocketGroup= the config's socketGroup).`
    case "socket-in-use":
      return `${prefix} another server is listening on ${path} (another buddy serve?); ` +
        `stop it ${elsewhere}.`
    case "too-long":
      return `${prefix} the socket path ${path} is longer than ${socketPathLimit} bytes, ` +
        `the most a Unix socket may have; choose a shorter --socket.`
    case "unusable":
      return `${prefix} ${path} cannot be used for the socket (${error.code ?? "EUNKNOWN"}); ` +
        `check that ${naming.self} may reach it (ls -ld ${path}).`
  }
}
