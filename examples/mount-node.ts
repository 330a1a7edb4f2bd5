// Mounting buddy's routes in a plain node:http server (the README's second example).
import { NodeHttpServer } from "@effect/platform-node"
import { type BuddyConfigShape, BuddyHttpApp, BuddyLive } from "@lazurio/buddy"
import { ManagedRuntime } from "effect"
import { createServer } from "node:http"

export const launchpad = async (config: BuddyConfigShape) => {
  const runtime = ManagedRuntime.make(BuddyLive(config))
  const buddy = await runtime.runPromise(NodeHttpServer.makeHandler(BuddyHttpApp))
  // /api/buddy itself and what is under it; not /api/buddyx, which is the Launchpad's.
  const isBuddy = (url = "") => url === "/api/buddy" || /^\/api\/buddy[/?]/.test(url)
  const server = createServer((request, response) =>
    isBuddy(request.url) ? buddy(request, response) : response.end("the Launchpad")
  )
  return { server, close: () => runtime.dispose() } // dispose cancels nothing on Hermes
}
