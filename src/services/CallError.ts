// A call to the API that reached a gateway instance (its identify answered) but got no answer
// that means something. It keeps which instance was asked and whether that instance held the
// contract (C3: every answer carries both), and whether the request may have run on Hermes.
import { Data } from "effect"
import type { GatewayReason } from "../schema/reasons.js"

/** The identify a call's ticket was bound to. */
export interface Instance {
  readonly instanceId: string
  readonly contract: boolean
}

export class CallError extends Data.TaggedError("CallError")<{
  readonly reason: GatewayReason
  readonly instance: Instance
  /** The request reached Hermes and its outcome is unknown (answer lost, cut or too large). */
  readonly mayHaveRun: boolean
}> {}
