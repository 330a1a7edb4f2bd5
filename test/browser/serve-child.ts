// `buddy serve` on its own, for the browser test while the `buddy` bin does not route `serve` yet:
// the same command under the same runtime (SIGINT/SIGTERM interrupt it and its layers close).
// A leading "serve" is dropped so the test spawns it with the bin's own arguments.
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { serveCommand } from "../../src/cli/serve.js"

const [node = "node", script = "serve-child", ...rest] = process.argv
const args = rest[0] === "serve" ? rest.slice(1) : rest

Command.run(serveCommand, { name: "buddy", version: "0.1.0" })([node, script, ...args]).pipe(
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
