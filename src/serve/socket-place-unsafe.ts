// Why the socket cannot be placed where asked (C6 "Who may reach it"): each a closed reason, said in
// words by ./place-words.ts. Its own module, for the place (./socket-place.ts) and the way to it
// (./socket-way.ts) both raise it.
import { Data } from "effect"

export class SocketPlaceUnsafe extends Data.TaggedError("SocketPlaceUnsafe")<{
  readonly reason:
    | "directory-missing"
    | "directory-uncreatable"
    | "directory-link"
    | "directory-not-directory"
    | "directory-foreign"
    | "directory-open"
    | "way-foreign"
    | "way-open"
    | "way-closed"
    | "not-member"
    | "socket-not-socket"
    | "socket-foreign"
    | "socket-open"
    | "socket-in-use"
    | "too-long"
    | "unusable"
  /** The path the reason is about (the directory or the socket). */
  readonly path: string
  /** The owner's uid, or the mode found, where the reason is about one. */
  readonly found?: number
  /** The system's own code, for `unusable` and `directory-uncreatable`. */
  readonly code?: string
}> {}
