// The one layer graph the HTTP app, the CLI and the integration tests share: everything from
// the control socket up to SignIn and Status, given a BuddyConfig and a Journal.
import { Layer } from "effect"
import { GatewaySocketLive } from "./GatewaySocket.js"
import { HermesApiLive } from "./HermesApi.js"
import { SignInLive } from "./SignIn.js"
import { StatusLive } from "./Status.js"
import { TicketLive } from "./Ticket.js"

/** GatewaySocket → Ticket → HermesApi, exposing Ticket and HermesApi. */
export const GatewayLive = HermesApiLive.pipe(
  Layer.provideMerge(TicketLive),
  Layer.provide(GatewaySocketLive)
)

/** SignIn and Status on the gateway client. Needs BuddyConfig and Journal. */
export const BuddyServicesLive = Layer.mergeAll(SignInLive, StatusLive).pipe(Layer.provideMerge(GatewayLive))
