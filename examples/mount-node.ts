// Mounting buddy's routes in a plain node:http server (the README's second example).
import { NodeHttpServer } from "@effect/platform-node"
import { type BuddyConfigShape, BuddyHttpApp, BuddyLive } from "buddy"
import { ManagedRuntime } from "effect"
import { createServer } from "node:http"

export const launchpad = async (config: BuddyConfigShape) => {
  const runtime = ManagedRuntime.make(BuddyLive(config))
  const buddy = await runtime.runPromise(NodeHttpServer.makeHandler(BuddyHttpApp))
  const server = createServer((request, response) =>
    request.url?.startsWith("/api/buddy") ? buddy(request, response) : response.end("the Launchpad")
  )
  return { server, close: () => runtime.dispose() } // dispose cancels nothing on Hermes
}
