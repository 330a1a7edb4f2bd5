// Requests that reach the server before the app's handler is registered wait for it. The server
// listens while its layer is built and the app registers its handler in another layer after it;
// Node emits a parsed request at once, and a request no one listens for is never answered: the
// client waits for ever. A service manager's socket (D40) always has its first connection queued
// before buddy starts, and on a loaded machine it was parsed in that gap (docs/decisions.md D59).
import type { IncomingMessage, ServerResponse } from "node:http"

export type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** The app's two entries: a request, and one that expects `100 Continue`. */
export interface Handlers {
  readonly request: Handler
  readonly checkContinue: Handler
}

export interface RequestGate extends Handlers {
  /** The app is ready: the requests held so far are handed to it in their order, later ones at once. */
  readonly open: (handlers: Handlers) => void
  /** The app is gone: requests are held again, for the next app or for the server's stop. */
  readonly close: () => void
}

export const makeRequestGate = (): RequestGate => {
  let current: Handlers | undefined
  const held: Array<(handlers: Handlers) => void> = []
  const entry = (pick: (handlers: Handlers) => Handler): Handler => (request, response) => {
    if (current === undefined) held.push((handlers) => pick(handlers)(request, response))
    else pick(current)(request, response)
  }
  return {
    request: entry((handlers) => handlers.request),
    checkContinue: entry((handlers) => handlers.checkContinue),
    open: (handlers) => {
      current = handlers
      held.splice(0).forEach((hand) => hand(handlers))
    },
    close: () => {
      current = undefined
    }
  }
}
