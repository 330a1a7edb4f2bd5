// The names of this machine's loopback that a browser, curl or a proxy uses: `localhost` and the
// two loopback addresses, in URL host form. Browsers treat each as an origin of its own and as a
// trustworthy one (Secure Contexts §3.1), and a proxy on a Unix socket sends one of them as Host.

/** The loopback hosts, as a URL's `host` spells them (no port). */
export const loopbackHosts: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]
