// buddy's routes for a host that speaks web Request and Response (the README's fourth example),
// under a prefix: `makeBuddyWebHandler` is @effect/platform's `HttpApp.toWebHandlerLayer` on the
// app and its layers. The config is the Launchpad's own settings, given as fields and checked by
// BuddyLive; call `dispose` when the host stops (it cancels nothing on Hermes).
import { type BuddyConfigFields, BuddyLive, makeBuddyWebHandler } from "@lazurio/buddy"

export const launchpad = (settings: BuddyConfigFields, prefix: `/${string}` = "/api/buddy") =>
  makeBuddyWebHandler(BuddyLive(settings), { prefix })
