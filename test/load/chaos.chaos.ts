// `npm run chaos` (issue 9 item 4): restart chaos. The fake gateway, in its own process, restarts
// (a new instance id, the contract kept or dropped) or is killed outright and started again on the
// same home, at a random moment inside a sign-in operation served by `buddy serve`'s own server.
// After every round: no sign-in reported ended without Hermes's word, no session able to save after
// a confirmed cancel, nothing sent twice, and the server still answering. Since issue 16, a round may
// also begin with the person approving the held sign-in, or with a second buddy process (the CLI)
// trying to sign out or start beside it: no ending its holder reads may contradict what Hermes saved,
// and the second buddy must change nothing. Counts go to docs/quality.md.
import * as os from "node:os"
import { expect, it } from "vitest"
import type { FakeSession } from "../../fixtures/fake-gateway.js"
import { type DeadlinesMs, startHost } from "../boundary/support/hosts.js"
import { spawnBuddy } from "../cli/support/buddy-process.js"
import { type RemoteGateway, spawnGateway } from "../support/gateway-process.js"
import { writeQualitySection } from "../support/quality-doc.js"

const ROUNDS = Number(process.env["CHAOS_ROUNDS"] ?? 300)
const deadlines: DeadlinesMs = { control: 300, api: 300, start: 600 }

type Operation = "poll" | "cancel" | "sign-out" | "start"
type Chaos = "restart, contract kept" | "restart, contract dropped" | "killed and started again"
type Before = "nothing" | "the person approves" | "a second buddy signs out" | "a second buddy starts"
const operations: ReadonlyArray<Operation> = ["poll", "cancel", "sign-out", "start"]

/** What a second buddy process in a terminal says beside the held sign-in: it must be blocked. */
const secondBuddy = async (args: ReadonlyArray<string>, home: string) => {
  const other = spawnBuddy([...args, "--json", "--home", home], { stoppedByCaller: true })
  const said = await other.stdoutLines(1).catch(() => other.finished.then((done) => done.stdout))
  other.child.kill("SIGTERM")
  await other.finished
  return said[0] ?? ""
}

/** An ending its holder reads that Hermes's record contradicts; `lost` and `pending` claim nothing saved or not. */
const contradicts = (state: string | undefined, approved: boolean, status: string | undefined) =>
  (state === "signed-in" && !approved) ||
  (state === "cancelled" && (approved || (status !== undefined && status !== "pending"))) ||
  (state !== undefined && ["expired", "refused", "failed"].includes(state) && approved)

