// The layers of the real client, pointed at a fake gateway, for integration tests: real Unix
// socket, real loopback HTTP, the journal captured. Deadlines are short so fault tests run fast.
import { Duration, Effect, Layer, Ref } from "effect"
import type { FakeGateway } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { JournalCapture, JournalLines } from "../../src/services/Journal.js"
import { BuddyServicesLive } from "../../src/services/layers.js"

export const testDeadlines = {
  control: Duration.millis(1000),
  api: Duration.millis(1000),
  start: Duration.millis(1500)
}

/** SignIn, Status, HermesApi, Ticket, JournalLines for the fake gateway's home. */
export const buddyLayer = (fake: FakeGateway) =>
  BuddyServicesLive.pipe(
    Layer.provideMerge(JournalCapture),
    Layer.provide(BuddyConfig.layer({ hermesHome: fake.home, deadlines: testDeadlines }))
  )

/** The journal lines written so far, parsed. */
export const journalLines = Effect.flatMap(JournalLines, Ref.get)
