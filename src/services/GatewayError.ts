// The one failure family of everything that talks to Hermes (C7 gateway reasons). It carries the
// closed reason and nothing else: no path, no Hermes text, no ticket.
import { Data } from "effect"
import type { GatewayReason } from "../schema/reasons.js"

export class GatewayError extends Data.TaggedError("GatewayError")<{ readonly reason: GatewayReason }> {}

export const gatewayError = (reason: GatewayReason) => new GatewayError({ reason })
