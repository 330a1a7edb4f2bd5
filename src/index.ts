// The public surface of buddy: the layers, the services and the wire schemas. A Launchpad
// imports the HTTP app from here; tests and the CLI build on the same layers.
export * from "./schema/config.js"
export * from "./schema/control.js"
export * from "./schema/hermes.js"
export * from "./schema/reasons.js"
export * from "./services/BuddyConfig.js"
export * from "./services/CallError.js"
export * from "./services/GatewayError.js"
export * from "./services/GatewaySocket.js"
export * from "./services/HermesApi.js"
export * from "./services/Ticket.js"