/** A small deterministic generator, so a failing round can be replayed from its seed. */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it(`${ROUNDS} rounds of restarts inside sign-in operations break no promise`, async () => {
  const seed = Number(process.env["CHAOS_SEED"] ?? 20261130)
  const next = random(seed)
  const counts = new Map<string, number>()
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)
  const violations: Array<string> = []
  const retired: Array<RemoteGateway> = []
  let gateway = await spawnGateway()
  const host = await startHost("buddy serve", gateway.home, deadlines)
  const post = (path: string, body: unknown) => host.request("POST", path, JSON.stringify(body))
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const operation = operations[Math.floor(next() * operations.length)]!
      const roll = next()
      const chaos: Chaos = roll < 0.6
        ? "restart, contract kept"
        : roll < 0.8
        ? "restart, contract dropped"
        : "killed and started again"
      const at = Math.floor(next() * 450)
      const beforeRoll = next()
      const first: Before = beforeRoll < 0.55
        ? "nothing"
        : beforeRoll < 0.75
        ? "the person approves"
        : beforeRoll < 0.9
        ? "a second buddy signs out"
        : "a second buddy starts"
      const say = (what: string) =>
        violations.push(`round ${round} (${first}, ${operation}, ${chaos} at ${at} ms): ${what}`)

      // A clean slate on an instance with the contract, then a sign-in held by the server.
      await gateway.clearFaults()
      await gateway.restart({ contract: true })
      await gateway.setSignedIn(operation === "sign-out")
      const started = await post("/api/buddy/sign-in/start", {})
      if (started.status !== 200) {
        say(`the round's own start answered ${started.status} ${started.body}`)
        continue
      }
      const { handle } = JSON.parse(started.body) as { readonly handle: string }
      const held = (await gateway.sessions()).at(-1)!
      count(`before: ${first}`)
      const approved = first === "the person approves" && (await gateway.approve(held.id))
      if (first === "the person approves" && !approved) say("the held session could not be approved")
      if (first === "a second buddy signs out" || first === "a second buddy starts") {
        const sentBefore = (await gateway.received()).length
        const said = await secondBuddy(
          first === "a second buddy signs out" ? ["sign-out"] : ["sign-in", "start"],
          gateway.home
        )
        if (said !== "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}") {
          say(`${first} beside the held sign-in answered ${said}`)
        }
        if ((await gateway.received()).length !== sentBefore) say(`${first} sent requests to Hermes`)
      }
      // Every step answers late, so the chaos lands inside the operation rather than before or after it.
      for (const step of ["identify", "session-ticket", "poll", "cancel", "sign-out", "start"] as const) {
        await gateway.fault(step, { kind: "late", ms: 40 + Math.floor(next() * 80) }, 2)
      }
      await gateway.clearReceived()

      const asked = operation === "poll" || operation === "cancel"
        ? post(`/api/buddy/sign-in/${operation}`, { handle })
        : operation === "sign-out"
        ? post("/api/buddy/sign-out", {})
        : post("/api/buddy/sign-in/start", {})
      await pause(at)
      const before = await gateway.received()
      if (chaos === "killed and started again") {
        await gateway.kill()
        retired.push(gateway)
        gateway = await spawnGateway({ home: gateway.home })
      } else {
        await gateway.restart({ contract: chaos === "restart, contract kept" })
      }
      count(chaos)
      const reply = await asked
      const body = JSON.parse(reply.body) as {
        readonly state?: string
        readonly reason?: string
        readonly kind?: string
      }
      count(`${operation} → ${reply.status} ${body.state ?? body.reason ?? ""}`)

      // Closed answers only.
      if (![200, 409, 503].includes(reply.status)) say(`answered ${reply.status} ${reply.body}`)

      // An ending of the held sign-in is claimed only on Hermes's word.
      const claimsEnded = reply.status === 200 &&
        (operation === "cancel" || operation === "sign-out" || operation === "start" ||
          (operation === "poll" && body.state !== "pending"))
      const now: FakeSession | undefined = (await gateway.sessions()).find((session) => session.id === held.id)
      if (claimsEnded) {
        count("ending claimed")
        // Killed: the old process, its worker and its session are gone; the new instance (with the contract) said so.
        const proved = now === undefined
          ? chaos === "killed and started again"
          : now.cancelled || !now.inMap || now.status !== "pending"
        if (!proved) say(`reported the sign-in ended (${reply.body}) while Hermes still holds it`)
        // A confirmed cancel means the worker can never save it.
        if (now !== undefined && now.cancelled && (await gateway.approve(held.id))) {
          say("a session reported cancelled could still save a sign-in")
        }
      }

      // Nothing sent twice: each request line at most once across the operation (both instances, same process).
      // The same process keeps one record across a restart; a new process starts its own.
      const after = await gateway.received()
      const lines = new Map<string, number>()
      for (const entry of [...before, ...(chaos === "killed and started again" ? after : after.slice(before.length))]) {
        if (entry.channel !== "http") continue
        const line = `${entry.method} ${entry.path}`
        lines.set(line, (lines.get(line) ?? 0) + 1)
      }
      for (const [line, times] of lines) if (times > 1) say(`${line} sent ${times} times`)

      // The server still answers.
      await gateway.clearFaults()
      const status = await host.request("GET", "/api/buddy")
      if (status.status !== 200) say(`GET /api/buddy answered ${status.status}`)

      // What the holder reads of its sign-in never contradicts what Hermes saved.
      const holderReads = JSON.parse((await post("/api/buddy/sign-in/poll", { handle })).body) as {
        readonly state?: string
      }
      const record = (await gateway.sessions()).find((session) => session.id === held.id)
      if (contradicts(holderReads.state, approved, record?.status)) {
        count("ending contradicting Hermes")
        say(`its holder reads ${holderReads.state} while Hermes's session is ${record?.status ?? "gone"}`)
      }
      if (operation === "cancel" && reply.status === 200 && contradicts(body.state, approved, record?.status)) {
        say(`the cancel answered ${body.state} while Hermes's session is ${record?.status ?? "gone"}`)
      }
    }
  } finally {
    await host.close()
    await gateway.close()
    for (const old of retired) await old.close()
  }

  const section = await writeQualitySection("chaos", [
    "## Restart chaos",
    "",
    `Run by \`npm run chaos\` on ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, seed ${seed}: ` +
    `${ROUNDS} rounds through \`buddy serve\`'s own server (deadlines control 300 ms, API 300 ms, start 600 ms), ` +
    "each a held sign-in, then a poll, cancel, sign-out or replacing start whose every step Hermes answers 40–120 ms " +
    "late, and at a random moment (0–450 ms) inside it the gateway restarted or was killed and started again. " +
    "Before the operation, in 45 % of the rounds, the person approves the held sign-in or a second buddy process " +
    "(the CLI) tries to sign out or start beside it. Besides the promises of every round, the holder's reading " +
    "of its sign-in afterwards must not contradict what Hermes saved (`signed-in` only after an approval, " +
    "`cancelled` or another ending never after one; `lost` claims only that Hermes let the session go), and the " +
    "second buddy must be refused, sending nothing.",
    "",
    "| what | count |",
    "|---|---|",
    ...[...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, times]) => `| ${key} | ${times} |`),
    "",
    `**Violations: ${violations.length}.**${violations.length === 0 ? "" : ` ${violations.slice(0, 20).join("; ")}`}`
  ])
  console.log(section)
  expect(violations).toStrictEqual([])
})
