// Ticket: identify the gateway (C2, with every validation) into an `Endpoint`, and mint one
// single-use `native-http` ticket for one request. A ticket leaves this service only as a
// Redacted value, handed to the one request it is for, and is never stored. The last identify is
// kept in memory, for the one reuse C2 allows a status read (D47).
import { Clock, Context, Data, Duration, Effect, Either, Layer, Option, Redacted, Ref, Schema } from "effect"
import type { ControlRequest, TicketParams } from "../schema/control.js"
import { IdentifyResult, OAuthCancelContract, SessionAuthority, TicketResult } from "../schema/control.js"
import { type ApiOrigin, parseApiOrigin } from "./api-origin.js"
import { BuddyConfig } from "./BuddyConfig.js"
import { underLimit } from "./ExchangeLimit.js"
import type { Located } from "./gateway-path.js"
import { type GatewayError, gatewayError } from "./GatewayError.js"
import { GatewaySocket } from "./GatewaySocket.js"

/** A ready gateway instance serving our home, as one identify saw it. */
export interface Endpoint {
  readonly instanceId: string
  readonly origin: ApiOrigin
  readonly profileId: string
  readonly state: "ready"
  /** Whether this identify held the cancellation contract (C2). */
  readonly contract: boolean
  /** Where C1 found the gateway that answered: its ticket is minted there. */
  readonly located: Located
}

export class Ticket extends Context.Tag("buddy/Ticket")<Ticket, {
  /** A fresh identify, always: what every sign-in operation uses (C2). It becomes the recent one. */
  readonly identify: Effect.Effect<Endpoint, GatewayError>
  /**
   * C2's one saving, for a status read only: the last identify this process made, while it is at most
   * `reusedFor` old, nothing has dropped it since, and C1's walk, made here afresh, finds the same
   * home and socket. None otherwise, and the read identifies afresh. Never fails: a failed walk is
   * none, and the fresh identify meets the failure again and answers it.
   */
  readonly recent: Effect.Effect<Option.Option<Endpoint>>
  /**
   * A ticket from the socket the endpoint was found at; a failed or declined mint drops the recent
   * identify. `MintDeclined` when the gateway answered that this identify is not its own now.
   */
  readonly mint: (endpoint: Endpoint) => Effect.Effect<Redacted.Redacted<string>, GatewayError | MintDeclined>
  /** Drops the recent identify: the API call made with it failed (C2). */
  readonly forget: Effect.Effect<void>
}>() {}

/**
 * The gateway answered a mint, and its answer says the identify it was asked from is not the
 * gateway's now: a refusal (`refused`; a restarted gateway says "stale runtime instance"), or a ticket
 * for another instance or profile (`malformed`). Apart from `GatewayError` because a reused status
 * read identifies afresh after it, and only after it or a refused connection (C2); anything else a
 * mint meets (no answer in time, a reset, an answer of no known shape) is answered as it is.
 */
export class MintDeclined extends Data.TaggedError("MintDeclined")<{ readonly reason: "refused" | "malformed" }> {}

/** How old an identify a status read may reuse is at most (C2). */
export const reusedFor = Duration.seconds(10)

// Built once: a decoder made per answer would rebuild its parser every time. Strict unless the
// Schema itself says otherwise; identify's result does (it ignores what it does not name, C2), so
// for it the option changes nothing.
// Stryker disable next-line ObjectLiteral,StringLiteral: the result's own annotation overrides it, as said
const decodeIdentity = Schema.decodeUnknownEither(IdentifyResult, { onExcessProperty: "error" })
const decodeTicket = Schema.decodeUnknownEither(TicketResult)

/** C2 identify validation, in order: shape, origin, our profile, readiness; then the contract. */
export const endpointOf = (
  located: Located,
  result: Record<string, unknown>
): Effect.Effect<Endpoint, GatewayError> =>
  Effect.gen(function*() {
    const identity = yield* Either.mapLeft(decodeIdentity(result), () => gatewayError("incompatible"))
    const origin = yield* Option.match(parseApiOrigin(identity.api_origin), {
      onNone: () => Effect.fail(gatewayError("foreign-origin")),
      onSome: Effect.succeed
    })
    // Our home served exactly once: none, or two profiles on it, is not a gateway we can name.
    const [profile, ...others] = identity.served_profiles.filter((served) => served.home === located.home)
    if (profile === undefined || others.length > 0) return yield* Effect.fail(gatewayError("incompatible"))
    if (identity.state !== "ready" || !identity.capabilities.includes(SessionAuthority)) {
      return yield* Effect.fail(gatewayError("not-ready"))
    }
    return {
      instanceId: identity.instance_id,
      origin,
      profileId: profile.profile_id,
      state: "ready",
      contract: identity.capabilities.includes(OAuthCancelContract),
      located
    } satisfies Endpoint
  })

