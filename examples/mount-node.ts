// buddy's routes in a plain node:http server (the README's third example), under a prefix:
// @effect/platform-node's makeHandler serves `buddyHttpAppAt(prefix)`, which cuts the prefix off as
// a router would. The config is the Launchpad's own settings (its machine handover's entry, say),
// given as fields and checked by BuddyLive.
import { NodeHttpServer } from "@effect/platform-node"
import { type BuddyConfigFields, buddyHttpAppAt, BuddyLive } from "@lazurio/buddy"
import { ManagedRuntime } from "effect"
import { createServer } from "node:http"

export const launchpad = async (settings: BuddyConfigFields, prefix: `/${string}` = "/api/buddy") => {
  const runtime = ManagedRuntime.make(BuddyLive(settings))
  const buddy = await runtime.runPromise(NodeHttpServer.makeHandler(buddyHttpAppAt(prefix)))
  // The prefix itself and what is under it; not `${prefix}x`, which is the Launchpad's.
  const isBuddy = (url = "") => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`)
  const server = createServer((request, response) =>
    isBuddy(request.url) ? buddy(request, response) : response.end("the Launchpad")
  )
  return { server, close: () => runtime.dispose() } // dispose cancels nothing on Hermes
}
