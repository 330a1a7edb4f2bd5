// buddy's public surface, chosen export by export (docs/decisions.md D20): what a Launchpad mounts
// and configures, the wire it speaks (the route Schemas and the closed reasons), and the errors it
// can meet when it asks the services itself. Internals (the control socket, tickets, Hermes's own
// answers, the loopback client) are not exported: only this file promises anything.
// The browser client is its own entry, `buddy/client`, so a front end never loads Node code.

// Mounting: the HttpApp, its hosts under any prefix, the layers it needs (their types name only
// what is exported here: D43), the config, the journal and the document.
export { BuddyHttpApp, type ConfigFileFields, configFrom } from "./http/app.js"
export { buddyHttpAppAt, BuddyRoutes, makeBuddyWebHandler, type Prefix } from "./http/hosts.js"
export { BuddyLive, BuddyLiveConfig, type BuddyServices, BuddyServicesLive } from "./http/live.js"
export { type BuddyOperationsMerge, openApiDocument, withBuddyOperations } from "./http/openapi.js"
export { ConfigFile, Environment, Locale, Origin } from "./schema/config.js"
export {
  BuddyConfig,
  type BuddyConfigFields,
  type BuddyConfigShape,
  type BuddyConfigStrings,
  ConfigInvalid,
  type Deadlines,
  type DeadlinesGiven,
  defaultDeadlines,
  defaultLimits,
  type Limits,
  type LimitsGiven
} from "./services/BuddyConfig.js"
export { Journal, JournalLive, JournalSilent, makeJournal } from "./services/Journal.js"
export { buddyVersion } from "./version.js"

// The services, for a Launchpad that asks them without HTTP, and what they fail with.
export {
  Blocked,
  type Ending,
  type Refusal,
  SignIn,
  type SignInView,
  type Started,
  Unavailable
} from "./services/SignIn.js"
export { type BuddyStatus, Status } from "./services/Status.js"

// The wire of the routes (C6), the one table of their answers, and the closed reasons (C7).
export { JournalLine, JournalOperation, JournalOutcome } from "./schema/journal.js"
export { BlockedReason, BuddyState, GatewayReason, SignInState } from "./schema/reasons.js"
export {
  apiRoot,
  BlockedAnswer,
  BuddyAnswer,
  CancelAnswer,
  DeniedAnswer,
  EmptyBody,
  ErrorAnswer,
  Handle,
  HandleBody,
  OpenApiAnswer,
  type Operation,
  operations,
  pathRefusals,
  PlainError,
  PollAnswer,
  type RefusalBody,
  type RefusalName,
  refusals,
  refusalsOf,
  SignOutAnswer,
  StartAnswer,
  UnavailableAnswer
} from "./schema/routes.js"
