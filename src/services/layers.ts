// The one layer graph the HTTP app, the CLI and the integration tests share: everything from
// the control socket up to SignIn and Status, given a BuddyConfig and a Journal.
import { Layer } from "effect"
import type { BuddyConfig } from "./BuddyConfig.js"
import { GatewaySocketLive } from "./GatewaySocket.js"
import { HermesApiLive } from "./HermesApi.js"
import { type HolderLock, HolderLockLive } from "./HolderLock.js"
import { SignInLive } from "./SignIn.js"
import { StatusLive } from "./Status.js"
import { TicketLive } from "./Ticket.js"

/** GatewaySocket → Ticket → HermesApi, exposing Ticket and HermesApi. */
export const GatewayLive = HermesApiLive.pipe(
  Layer.provideMerge(TicketLive),
  Layer.provide(GatewaySocketLive)
)

/**
 * SignIn and Status on the gateway client, SignIn with the given holder lock (C4.1; tests give one
 * in memory), which is in the output too: the CLI asks it whether this process may hold a sign-in
 * before it reads anything from Hermes for one (D27). Needs BuddyConfig and Journal.
 */
export const buddyServices = (holderLock: Layer.Layer<HolderLock, never, BuddyConfig> = HolderLockLive) =>
  Layer.mergeAll(SignInLive, StatusLive).pipe(Layer.provideMerge(holderLock), Layer.provideMerge(GatewayLive))

/** SignIn and Status on the gateway client, with the machine-wide holder lock. */
export const BuddyServicesLive = buddyServices()
