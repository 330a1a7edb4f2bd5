// Run in a child process by the no-proxy test: one provider card read with the real client
// against the home in argv, printing the answer (or the error tag and reason) as one JSON line.
import { Effect, Layer } from "effect"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { GatewayLive } from "../../src/services/layers.js"

const home = process.argv[2] ?? ""

const program = Effect.flatMap(HermesApi, (api) => api.providerCard).pipe(
  Effect.map((answer) => ({ ok: true, value: answer.value })),
  Effect.catchAll((error) =>
    Effect.succeed({ ok: false, error: error._tag, reason: "reason" in error ? error.reason : "" })
  ),
  Effect.provide(GatewayLive.pipe(Layer.provide(BuddyConfig.layer({ hermesHome: home }))))
)

Effect.runPromise(program).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
