// BuddyConfig: the home, origins, environment and locale (C6 "Config"), plus the deadlines and
// size limits of C2/C3. One value for the HTTP app and the CLI; tests shorten the deadlines.
import { Context, Duration, Layer } from "effect"
import type { Environment, Locale } from "../schema/config.js"

export interface Deadlines {
  /** One control-socket exchange (C2, default 5 s). */
  readonly control: Duration.Duration
  /** One API call (C3, default 5 s). */
  readonly api: Duration.Duration
  /** The start call (C3, 15 s: Hermes waits up to 10 s for OpenAI's code). */
  readonly start: Duration.Duration
}

export interface Limits {
  /** identify reply line (C2). */
  readonly identifyLine: number
  /** session-ticket reply line (C2). */
  readonly ticketLine: number
  /** One API answer body (C3). */
  readonly answer: number
  /** One request body to our own routes (C6). */
  readonly requestBody: number
}

export interface BuddyConfigShape {
  /** `--home` / config override; otherwise `HERMES_HOME`, else `~/.hermes` (C1.1). */
  readonly hermesHome: string | undefined
  readonly launchpadOrigin: string
  readonly buddyOrigin: string | undefined
  readonly environment: Environment
  readonly locale: Locale
  readonly deadlines: Deadlines
  readonly limits: Limits
}

export const defaultDeadlines: Deadlines = {
  control: Duration.seconds(5),
  api: Duration.seconds(5),
  start: Duration.seconds(15)
}

export const defaultLimits: Limits = {
  identifyLine: 512 * 1024,
  ticketLine: 64 * 1024,
  answer: 256 * 1024,
  requestBody: 16 * 1024
}

export class BuddyConfig extends Context.Tag("buddy/BuddyConfig")<BuddyConfig, BuddyConfigShape>() {
  /** A config with the contract's deadlines and limits, overridable piece by piece. */
  static readonly make = (
    fields: Partial<Omit<BuddyConfigShape, "deadlines" | "limits">> & {
      readonly deadlines?: Partial<Deadlines>
      readonly limits?: Partial<Limits>
    }
  ): BuddyConfigShape => ({
    hermesHome: fields.hermesHome,
    launchpadOrigin: fields.launchpadOrigin ?? "http://127.0.0.1",
    buddyOrigin: fields.buddyOrigin,
    environment: fields.environment ?? "local",
    locale: fields.locale ?? "en",
    deadlines: { ...defaultDeadlines, ...fields.deadlines },
    limits: { ...defaultLimits, ...fields.limits }
  })

  static readonly layer = (...args: Parameters<typeof BuddyConfig.make>) =>
    Layer.succeed(BuddyConfig, BuddyConfig.make(...args))
}
