// Why a POST failed C6's same-origin rule (check 3), as a cause and in words for the Launchpad's
// logger (C6 "Said on the server", D50). The answer stays 403 origin-mismatch; these words are for
// whoever set the Launchpad up, and the only values they repeat are the two origins, bounded and escaped.
import type { BuddyConfigShape } from "../services/BuddyConfig.js"
import type { SetupCause } from "../services/SetupReport.js"
import { shown } from "../services/shown.js"
import { loopbackHosts } from "./loopback.js"

/** A same-origin refusal's cause: the first of C6's conditions the request fails, in the order they are checked. */
export type OriginCause =
  | { readonly kind: "site-missing" }
  | { readonly kind: "site-other"; readonly site: string }
  | { readonly kind: "origin-missing" }
  | { readonly kind: "origin-buddy"; readonly origin: string }
  | { readonly kind: "origin-other"; readonly origin: string }

/** The `Sec-Fetch-Site` values a browser sends besides `same-origin` (Fetch Metadata); any other is named as such. */
const browserSites = ["same-site", "cross-site", "none"]

/** The cause the request's `Sec-Fetch-Site` and `Origin` give, or none when C6's rule admits it. */
export const originCause = (
  config: Pick<BuddyConfigShape, "launchpadOrigin" | "buddyOrigin">,
  site: string | undefined,
  origin: string | undefined
): OriginCause | undefined => {
  if (site === undefined) return { kind: "site-missing" }
  if (site !== "same-origin") return { kind: "site-other", site: browserSites.includes(site) ? site : "other" }
  if (origin === undefined) return { kind: "origin-missing" }
  if (origin === config.buddyOrigin) return { kind: "origin-buddy", origin }
  if (origin !== config.launchpadOrigin) return { kind: "origin-other", origin }
  return undefined
}

/** The longest part of an origin repeated: a request's header is a client's text. */
export const shownLength = 100

const shownOrigin = (origin: string) => shown(origin, shownLength)

/** The cause as the report tells causes apart: each other origin is its own (bounded by the report). */
export const setupCause = (cause: OriginCause): SetupCause => ({
  kind: cause.kind,
  variant: cause.kind === "site-other" ? cause.site : cause.kind === "origin-other" ? shownOrigin(cause.origin) : ""
})

/** `text` as an origin's scheme, host and port, if it is one. */
const partsOf = (text: string) => {
  const url = URL.canParse(text) ? new URL(text) : undefined
  return url === undefined ? undefined : { scheme: url.protocol, host: url.hostname, port: url.port }
}

/** True when both are loopback origins of one scheme and port, under two of loopback's names. */
export const loopbackAliases = (origin: string, launchpadOrigin: string): boolean => {
  const [given, configured] = [partsOf(origin), partsOf(launchpadOrigin)]
  return given !== undefined && configured !== undefined && given.host !== configured.host &&
    given.scheme === configured.scheme && given.port === configured.port &&
    loopbackHosts.includes(given.host) && loopbackHosts.includes(configured.host)
}

/** True when a browser sends no `Sec-Fetch-Site` to this origin: plain http on a host that is not loopback. */
export const untrustworthy = (launchpadOrigin: string): boolean => {
  const parts = partsOf(launchpadOrigin)
  return parts !== undefined && parts.scheme === "http:" && !loopbackHosts.includes(parts.host)
}

const refusedPost = "buddy: refused a POST (403 origin-mismatch):"

/** The words for `cause` under `config`. */
export const originWords = (
  config: Pick<BuddyConfigShape, "launchpadOrigin" | "buddyOrigin">,
  cause: OriginCause
): string => {
  const launchpad = shownOrigin(config.launchpadOrigin)
  switch (cause.kind) {
    case "site-missing":
      return `${refusedPost} it came without Sec-Fetch-Site. A browser sends it only to a trustworthy origin ` +
        "(https, or http on localhost, 127.0.0.1 or [::1]); " + (untrustworthy(config.launchpadOrigin)
          ? `launchpadOrigin ${launchpad} is plain http on a host that is not loopback, so no browser sends it ` +
            "there: serve the Launchpad over https."
          : "a proxy in front of the app may drop it: make it pass Sec-Fetch-Site and Origin on.")
    case "site-other":
      return `${refusedPost} its Sec-Fetch-Site is ${
        cause.site === "other" ? "a value no browser sends" : cause.site
      }, not same-origin: only a page on the Launchpad's own origin ${launchpad} may post to the app, and the ` +
        "app must be served on that origin too (the Launchpad's server, or a proxy under its host)."
    case "origin-missing":
      return `${refusedPost} it came without Origin, which a browser sends with every POST from a page; a proxy ` +
        `in front of the app may drop it, and a client that is no browser must send ${launchpad} itself.`
    case "origin-buddy":
      return `${refusedPost} it came from Buddy's own origin ${
        shownOrigin(cause.origin)
      }: Buddy's own page may not drive his sign-in; post from the Launchpad's page at ${launchpad}.`
    case "origin-other":
      return `${refusedPost} its Origin is ${shownOrigin(cause.origin)}, but launchpadOrigin is ${launchpad}` +
        (loopbackAliases(cause.origin, config.launchpadOrigin)
          ? "; localhost, 127.0.0.1 and [::1] are different origins to a browser: open the Launchpad at " +
            `${launchpad}, or set launchpadOrigin to ${shownOrigin(cause.origin)}.`
          : `; set launchpadOrigin to the origin the Launchpad's page is opened at, or open it at ${launchpad}.`)
  }
}