/** identify's request, one value: GatewaySocket encodes its line once (D47.11). */
export const identifyRequest: ControlRequest = { protocol: 1, id: 1, verb: "identify" }

type TicketRequest = Extract<ControlRequest, { readonly verb: "session-ticket" }>

/**
 * The session-ticket request for an identify, made once per endpoint: every mint from one identify
 * sends the same line, so GatewaySocket encodes it once, not at every read (D47.11).
 */
const ticketRequests = new WeakMap<Endpoint, TicketRequest>()

const ticketRequestFor = (endpoint: Endpoint): TicketRequest => {
  const kept = ticketRequests.get(endpoint)
  // Stryker disable next-line ConditionalExpression: without the kept request an equal one is made; only slower
  if (kept !== undefined) return kept
  const params: TicketParams = {
    profile_id: endpoint.profileId,
    instance_id: endpoint.instanceId,
    purpose: "native-http"
  }
  const request: TicketRequest = { protocol: 1, id: 1, verb: "session-ticket", params }
  ticketRequests.set(endpoint, request)
  return request
}

export const TicketLive = Layer.effect(
  Ticket,
  Effect.gen(function*() {
    const socket = yield* GatewaySocket
    const config = yield* BuddyConfig

    // The last identify and when it was asked for, on the monotonic clock (a wall clock set back
    // would make an old identify look young). In memory only, for this process.
    const last = yield* Ref.make(Option.none<{ readonly endpoint: Endpoint; readonly askedAt: bigint }>())
    const forget = Ref.set(last, Option.none())

    const identify = Effect.flatMap(Clock.currentTimeNanos, (askedAt) =>
      underLimit(
        socket.exchange(identifyRequest, config.limits.identifyLine)
      ).pipe(
        Effect.flatMap(({ located, reply }) =>
          // A gateway that refuses identify does not speak our protocol.
          reply.ok ? endpointOf(located, reply.result) : Effect.fail(gatewayError("incompatible"))
        ),
        // The last identify this process made is the one a status read may reuse: a failed one leaves none.
        Effect.tapBoth({
          onFailure: () => forget,
          onSuccess: (endpoint) => Ref.set(last, Option.some({ endpoint, askedAt }))
        })
      ))

    const recent = Effect.gen(function*() {
      const kept = yield* Ref.get(last)
      if (Option.isNone(kept)) return Option.none<Endpoint>()
      const now = yield* Clock.currentTimeNanos
      if (now - kept.value.askedAt > Duration.unsafeToNanos(reusedFor)) return Option.none()
      const { endpoint } = kept.value
      const here = yield* Effect.option(socket.locate)
      return Option.filter(
        here,
        (found) => found.home === endpoint.located.home && found.socket === endpoint.located.socket
      )
        .pipe(Option.as(endpoint))
    })

    const mint = (endpoint: Endpoint) =>
      Effect.gen(function*() {
        const request = ticketRequestFor(endpoint)
        const { params } = request
        // At the socket the identify found: the ticket comes from the gateway it is for.
        const { reply } = yield* socket.exchangeAt(endpoint.located, request, config.limits.ticketLine)
        if (!reply.ok) return yield* Effect.fail(new MintDeclined({ reason: "refused" }))
        const result = yield* Either.mapLeft(decodeTicket(reply.result), () => gatewayError("malformed"))
        if (result.profile_id !== params.profile_id || result.instance_id !== params.instance_id) {
          return yield* Effect.fail(new MintDeclined({ reason: "malformed" }))
        }
        return Redacted.make(result.ticket)
      }).pipe(Effect.tapError(() => forget))

    return Ticket.of({ identify, recent, mint, forget })
  })
)
