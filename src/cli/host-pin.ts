// Host pinning for `buddy serve` (C6 "Who may reach it"; docs/decisions.md D22). A page on another
// site that rebinds its DNS name to 127.0.0.1 reaches the server with its own name in `Host`
// (Tailscale's CVE-2022-41924): only this server's loopback names with its port, or the Launchpad's
// own host (a proxy that passes `Host` on), are served, GET included. A target in absolute form
// names its authority itself, which then stands in for `Host` (RFC 9112 §3.2.2).
import { Option } from "effect"

/** Where the server listens: the authorities that name it follow from it. */
export type Listening =
  | { readonly _tag: "Tcp"; readonly port: number }
  | { readonly _tag: "Socket" }

/**
 * The authorities that name this server, lowercase. On TCP the loopback names with its port (and
 * without one only on port 80, where a client leaves it out); on the socket, which has no port, the
 * names a client or proxy uses for it (curl and nginx send `localhost`).
 */
export const authoritiesOf = (listening: Listening, launchpadOrigin: string): ReadonlySet<string> => {
  const names = ["127.0.0.1", "localhost", "[::1]"]
  const own = listening._tag === "Tcp"
    ? names.flatMap((name) => (listening.port === 80 ? [`${name}:80`, name] : [`${name}:${listening.port}`]))
    : names
  const launchpad = URL.canParse(launchpadOrigin) ? [new URL(launchpadOrigin).host] : []
  return new Set([...own, ...launchpad].map((authority) => authority.toLowerCase()))
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
  const [, authority = "", rest = "/"] = match
  if (!authorities.has(authority.toLowerCase())) return Option.none()
  return Option.some({ target: rest.startsWith("?") ? `/${rest}` : rest })
}
