// SetupReport (C6 "Said on the server", D50): a refusal or a reading caused by the Launchpad's own
// setup rather than by a visitor is said on the host's logger (Effect's; `buddy serve`'s stderr),
// once per distinct cause for the life of the layers that hold it. The answers stay closed; these
// words are for whoever set buddy up, and never hold a code, ticket, handle, session id or Hermes text.
import { Context, Effect, Layer, Ref } from "effect"
import { BuddyConfig, type BuddyConfigShape } from "./BuddyConfig.js"
import { withDeadline } from "./deadline.js"
import { type HomeFinding, locate } from "./gateway-path.js"

/** A kind of cause, such as `origin-other`; a cause is its kind and, where the kind has one, its variant. */
export interface SetupCause {
  readonly kind: string
  /** What tells two causes of one kind apart (the origin a page posted from); `""` when the kind has none. */
  readonly variant: string
}

export interface SetupReportShape {
  /** Says `words()` once for `cause`; a cause said before says nothing. */
  readonly once: (cause: SetupCause, words: () => string) => Effect.Effect<void>
}

/** Says nothing: what buddy's layers use when none was given (the CLI, whose terminal says it in its own words). */
export const setupSilent: SetupReportShape = { once: () => Effect.void }

/**
 * The report the gateway client and the app say through. Without one of its own (a graph composed of
 * buddy's internal layers, the CLI) it is silent; every layer a Launchpad builds with `BuddyLive`,
 * `BuddyLiveConfig` or `BuddyServicesLive`, and `buddy serve`'s, holds a report of its own.
 */
export class SetupReport extends Context.Reference<SetupReport>()("buddy/SetupReport", {
  defaultValue: () => setupSilent
}) {}

/**
 * At most this many variants of one kind are said (a client that is no browser can send any origin);
 * the next one says once that no more of that kind will be.
 */
export const variantLimit = 16

/** Said once a kind has met more variants than `variantLimit`. */
const overflowWords = (kind: string) =>
  `buddy: more setup refusals of the kind ${kind} were met; no more of them are said.`

/** A report that says each cause once on Effect's logger, as a warning. */
export const makeSetupReport: Effect.Effect<SetupReportShape> = Effect.map(
  Ref.make<ReadonlyMap<string, ReadonlySet<string>>>(new Map()),
  (said) => ({
    once: (cause, words) =>
      Ref.modify(said, (kinds): readonly [string | undefined, ReadonlyMap<string, ReadonlySet<string>>] => {
        const variants = kinds.get(cause.kind) ?? new Set<string>()
        if (variants.has(cause.variant) || variants.size > variantLimit) return [undefined, kinds]
        const more = new Set(variants).add(cause.variant)
        const next = new Map(kinds).set(cause.kind, more)
        return [more.size > variantLimit ? overflowWords(cause.kind) : words(), next]
      }).pipe(Effect.flatMap((line) => line === undefined ? Effect.void : Effect.logWarning(line)))
  })
)

/** Where the home a config uses comes from, in words that name no path (a path could name a customer). */
const homeFrom = (config: Pick<BuddyConfigShape, "hermesHome">) =>
  config.hermesHome === undefined
    ? "the Hermes home (HERMES_HOME, else ~/.hermes)"
    : "the Hermes home the config names (hermesHome)"

/** What each finding means on the wire, and so why it is not a stopped gateway. */
const findingWords: Readonly<Record<HomeFinding, string>> = {
  missing: "does not exist, so every read answers unknown not-running and every sign-in 503 not-running, " +
    "exactly as if the gateway were stopped, though no gateway can run there; check hermesHome for a typo " +
    "(Hermes makes its home when it first runs)",
  "not-a-directory": "is not a directory, so every read answers unknown unsafe-home and every sign-in 503 " +
    "unsafe-home; hermesHome must name Hermes's home directory"
}

/** The words for a home found wrong when the layers were built. */
export const homeAtBuildWords = (config: Pick<BuddyConfigShape, "hermesHome">, finding: HomeFinding) =>
  `buddy: ${homeFrom(config)} ${findingWords[finding]}.`

/** The words for a home found wrong by a read: said once again, since the build's line may be long gone. */
export const homeOnReadWords = (config: Pick<BuddyConfigShape, "hermesHome">, finding: HomeFinding) =>
  `buddy: a read found that ${homeFrom(config)} ${
    finding === "missing" ? "does not exist" : "is not a directory"
  }: its answer (${finding === "missing" ? "not-running" : "unsafe-home"}) is the home, not a stopped gateway.`

/**
 * A report of its own for the layers `config` is built into, which looks at the home once as it is
 * built (C1's walk, under the control deadline) and says a home that does not exist or is no directory.
 */
export const SetupReportLive: Layer.Layer<SetupReport, never, BuddyConfig> = Layer.effect(
  SetupReport,
  Effect.gen(function*() {
    const config = yield* BuddyConfig
    const report = yield* makeSetupReport
    yield* withDeadline(
      config.deadlines.control,
      (deadline) =>
        locate(
          config.hermesHome,
          deadline,
          // Stryker disable next-line ObjectLiteral,StringLiteral: a build looks once, so says at most one finding; the kind only has to differ from the reads'
          (finding) => report.once({ kind: "home-at-build", variant: finding }, () => homeAtBuildWords(config, finding))
        )
    ).pipe(
      // Only what the home is matters here: a gateway not running yet, or any other refusal, is a read's to answer.
      Effect.ignore
    )
    return report
  })
)
