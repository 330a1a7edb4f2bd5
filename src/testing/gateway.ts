// The fake Hermes gateway as a service, for a Launchpad's own tests (`@lazurio/buddy/testing`, D53):
// the project's one fake (fixtures/fake-gateway.ts, bundled into the package, never copied) in a
// private temporary home for a scope, with the controls those tests need named in the contract's
// words (C2–C5). Everything else the fake can do (faults, states, sweeps) stays in `controls`.
import { Context, Data, Duration, Effect, Layer } from "effect"
import {
  type FakeGatewayControls,
  type FakeGatewayOptions,
  type FakeSession,
  type FaultRoute,
  type GatewayState,
  makeFakeGateway,
  type Received
} from "../../fixtures/fake-gateway.js"

/** How the fake starts. Each field takes an explicit `undefined` for its default (D51). */
export interface FakeGatewaySetup {
  /** Hermes holds the cancellation contract (C2; default true): false is an outdated Hermes from the start. */
  readonly contract?: boolean | undefined
  /** Buddy is signed in already (default false). */
  readonly signedIn?: boolean | undefined
  /** The gateway's state (default `ready`): `starting`, `draining` and `failed` are C2's not ready. */
  readonly state?: GatewayState | undefined
  /** The socket at `<home>/gateway.sock` (`direct`, the default) or behind `gateway.sock.path` (`pointer`, C1.3). */
  readonly socket?: "direct" | "pointer" | undefined
}

/** The fake's options for a setup: the contract's usual Hermes wherever the setup says nothing. */
export const optionsOf = (
  setup: FakeGatewaySetup
): { readonly [K in "contract" | "signedIn" | "state" | "socket"]-?: NonNullable<FakeGatewayOptions[K]> } => ({
  contract: setup.contract ?? true,
  signedIn: setup.signedIn ?? false,
  state: setup.state ?? "ready",
  socket: setup.socket ?? "direct"
})

/** A control the fake could not carry out: the test asked for something that is not there. */
export class FakeGatewayError extends Data.TaggedError("FakeGatewayError")<{
  /** `no-pending-sign-in`: no sign-in is waiting for the person on Hermes (none started, or it ended). */
  readonly reason: "no-pending-sign-in"
}> {}

/** The controls of a running fake gateway. */
export interface FakeGatewayShape {
  /** The fake's private home (its real path): the `hermesHome` buddy is given. */
  readonly home: string
  /** The person finishes the device login: Hermes's worker saves the pending sign-in (buddy: `signed-in`). */
  readonly approve: () => Effect.Effect<void, FakeGatewayError>
  /** The person refuses at OpenAI: the pending sign-in ends `denied` (buddy: `refused`). */
  readonly deny: () => Effect.Effect<void, FakeGatewayError>
  /** The code runs out: the pending sign-in ends `expired`. */
  readonly expire: () => Effect.Effect<void, FakeGatewayError>
  /**
   * The gateway restarts as a Hermes without the cancellation contract (C2): a start, and a cancel or
   * sign-out of a sign-in it cannot prove ended, answer blocked `hermes-outdated` (C4.2, C4.5).
   */
  readonly outdated: () => Effect.Effect<void>
  /**
   * The gateway stops: its socket goes and its port closes, so Buddy's state is `unknown` with
   * reason `not-running` and operations answer unavailable (C1.4, C7). Under the contract it marks
   * its pending sign-in cancelled before it goes. `restart()` starts it again.
   */
  readonly stop: () => Effect.Effect<void>
  /**
   * The gateway restarts as a new instance (a stopped one starts again). Under the contract the old
   * instance marks its pending sign-in cancelled first, so a sign-in buddy held reads `lost` (C4.4).
   */
  readonly restart: () => Effect.Effect<void>
  /**
   * Hermes answers `route` only after `delay`, `times` times (default: until `controls.clearFaults()`):
   * a delay past buddy's deadline (C2, C3) is the closed reason `timeout`, and nothing is sent twice.
   */
  readonly slow: (route: FaultRoute, delay: Duration.DurationInput, times?: number) => Effect.Effect<void>
  /**
   * Hermes answers a cancel `{"ok":true}` without the session's id, `times` times (default: until
   * `controls.clearFaults()`): that proves no end, so the sign-in stays held and the cancel, a
   * replacing start or a sign-out answers blocked `sign-in-running`, having changed nothing (C4.4, C4.5).
   */
  readonly cancelUnconfirmed: (times?: number) => Effect.Effect<void>
  /** Every request the fake received so far, in order (control lines and HTTP requests), for assertions. */
  readonly received: Effect.Effect<ReadonlyArray<Received>>
  /** The fake itself: faults per route, states, sessions, tickets, sweeps (fixtures/fake-gateway.ts). */
  readonly controls: FakeGatewayControls
}

/** The newest sign-in Hermes's worker may still end: pending, and not marked cancelled. */
export const pendingSession = (controls: FakeGatewayControls): FakeSession | undefined =>
  controls.sessions().findLast((session) => session.status === "pending" && !session.cancelled)

const noPending = new FakeGatewayError({ reason: "no-pending-sign-in" })

/** Ends the pending sign-in as the worker would, or says there is none. */
const endPending = (controls: FakeGatewayControls, end: (sessionId: string) => boolean) =>
  Effect.suspend(() => {
    const session = pendingSession(controls)
    return session !== undefined && end(session.id) ? Effect.void : Effect.fail(noPending)
  })

const shapeOf = (controls: FakeGatewayControls): FakeGatewayShape => ({
  home: controls.home,
  approve: () => endPending(controls, (id) => controls.approve(id)),
  deny: () => endPending(controls, (id) => controls.deny(id)),
  expire: () => endPending(controls, (id) => controls.expire(id)),
  outdated: () => Effect.sync(() => controls.restart({ contract: false })),
  stop: () => Effect.sync(() => controls.stop()),
  restart: () => Effect.sync(() => controls.restart()),
  slow: (route, delay, times) =>
    Effect.sync(() => controls.fault(route, { kind: "late", ms: Duration.toMillis(delay) }, times)),
  cancelUnconfirmed: (times) => Effect.sync(() => controls.fault("cancel", { kind: "ok-without-id" }, times)),
  received: Effect.sync(() => controls.received),
  controls
})

/** The fake gateway of the test's scope. */
export class FakeGateway extends Context.Tag("buddy/testing/FakeGateway")<FakeGateway, FakeGatewayShape>() {
  /**
   * A fake gateway in a private temporary home (0700) for the layer's scope: its socket, port and
   * home are gone when the scope closes.
   */
  static readonly layer = (setup: FakeGatewaySetup = {}): Layer.Layer<FakeGateway> =>
    Layer.scoped(FakeGateway, Effect.map(makeFakeGateway(optionsOf(setup)), shapeOf))
}
