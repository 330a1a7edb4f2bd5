// HermesApi: the five C3 operations on Hermes's own OAuth routes. Each call identifies the
// gateway, mints one ticket, sends one request; a 401 (ticket refused before anything ran) gets
// one fresh ticket and one resend, nothing else is ever sent twice. Every answer carries the
// instance and contract of the identify its ticket was bound to. Hermes's texts stop here.
import { Context, Data, Effect, Layer, Option, Schema } from "effect"
import {
  CancelConfirmed,
  CancelNotFound,
  CodexProvider,
  NotReadyAnswer,
  PollAnswer,
  PollNotFound,
  type PollStatus,
  ProviderCard,
  ProviderList,
  SignOutAnswer,
  StartAnswer,
  StartSessionId
} from "../schema/hermes.js"
import { decodeUtf8 } from "../schema/utf8.js"
import { BuddyConfig } from "./BuddyConfig.js"
import { CallError, type Instance } from "./CallError.js"
import { withDeadline } from "./deadline.js"
import { underLimit } from "./ExchangeLimit.js"
import { type GatewayError, gatewayError } from "./GatewayError.js"
import { type HttpAnswer, httpExchange, type Method } from "./loopback-http.js"
import { type Endpoint, type MintDeclined, Ticket } from "./Ticket.js"

/** An answer, tagged with the instance that gave it (C3). */
export interface Answer<A> {
  readonly instance: Instance
  readonly value: A
}

/** The openai-codex card's `status.logged_in`. */
export interface Card {
  readonly loggedIn: boolean
}

export type Start = Data.TaggedEnum<{
  /** A session with a code and page of exactly the shapes C3 allows. */
  Started: {
    readonly sessionId: string
    readonly code: string
    readonly page: string
    readonly pollInterval: number
  }
  /** A 200 of no known shape: a session may exist, with this id if the answer named one (C4.6). */
  Unrecognized: { readonly sessionId: Option.Option<string> }
}>
export const Start = Data.taggedEnum<Start>()

export type Poll = Data.TaggedEnum<{
  Status: { readonly status: PollStatus }
  /** 404 with Hermes's own not-found answer: Hermes no longer holds the session. */
  NotHeld: {}
  /** A 200 of no known shape. */
  Unrecognized: {}
}>
export const Poll = Data.taggedEnum<Poll>()

export type Cancel = Data.TaggedEnum<{
  /** `{ok:true, session_id}`: the session named was cancelled. */
  Cancelled: { readonly sessionId: string }
  /** `{ok:false, message:"session not found"}`. */
  NotFound: {}
  /** Anything else Hermes answered: proves nothing. */
  Unrecognized: {}
}>
export const Cancel = Data.taggedEnum<Cancel>()

export type SignOut = Data.TaggedEnum<{
  /** `{ok:true}`: stored credentials were removed. */
  SignedOut: {}
  /** 409, or `{ok:false}`: nothing was stored. */
  NothingStored: {}
}>
export const SignOut = Data.taggedEnum<SignOut>()

/** A start refused by the client itself: this instance does not hold the cancellation contract. */
export class ContractMissing extends Data.TaggedError("ContractMissing")<{ readonly instance: Instance }> {}

export type ApiError = GatewayError | CallError

/**
 * A call's first attempt failed before any byte of its request left for Hermes: the mint was declined
 * (the gateway refused it, or echoed another instance or profile) or the API origin refused the
 * connection. Internal: only a reused status read acts on it, by identifying afresh (C2); every other
 * caller meets the failure it carries.
 */
class NothingSent extends Data.TaggedError("NothingSent")<{ readonly failure: ApiError }> {}

const sentOrNot = ({ failure }: NothingSent) => Effect.fail(failure)

/** A declined mint is nothing sent on a call's first attempt; after a 401 the GET has left once already. */
const declinedOn = (first: boolean, { reason }: MintDeclined) =>
  first ? new NothingSent({ failure: gatewayError(reason) }) : gatewayError(reason)

export class HermesApi extends Context.Tag("buddy/HermesApi")<HermesApi, {
  readonly providerCard: Effect.Effect<Answer<Card>, ApiError>
  readonly start: Effect.Effect<Answer<Start>, ApiError | ContractMissing>
  readonly poll: (sessionId: string) => Effect.Effect<Answer<Poll>, ApiError>
  readonly cancel: (sessionId: string) => Effect.Effect<Answer<Cancel>, ApiError>
  readonly signOut: Effect.Effect<Answer<SignOut>, ApiError>
}>() {}

const routes = {
  providers: "/api/providers/oauth",
  start: `/api/providers/oauth/${CodexProvider}/start`,
  poll: (sessionId: string) => `/api/providers/oauth/${CodexProvider}/poll/${encodeURIComponent(sessionId)}`,
  cancel: (sessionId: string) => `/api/providers/oauth/sessions/${encodeURIComponent(sessionId)}`,
  signOut: `/api/providers/oauth/${CodexProvider}`
} as const

