// Whom the socket's group lets in (C6 "Who may reach it", D56): every account in it may do all a
// proxy may, sign Buddy out included. The group should hold the proxy's account alone; on Debian,
// `www-data` also holds Caddy (its package adds it) and every PHP-FPM and CGI program, so a group
// that admits more than one account is said at start, naming them, from the system's group file.
import { Option } from "effect"
import type { Accounts } from "./accounts.js"

/** The most accounts a warning names; the rest are counted. */
export const namedLimit = 8

/**
 * The warning for a group that admits more than one account besides buddy's own and root (who
 * needs no group), or none.
 */
export const admissionWarning = (accounts: Accounts, gid: number, self: string): Option.Option<string> => {
  const others = accounts.admitted(gid).filter((name) => name !== self && name !== accounts.nameOf(0))
  if (others.length <= 1) return Option.none()
  const named = others.slice(0, namedLimit).join(", ")
  const more = others.length > namedLimit ? ` and ${others.length - namedLimit} more` : ""
  const group = Option.getOrElse(accounts.groupName(gid), () => `gid ${gid}`)
  return Option.some(
    `buddy serve: the socketGroup ${group} admits ${others.length} accounts to the socket (${named}${more}); ` +
      "each may do all the proxy may, signing Buddy out included. Give the proxy a group of its own holding its " +
      "account alone (docs/operator-guide.md, \"A proxy group of its own\")."
  )
}
