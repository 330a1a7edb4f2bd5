// Who `buddy serve` answers (C6 "Who may reach it"; docs/decisions.md D22, D40), decided in this
// one file, before the HttpApp sees a request, so the app itself stays host-agnostic for a
// Launchpad that mounts it behind its own authentication:
// - who may connect: the kernel decides, from the socket's modes set here: this account alone
//   (0600 in a 0700 directory), or this account and exactly one named group, a reverse proxy's
//   (0660 in a 0710 directory of that group). There is no TCP listener: nothing on TCP can prove
//   who is listening (another account may bind the port first) at a bounded cost (D40);
// - under which name: every request's authority must name this server or the Launchpad (DNS
//   rebinding, Tailscale's CVE-2022-41924), a request naming two is malformed (RFC 9112 §3.2),
//   and a refused name is said on stderr, so an operator whose proxy sends the wrong one sees why.
import { Option } from "effect"
import { loopbackHosts } from "../http/loopback.js"

/** Who the socket is for: this account alone, or this account and one group's members. */
export type Sharing =
  | { readonly _tag: "Owner" }
  | { readonly _tag: "Group"; readonly gid: number }

/** The modes that say it: nothing for others ever; for the group only what connecting needs. */
export const modesOf = (sharing: Sharing): { readonly directory: number; readonly socket: number } =>
  sharing._tag === "Owner" ? { directory: 0o700, socket: 0o600 } : { directory: 0o710, socket: 0o660 }

/**
 * Whether a directory found at the socket's place may be used as it is: ours, and open to nobody
 * but the owner, or already shared with exactly this group and only as far as `modesOf` opens it.
 * Anything wider is refused rather than narrowed: whoever could enter it may have left something.
 */
export const directoryFits = (sharing: Sharing, found: { readonly gid: number; readonly mode: number }): boolean =>
  (found.mode & 0o077) === 0 ||
  (sharing._tag === "Group" && found.gid === sharing.gid && (found.mode & 0o067) === 0)

/**
 * The authorities that name this server, lowercase: the names a client or proxy uses for a socket,
 * which has no port (curl and nginx send `localhost`), and the Launchpad's own host with its port,
 * for a proxy that passes `Host` on.
 */
export const authoritiesOf = (launchpadOrigin: string): ReadonlySet<string> => {
  const launchpad = URL.canParse(launchpadOrigin) ? [new URL(launchpadOrigin).host] : []
  return new Set([...loopbackHosts, ...launchpad].map((authority) => authority.toLowerCase()))
}

/** What to serve: the target in origin form (the path and query). */
export interface Pinned {
  readonly target: string
}

const absolute = /^http:\/\/([^/?#]*)([/?][^#]*)?$/i

/**
 * The request's target in origin form if its authority names this server, else none (refused).
 * An absolute-form target is served when its own authority does, whatever `Host` says; any other
 * scheme is not ours.
 */
export const pin = (
  authorities: ReadonlySet<string>,
  target: string,
  host: string | undefined
): Option.Option<Pinned> => {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    return host !== undefined && authorities.has(host.toLowerCase()) ? Option.some({ target }) : Option.none()
  }
  const match = absolute.exec(target)
  if (match === null) return Option.none()
  // Stryker disable next-line StringLiteral: the authority's group takes part in every match, if empty; the fallback is for the type
  const authority = match[1] ?? ""
  const rest = match[2] ?? "/"
  if (!authorities.has(authority.toLowerCase())) return Option.none()
  return Option.some({ target: rest.startsWith("?") ? `/${rest}` : rest })
}

/** What a request says of its authority: its `Host` fields and its target. */
export interface Named {
  readonly target: string
  /** Every `Host` field, in order (Node's `headersDistinct`). */
  readonly hosts: ReadonlyArray<string>
  readonly httpVersion: string
}

/** Why a request is not served under the name it gives, or what to serve. */
export type Naming =
  | { readonly _tag: "Served"; readonly target: string }
  /** No `Host` in HTTP/1.1, or two: a bad request whatever its target (RFC 9112 §3.2). */
  | { readonly _tag: "Malformed" }
  /** A name that is not this server's: 403 host-mismatch, said on stderr. */
  | { readonly _tag: "Refused"; readonly name: string }

/** The name a refused request claimed: an absolute-form target's scheme and authority, else its `Host`. */
const claimedName = (target: string, host: string | undefined): string =>
  /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target)?.[0] ?? host ?? ""

export const nameOf = (authorities: ReadonlySet<string>, request: Named): Naming => {
  const [host, ...more] = request.hosts
  if (more.length > 0 || (host === undefined && request.httpVersion === "1.1")) return { _tag: "Malformed" }
  return Option.match(pin(authorities, request.target, host), {
    onSome: ({ target }) => ({ _tag: "Served", target }),
    onNone: () => ({ _tag: "Refused", name: claimedName(request.target, host) })
  })
}

/** At most this many refused names are said; a flood of them says nothing more. */
export const reportedLimit = 16

/** The longest part of a refused name repeated on stderr: it is the client's text. */
const shownLength = 80

/**
 * Says each refused name once on stderr, with what is served instead, up to `reportedLimit` names,
 * then once that no more will be said. The journal gets nothing: it is for sign-in operations.
 */
export const makeRefusalReport = (authorities: ReadonlySet<string>, say: (line: string) => void) => {
  const said = new Set<string>()
  const accepted = [...authorities].join(", ")
  return (name: string): void => {
    if (said.has(name) || said.size > reportedLimit) return
    said.add(name)
    say(
      said.size > reportedLimit
        ? `buddy serve: more requests under names it does not serve were refused; no more are said.`
        : `buddy serve: refused a request for ${JSON.stringify(name.slice(0, shownLength))} ` +
          `(403 host-mismatch): it serves only ${accepted}; a proxy must send one of them as Host.`
    )
  }
}