const instanceOf = (endpoint: Endpoint): Instance => ({ instanceId: endpoint.instanceId, contract: endpoint.contract })

/** The body as text, or none: strict UTF-8, so a lone surrogate is not silently replaced. */
const textOf = (body: Uint8Array): Option.Option<string> => Option.getRight(decodeUtf8(body))

/**
 * A body decoded as `schema` (with the schema's own excess-member rule), or none. Each decoder is
 * built once, here at module level: `Schema.parseJson(schema)` made per answer is a new schema whose
 * parser would be rebuilt every time.
 */
const bodyDecoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownOption(Schema.parseJson(schema))
  return (body: Uint8Array): Option.Option<A> => Option.flatMap(textOf(body), decode)
}

const decodes = {
  providerList: bodyDecoder(ProviderList),
  notReady: bodyDecoder(NotReadyAnswer),
  start: bodyDecoder(StartAnswer),
  startSessionId: bodyDecoder(StartSessionId),
  pollNotFound: bodyDecoder(PollNotFound),
  poll: bodyDecoder(PollAnswer),
  cancelConfirmed: bodyDecoder(CancelConfirmed),
  cancelNotFound: bodyDecoder(CancelNotFound),
  signOut: bodyDecoder(SignOutAnswer)
}
// Strict unless the Schema says otherwise, as every decode here; a card does say otherwise (it
// ignores the members it does not name, on purpose), so for it the option changes nothing.
// Stryker disable next-line ObjectLiteral,StringLiteral: the card's own annotation overrides it, as said
const decodeProviderCard = Schema.decodeUnknownOption(ProviderCard, { onExcessProperty: "error" })

/** Exactly one openai-codex card whose `status.logged_in` is a boolean (C5). */
const codexCard = (body: Uint8Array): Option.Option<Card> =>
  Option.flatMap(decodes.providerList(body), ({ providers }) => {
    const [card, ...more] = providers
      .flatMap((entry) => Option.toArray(decodeProviderCard(entry)))
      .filter((entry) => entry.id === CodexProvider)
    const loggedIn = card !== undefined && more.length === 0 ? card.status.logged_in : undefined
    return typeof loggedIn === "boolean" ? Option.some({ loggedIn }) : Option.none()
  })

