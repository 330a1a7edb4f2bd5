// `@lazurio/buddy/testing` (docs/testing.md, D53): what a Launchpad's own @effect/vitest suite needs
// to swap buddy's gateway for a fake. The fake is the project's own (fixtures/fake-gateway.ts) with
// controls in the contract's words; buddy's layers on it, the journal captured as lines; and the
// simulator started from code. scripts/build-lib.js bundles it into dist/lib/testing/ with the fake
// and its recorded answers, buddy's own modules and Effect left to the package and its peers.
export type {
  FakeGatewayControls,
  FakeSession,
  Fault,
  FaultRoute,
  GatewayState,
  Received
} from "../../fixtures/fake-gateway.js"
export { BuddyOnFakeGateway, type LaunchpadFields } from "./buddy.js"
export { FakeGateway, FakeGatewayError, type FakeGatewaySetup, type FakeGatewayShape } from "./gateway.js"
export { JournalCapture, JournalLines, journalLines } from "./journal.js"
export { makeSimulator, type Simulator, type SimulatorSetup, startSimulator } from "./simulator.js"
