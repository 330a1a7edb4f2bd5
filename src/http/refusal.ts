// The app's own closed refusals (C6 checks 1–4) and how each one sounds on the wire. Blocked and
// Unavailable come from SignIn; anything else becomes 500 operation-failed.
import { Data } from "effect"

export class Refused extends Data.TaggedError("Refused")<{
  readonly reason:
    | "buddy-absent"
    | "not-found"
    | "method-not-allowed"
    | "origin-mismatch"
    | "invalid-content-type"
    | "body-too-large"
    | "invalid-request"
    | "invalid-handle"
  /** The methods a path accepts, for 405's `Allow`. */
  readonly allow?: ReadonlyArray<string>
}> {}

export const refused = (reason: Refused["reason"]) => new Refused({ reason })