export const HermesApiLive = Layer.effect(
  HermesApi,
  Effect.gen(function*() {
    const tickets = yield* Ticket
    const config = yield* BuddyConfig

    /**
     * One request with one ticket; a 401 means the ticket was refused before anything ran, so one
     * fresh ticket and one resend. Anything else, including a failure after the write, is final.
     * A failure of the first attempt before any of its request left (the mint declined, the API
     * origin refusing the connection) is `NothingSent`, which only a reused status read acts on (C2).
     */
    const callOrUnsent = (endpoint: Endpoint, method: Method, path: string, deadline = config.deadlines.api) => {
      const instance = instanceOf(endpoint)
      // The mint and its request take one turn together: a ticket never waits for a turn (C5).
      const attempt = (first: boolean) =>
        underLimit(
          tickets.mint(endpoint).pipe(
            Effect.catchTag("MintDeclined", (declined) => Effect.fail(declinedOn(first, declined))),
            Effect.flatMap((ticket) =>
              withDeadline(deadline, (armed) =>
                httpExchange({
                  origin: endpoint.origin,
                  method,
                  path,
                  ticket,
                  limit: config.limits.answer,
                  deadline: armed
                })).pipe(Effect.mapError((failure) => {
                  const error = new CallError({ ...failure, instance })
                  // Not connected: no byte of the request left (loopback-http's `mayHaveRun`).
                  return first && !failure.mayHaveRun ? new NothingSent({ failure: error }) : error
                }))
            )
          )
        )
      const refusedOnce = (answer: HttpAnswer) => answer.status === 401
      return attempt(true).pipe(
        Effect.flatMap((answer) => (refusedOnce(answer) ? attempt(false) : Effect.succeed(answer))),
        Effect.flatMap((answer): Effect.Effect<HttpAnswer, CallError> => {
          if (answer.status === 401) {
            return Effect.fail(new CallError({ reason: "refused", instance, mayHaveRun: false }))
          }
          if (answer.status === 503 && Option.isSome(decodes.notReady(answer.body))) {
            return Effect.fail(new CallError({ reason: "not-ready", instance, mayHaveRun: false }))
          }
          return Effect.succeed(answer)
        }),
        Effect.map((answer) => ({ instance, answer })),
        // Whatever operation made it, a failed call drops the identify a status read might reuse (C2).
        Effect.tapError(() => tickets.forget)
      )
    }

    /** A call whose failures are all final: every operation's but a reused status read's. */
    const call = (endpoint: Endpoint, method: Method, path: string, deadline = config.deadlines.api) =>
      callOrUnsent(endpoint, method, path, deadline).pipe(Effect.catchTag("NothingSent", sentOrNot))

    /** Any status this operation does not give a meaning to is a closed failure, never Hermes's text. */
    const httpError = (instance: Instance) => new CallError({ reason: "http-error", instance, mayHaveRun: false })
    const malformed = (instance: Instance) => new CallError({ reason: "malformed", instance, mayHaveRun: false })

    /**
     * A status or body the card read cannot read fails it, and drops the recent identify as a failed
     * call does (C2); a failed call has dropped it already.
     */
    const unreadCard = (failure: CallError) => Effect.zipRight(tickets.forget, Effect.fail(failure))

    /** The card read with one identify; `NothingSent` when its first attempt sent nothing of the GET. */
    const cardFrom = (endpoint: Endpoint) =>
      Effect.gen(function*() {
        const { answer, instance } = yield* callOrUnsent(endpoint, "GET", routes.providers)
        if (answer.status !== 200) return yield* unreadCard(httpError(instance))
        const card = codexCard(answer.body)
        if (Option.isNone(card)) return yield* unreadCard(malformed(instance))
        return { instance, value: card.value }
      })

    const freshCard = Effect.flatMap(tickets.identify, cardFrom).pipe(Effect.catchTag("NothingSent", sentOrNot))

    // A status read, the one operation that may reuse a recent identify (C2). It identifies afresh,
    // once, only where nothing of the GET was sent: the mint declined (refused, or echoing another
    // instance or profile) or the API origin refused the connection. A failure after the GET may have
    // left is that read's answer, as it is a read's without reuse: nothing is sent twice (C3, D47.3).
    const providerCard = Effect.flatMap(
      tickets.recent,
      Option.match({
        onNone: () => freshCard,
        onSome: (endpoint) => cardFrom(endpoint).pipe(Effect.catchTag("NothingSent", () => freshCard))
      })
    )

    const start = Effect.gen(function*() {
      const endpoint = yield* tickets.identify
      // The client's own gate (C4.2): a start never reaches an instance without the contract.
      if (!endpoint.contract) return yield* Effect.fail(new ContractMissing({ instance: instanceOf(endpoint) }))
      const { answer, instance } = yield* call(endpoint, "POST", routes.start, config.deadlines.start)
      if (answer.status !== 200) return yield* Effect.fail(httpError(instance))
      const value = Option.match(decodes.start(answer.body), {
        onSome: (started) =>
          Start.Started({
            sessionId: started.session_id,
            code: started.user_code,
            page: started.verification_url,
            pollInterval: started.poll_interval
          }),
        onNone: () =>
          Start.Unrecognized({
            sessionId: Option.map(decodes.startSessionId(answer.body), (named) => named.session_id)
          })
      })
      return { instance, value }
    })

    const poll = (sessionId: string) =>
      Effect.gen(function*() {
        const endpoint = yield* tickets.identify
        const { answer, instance } = yield* call(endpoint, "GET", routes.poll(sessionId))
        // Only the poll route's own not-found answer says Hermes let the session go; a 404 of another
        // shape (no such route, something else on the port) proves nothing and keeps it held (D17).
        if (answer.status === 404 && Option.isSome(decodes.pollNotFound(answer.body))) {
          return { instance, value: Poll.NotHeld() }
        }
        if (answer.status !== 200) return yield* Effect.fail(httpError(instance))
        const value = Option.match(decodes.poll(answer.body), {
          onSome: ({ status }) => Poll.Status({ status }),
          onNone: () => Poll.Unrecognized()
        })
        return { instance, value }
      })

    const cancel = (sessionId: string) =>
      Effect.gen(function*() {
        const endpoint = yield* tickets.identify
        const { answer, instance } = yield* call(endpoint, "DELETE", routes.cancel(sessionId))
        if (answer.status !== 200) return yield* Effect.fail(httpError(instance))
        const confirmed = decodes.cancelConfirmed(answer.body)
        const value = Option.isSome(confirmed)
          ? Cancel.Cancelled({ sessionId: confirmed.value.session_id })
          : Option.isSome(decodes.cancelNotFound(answer.body))
          ? Cancel.NotFound()
          : Cancel.Unrecognized()
        return { instance, value }
      })

    const signOut = Effect.gen(function*() {
      const endpoint = yield* tickets.identify
      const { answer, instance } = yield* call(endpoint, "DELETE", routes.signOut)
      if (answer.status === 409) return { instance, value: SignOut.NothingStored() }
      if (answer.status !== 200) return yield* Effect.fail(httpError(instance))
      const decoded = decodes.signOut(answer.body)
      if (Option.isNone(decoded)) return yield* Effect.fail(malformed(instance))
      return { instance, value: decoded.value.ok ? SignOut.SignedOut() : SignOut.NothingStored() }
    })

    return HermesApi.of({ providerCard, start, poll, cancel, signOut })
  })
)
