// Run in a child process by the no-proxy test: one provider card read with the real client
// against the home in argv[2], then one control request through the proxy the environment names,
// for the URL in argv[3]. Prints the answer (or the error tag and reason) and the control's
// outcome as one JSON line.
import { Effect, Layer } from "effect"
import * as Http from "node:http"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HermesApi } from "../../src/services/HermesApi.js"
import { GatewayLive } from "../../src/services/layers.js"

const home = process.argv[2] ?? ""
const controlTarget = process.argv[3] ?? ""

const read = Effect.flatMap(HermesApi, (api) => api.providerCard).pipe(
  Effect.map((answer) => ({ ok: true, value: answer.value })),
  Effect.catchAll((error) =>
    Effect.succeed({ ok: false, error: error._tag, reason: "reason" in error ? error.reason : "" })
  ),
  Effect.provide(GatewayLive.pipe(Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home }))))
)

/**
 * The control: one request sent the way a proxy-honouring client sends it (curl, or the undici
 * EnvHttpProxyAgent that `fetch` uses under NODE_USE_ENV_PROXY from Node 22.21/24): to the proxy
 * that HTTP_PROXY names, with the absolute URI as the request target. This Node 20 has no built-in
 * path that honours the variables (its `fetch` and `http` both go direct), so the control follows
 * them by hand. If the trap sees it, the variables reached this process and the trap counts.
 */
const control = Effect.async<string>((resume) => {
  const proxy = new URL(process.env.HTTP_PROXY ?? "http://0.0.0.0:0")
  const request = Http.request({
    host: proxy.hostname,
    port: Number(proxy.port),
    method: "GET",
    path: controlTarget,
    headers: { Host: new URL(controlTarget).host }
  })
  request.on("response", (response) => {
    response.resume()
    resume(Effect.succeed(`answered ${response.statusCode}`))
  })
  request.on("error", () => resume(Effect.succeed("no answer")))
  request.end()
})

const program = Effect.gen(function*() {
  const answer = yield* read
  const sent = yield* control
  return { ...answer, control: sent }
})

Effect.runPromise(program).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
