// C2 "API origin": exactly `http://127.0.0.1:<port>` or `http://[::1]:<port>`, port 1–65535, and
// nothing else: no trailing slash, path, user info, query, fragment, other host or scheme.
import { Option } from "effect"

export interface ApiOrigin {
  /** The origin string exactly as identify gave it. */
  readonly origin: string
  /** The address to connect to, never a name that a resolver could answer. */
  readonly address: "127.0.0.1" | "::1"
  readonly port: number
  /** The `Host` header value: the origin's host and port. */
  readonly host: string
}

const loopbackOrigin = /^http:\/\/(127\.0\.0\.1|\[::1\]):([1-9][0-9]{0,4})$/

export const parseApiOrigin = (origin: string): Option.Option<ApiOrigin> => {
  const match = loopbackOrigin.exec(origin)
  if (match === null) return Option.none()
  // Stryker disable next-line StringLiteral: the pattern has matched, so both groups hold text; the defaults are for the type
  const [, hostPart = "", portText = ""] = match
  const port = Number(portText)
  if (port > 65535) return Option.none()
  return Option.some({
    origin,
    address: hostPart === "127.0.0.1" ? "127.0.0.1" : "::1",
    port,
    host: `${hostPart}:${port}`
  })
}
