// `npm run bench:schema`: what each Schema step of one status read costs, in µs, on the recorded
// answers the stand-in serves: the session-ticket request encoded, its reply line decoded, the
// ticket's result, the provider list and its cards; each beside the bare JSON.parse/stringify it
// wraps. A profile aid for docs/performance.md, not a target.
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { ControlReplyFromLine, ControlRequestToLine, TicketResult } from "../src/schema/control.js"
import { ProviderCard, ProviderList } from "../src/schema/hermes.js"

const { answers } = JSON.parse(readFileSync(new URL("../fixtures/hermes/recorded.json", import.meta.url), "utf8"))
const render = (template: string, values: Record<string, string>) =>
  template.replaceAll(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? "")
const ticketLine = render(answers["ticket-issued"].line, {
  ticket: "a".repeat(43),
  instance_id: "0123456789abcdef0123456789abcdef",
  home: "/tmp/home",
  id_member: ", \"id\": 1"
})
const listBody = render(answers["providers-signed-in"].body, { xai_source_label: "xAI Grok OAuth" })
const request = {
  protocol: 1,
  id: 1,
  verb: "session-ticket",
  params: { profile_id: "default", instance_id: "0123456789abcdef0123456789abcdef", purpose: "native-http" }
} as const

const encodeLine = Schema.encodeEither(ControlRequestToLine)
const decodeReply = Schema.decodeUnknownEither(ControlReplyFromLine)
const decodeTicket = Schema.decodeUnknownEither(TicketResult)
const decodeList = Schema.decodeUnknownOption(Schema.parseJson(ProviderList))
const decodeCard = Schema.decodeUnknownOption(ProviderCard, { onExcessProperty: "error" })
const reply = JSON.parse(ticketLine)
const providers: Array<unknown> = JSON.parse(listBody).providers

const steps: Record<string, () => unknown> = {
  "request line: Schema encode": () => encodeLine(request),
  "request line: JSON.stringify": () => JSON.stringify(request),
  "ticket reply line: Schema decode (parseJson + union)": () => decodeReply(ticketLine),
  "ticket reply line: JSON.parse": () => JSON.parse(ticketLine),
  "ticket result: Schema decode": () => decodeTicket(reply.result),
  "provider list: Schema decode (parseJson)": () => decodeList(listBody),
  "provider list: JSON.parse": () => JSON.parse(listBody),
  [`provider cards (${providers.length}): Schema decode each`]: () => providers.map((card) => decodeCard(card))
}
const each = (run: () => unknown, times: number) => {
  const start = performance.now()
  for (let i = 0; i < times; i++) run()
  return ((performance.now() - start) * 1000) / times
}
for (const run of Object.values(steps)) each(run, 5_000) // warm-up
process.stdout.write("| step | µs |\n|---|---|\n")
for (const [name, run] of Object.entries(steps)) {
  const samples = Array.from({ length: 7 }, () => each(run, 5_000)).sort((a, b) => a - b)
  process.stdout.write(`| ${name} | ${samples[3]!.toFixed(1)} |\n`)
}
