// `npm run demo:web` (issue 37): the person's side on the built-in simulator. The Hermes simulator,
// `buddy serve` and a sample Launchpad page holding `<buddy-sign-in>`, all on loopback; the simulator
// approves each sign-in 3 s after it starts, as in `npm run demo`. `PORT` chooses the Launchpad's
// port (a free one otherwise); `?locale=cs` or `?locale=en` chooses the card's words. Runs until
// Ctrl-C, then stops everything it started and removes its temporary home.
import { startWebDemo } from "../fixtures/web-demo.ts"

const port = process.env["PORT"] === undefined ? 0 : Number(process.env["PORT"])
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`demo:web: PORT must be a port number (0-65535), not ${JSON.stringify(process.env["PORT"])}\n`)
  process.exit(2)
}

const demo = await startWebDemo({ port, approveAfter: 3 })
process.stdout.write(`Open ${demo.origin}/\n`)
process.stdout.write(
  `(${demo.origin}/?locale=cs in Czech; the simulator approves each sign-in after 3 s; Ctrl-C stops)\n`
)

let stopping = false
const stop = (code: number) => () => {
  if (stopping) return
  stopping = true
  void demo.close().then(() => process.exit(code))
}
process.once("SIGINT", stop(130))
process.once("SIGTERM", stop(143))
