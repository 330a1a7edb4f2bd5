// The simulator started from code, for a Launchpad's tests beyond one Effect scope (a browser test,
// its server run as a process of its own with HERMES_HOME): the fake on a home, each sign-in
// approved after a delay as a person would (`npm run demo`'s simulator approves after 3 s), or by
// hand. The same function as the `buddy-simulator` command's (fixtures/simulator.ts).
import { Duration, Effect } from "effect"
import type { Scope } from "effect"
import type { FakeGatewayControls } from "../../fixtures/fake-gateway.js"
import { startSimulator as startOnHome } from "../../fixtures/simulator.js"
import { type FakeGatewaySetup, optionsOf, pendingSession } from "./gateway.js"

/** How the simulator starts: the fake's setup, and where and when. */
export interface SimulatorSetup extends FakeGatewaySetup {
  /** The Hermes home to serve (made 0700 if missing, left in place); none: a private temporary one, removed by `stop`. */
  readonly home?: string | undefined
  /** Approve each new sign-in this long after it started; none: only `approve()` approves. */
  readonly approveAfter?: Duration.DurationInput | undefined
}

/** A running simulator. */
export interface Simulator {
  /** Its home (the real path): give it to buddy as `hermesHome`, or as `HERMES_HOME` to a process. */
  readonly home: string
  /** Approves the pending sign-in now; false when none is pending. */
  readonly approve: () => boolean
  /** Stops it: its socket and port close, a temporary home is removed. */
  readonly stop: () => Promise<void>
  /** The fake itself (fixtures/fake-gateway.ts). */
  readonly controls: FakeGatewayControls
}

/** Starts a simulator; `stop()` it when done. */
export const startSimulator = async (setup: SimulatorSetup = {}): Promise<Simulator> => {
  const { gateway, stop } = await startOnHome({
    ...optionsOf(setup),
    home: setup.home,
    approveAfter: setup.approveAfter === undefined ? undefined : Duration.toSeconds(setup.approveAfter)
  })
  const approve = () => {
    const session = pendingSession(gateway)
    return session !== undefined && gateway.approve(session.id)
  }
  return { home: gateway.home, approve, stop, controls: gateway }
}

/** `startSimulator` for a scope: it stops when the scope closes. */
export const makeSimulator = (setup: SimulatorSetup = {}): Effect.Effect<Simulator, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => startSimulator(setup)), (simulator) => Effect.promise(simulator.stop))
