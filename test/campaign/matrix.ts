// The fault campaign (issue 9 item 1): every fault the fake gateway can play × every step it can
// play it at × every route of ours, each cell run through `buddy serve`'s own server (serveOn in a
// child) against the fake gateway in another process. A cell holds when all of C6/C3/C4's promises
// hold for it: a closed answer within its deadline, the right journal line, nothing resent but a
// 401's one retry, no provider DELETE after an unconfirmed cancel, no ending without Hermes's word,
// and no Hermes text or secret in the answer, the journal or stderr. Since issue 16 also: no ending,
// in the answer or as its holder reads it afterwards, that contradicts what Hermes saved (an approval
// before a cancel or a replacement), and a second buddy process (the CLI) changes nothing beside a
// held sign-in.
import { Schema } from "effect"
import type { FakeSession, Fault, FaultRoute, Received } from "../../fixtures/fake-gateway.js"
import {
  BlockedAnswer,
  BuddyAnswer,
  CancelAnswer,
  PollAnswer,
  SignOutAnswer,
  StartAnswer,
  UnavailableAnswer
} from "../../src/schema/routes.js"
import { type DeadlinesMs, type Host, startHost } from "../boundary/support/hosts.js"
import { type Running, spawnBuddy } from "../cli/support/buddy-process.js"
import { type RemoteGateway, spawnGateway } from "../support/gateway-process.js"

export const deadlines: DeadlinesMs = { control: 1000, api: 1000, start: 2000 }
const MARGIN_MS = 2000

/** Planted in every text a fault makes Hermes say: it must never come out of buddy. */
export const CANARY = "CANARY-hermes-text-7f3a"

export type Step = "identify" | "session-ticket" | "providers" | "start" | "poll" | "cancel" | "sign-out" | "between"
export type RouteName =
  | "status"
  | "status (held)"
  | "start"
  | "start (replacing)"
  | "poll"
  | "cancel"
  | "sign-out"
  | "sign-out (held)"

/** Which steps each route asks Hermes for; a fault at any other step cannot touch it. */
const stepsOf: Readonly<Record<RouteName, ReadonlyArray<Step>>> = {
  status: ["identify", "session-ticket", "providers", "between"],
  // A status read polls the held sign-in before the card (C5).
  "status (held)": ["identify", "session-ticket", "poll", "providers", "between"],
  start: ["identify", "session-ticket", "start", "between"],
  // Every cancel of a held sign-in polls it first (C4.7).
  "start (replacing)": ["identify", "session-ticket", "poll", "cancel", "start", "between"],
  poll: ["identify", "session-ticket", "poll", "between"],
  cancel: ["identify", "session-ticket", "poll", "cancel", "between"],
  "sign-out": ["identify", "session-ticket", "sign-out", "between"],
  "sign-out (held)": ["identify", "session-ticket", "poll", "cancel", "sign-out", "between"]
}

const holds = (route: RouteName) => route !== "status" && route !== "start" && route !== "sign-out"
export const routeNames = Object.keys(stepsOf) as ReadonlyArray<RouteName>

const control = (step: Step) => step === "identify" || step === "session-ticket"
const http = (step: Step) => !control(step) && step !== "between"

/** What an event before the route can touch: the gateway and, where the route holds one, its session. */
export interface Scene {
  readonly gateway: RemoteGateway
  readonly step: Step
  readonly heldId: string | undefined
  /** Processes the event leaves running, stopped after the cell. */
  readonly leftRunning: Array<Running>
}

interface FaultCase {
  readonly name: string
  /** Whether it applies at this step. */
  readonly at: (step: Step) => boolean
  /** Only these routes (default: every route asking Hermes for the step). */
  readonly routes?: (route: RouteName) => boolean
  /**
   * The fault itself, or an event played on the gateway just before the route is asked; an event
   * may say what broke a promise already (a second buddy that changed something beside a held one).
   */
  readonly play: (scene: Scene) => Promise<void | ReadonlyArray<string>>
  /** The 401 the client may resend once. */
  readonly refusesTicket?: boolean
  /** Hermes's own word that the session is gone, though the fake still holds it: an ending buddy may trust. */
  readonly provesGone?: boolean
  /** Played by another buddy process (the built CLI), whose requests are its own and cleared after it. */
  readonly byAnotherProcess?: boolean
}

const fault = (f: Fault | ((step: Step) => Fault), times = 1) => ({ gateway, step }: Scene) =>
  gateway.fault(step as FaultRoute, typeof f === "function" ? f(step) : f, times)

/**
 * A second buddy process (the CLI in a terminal) runs `args` against the same home, before the route.
 * Beside a held sign-in it must be blocked and send nothing (C4.1); otherwise it does its work. Its
 * requests are its own, so the gateway's record is cleared after it: the route's count starts afresh.
 */
const secondBuddy = (args: ReadonlyArray<string>, waitFor: "exit" | "first line") => async (scene: Scene) => {
  const { gateway, heldId } = scene
  const before = (await gateway.received()).length
  const other = spawnBuddy([...args, "--json", "--home", gateway.home], { stoppedByCaller: true })
  scene.leftRunning.push(other)
  const said = waitFor === "exit"
    ? (await other.finished).stdout
    : await other.stdoutLines(1).catch(() => other.finished.then((done) => done.stdout))
  const sent = (await gateway.received()).slice(before)
  await gateway.clearReceived()
  if (heldId === undefined) return []
  const blocked = said[0] === "{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}"
  return [
    ...(blocked ? [] : [`a second buddy's ${args.join(" ")} beside the held sign-in answered ${said.join(" ")}`]),
    ...(sent.length === 0
      ? []
      : [`a second buddy's ${args.join(" ")} beside the held sign-in sent ${sent.length} requests`])
  ]
}

const malformedIdentify = JSON.stringify({
  ok: true,
  protocol: 1,
  id: 1,
  result: { kind: "hermes-gateway", runtime_protocol: 2, instance_id: CANARY, note: CANARY }
})
const malformedTicket = JSON.stringify({
  ok: true,
  protocol: 1,
  id: 1,
  result: { ticket: `${CANARY}/not-url-safe`, runtime_protocol: 1, profile_id: CANARY, instance_id: CANARY }
})

export const faultCases: ReadonlyArray<FaultCase> = [
  { name: "500 with Hermes's text", at: http, play: fault({ kind: "status", status: 500, body: { detail: CANARY } }) },
  {
    name: "503 not ready",
    at: http,
    play: fault({ kind: "status", status: 503, body: { error: "gateway_not_ready", state: CANARY } })
  },
  { name: "reset", at: (step) => step !== "between", play: fault({ kind: "reset" }) },
  {
    name: "no JSON",
    at: (step) => step !== "between",
    play: fault((step) => control(step) ? { kind: "raw", body: `${CANARY}\n` } : { kind: "raw", body: `<p>${CANARY}` })
  },
  { name: "oversize", at: (step) => step !== "between", play: fault({ kind: "oversize" }) },
  { name: "late past the deadline", at: (step) => step !== "between", play: fault({ kind: "late", ms: 2500 }) },
  { name: "late within the deadline", at: (step) => step !== "between", play: fault({ kind: "late", ms: 100 }) },
  { name: "never answered", at: (step) => step !== "between", play: fault({ kind: "timeout" }) },
  {
    name: "ticket refused once",
    at: (step) => step === "session-ticket" || http(step),
    play: fault({ kind: "refuse-ticket" }),
    refusesTicket: true
  },
  {
    name: "ticket refused twice",
    at: http,
    play: fault({ kind: "refuse-ticket" }, 2),
    refusesTicket: true
  },
  {
    name: "malformed identify",
    at: (step) => step === "identify",
    play: fault({ kind: "reply", line: malformedIdentify })
  },
  {
    name: "malformed ticket",
    at: (step) => step === "session-ticket",
    play: fault({ kind: "reply", line: malformedTicket })
  },
  { name: "another session's confirmation", at: (step) => step === "cancel", play: fault({ kind: "other-session" }) },
  { name: "{ok:true} without an id", at: (step) => step === "cancel", play: fault({ kind: "ok-without-id" }) },
  {
    name: "another ok:false",
    at: (step) => step === "cancel",
    play: fault({ kind: "reply", body: { ok: false, message: CANARY } })
  },
  {
    name: "404 with Hermes's body",
    at: (step) => step === "poll" || step === "cancel",
    play: fault({ kind: "status", status: 404, body: { detail: "Session not found or expired" } }),
    provesGone: true
  },
  {
    name: "404 without Hermes's body",
    at: http,
    play: fault({ kind: "status", status: 404, body: { detail: "Not Found" } })
  },
  { name: "dashboard unavailable", at: http, play: fault({ kind: "dashboard-unavailable" }) },
  { name: "restart with the contract", at: (step) => step === "between", play: ({ gateway }) => gateway.restart() },
  {
    name: "restart without the contract",
    at: (step) => step === "between",
    play: ({ gateway }) => gateway.restart({ contract: false })
  },
  { name: "sweep", at: (step) => step === "between", play: ({ gateway }) => gateway.sweep() },
  {
    name: "the person approves first",
    at: (step) => step === "between",
    routes: holds,
    play: async ({ gateway, heldId }) => {
      if (heldId === undefined || !(await gateway.approve(heldId))) return ["the held session could not be approved"]
    }
  },
  {
    name: "a second buddy signs out",
    at: (step) => step === "between",
    play: secondBuddy(["sign-out"], "exit"),
    byAnotherProcess: true
  },
  {
    name: "a second buddy starts",
    at: (step) => step === "between",
    play: secondBuddy(["sign-in", "start"], "first line"),
    byAnotherProcess: true
  }
]

export interface Cell {
  readonly fault: FaultCase
  readonly step: Step
  readonly route: RouteName
}

/** Every cell whose fault applies at its step and whose route asks Hermes for that step. */
export const cells: ReadonlyArray<Cell> = faultCases.flatMap((fault) =>
  (["identify", "session-ticket", "providers", "start", "poll", "cancel", "sign-out", "between"] as const).flatMap((
    step
  ) =>
    fault.at(step)
      ? routeNames.filter((route) => stepsOf[route].includes(step) && (fault.routes?.(route) ?? true)).map((
        route
      ) => ({ fault, step, route }))
      : []
  )
)

export const cellName = (cell: Cell) => `${cell.fault.name} at ${cell.step} × ${cell.route}`

export interface CellResult {
  readonly cell: Cell
  readonly violations: ReadonlyArray<string>
  readonly answer: string
  readonly ms: number
}

const post = (host: Host, path: string, body: unknown) => host.request("POST", path, JSON.stringify(body))

const successOf: Readonly<Record<RouteName, Schema.Schema.Any>> = {
  status: BuddyAnswer,
  "status (held)": BuddyAnswer,
  start: StartAnswer,
  "start (replacing)": StartAnswer,
  poll: PollAnswer,
  cancel: CancelAnswer,
  "sign-out": SignOutAnswer,
  "sign-out (held)": SignOutAnswer
}

const operationOf = (route: RouteName) =>
  route.startsWith("status")
    ? undefined
    : route.startsWith("start")
    ? "start"
    : route.startsWith("sign-out")
    ? "sign-out"
    : route

const decodes = (schema: Schema.Schema.Any, body: unknown) =>
  Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown>, { onExcessProperty: "error" })(body)._tag ===
    "Right"

const lineOf = (entry: Received) => entry.channel === "http" ? `${entry.method} ${entry.path}` : entry.line

const deadlineOf = (step: Step) =>
  control(step) ? deadlines.control : step === "start" ? deadlines.start : deadlines.api

/**
 * Why an ending read for a session contradicts what Hermes saved, or nothing: `signed-in` needs an
 * approval, and `cancelled` none of Hermes's own endings before it; `expired`, `refused` and `failed`
 * (D8.3: an answer of no known shape, after a confirmed cancel) say nothing was saved, so an approval
 * contradicts them. `lost` claims only that Hermes let the session go, and `pending` or a refusal
 * claims no ending. (Whether an ending was claimed on Hermes's word at all is checked above.)
 */
const contradicts = (state: string | undefined, saved: FakeSession | undefined): string | undefined => {
  const status = saved?.status
  switch (state) {
    case "signed-in":
      return status === "approved" ? undefined : `Hermes's session is ${status ?? "gone"}, never approved`
    case "cancelled":
      return status === "pending" || status === undefined ? undefined : `Hermes had already ${status} it`
    case "expired":
    case "refused":
    case "failed":
      return status === "approved" ? "Hermes had approved and saved it" : undefined
    default:
      return undefined
  }
}

/** Runs one cell on this gateway with a fresh server; the gateway is left restarted and clean. */
export const runCell = async (gateway: RemoteGateway, cell: Cell): Promise<CellResult> => {
  const violations: Array<string> = []
  const { route, step } = cell
  await gateway.clearFaults()
  await gateway.restart({ contract: true })
  await gateway.setSignedIn(route.startsWith("sign-out"))
  const host = await startHost("buddy serve", gateway.home, deadlines)
  const leftRunning: Array<Running> = []
  try {
    const needsHeld = holds(route)
    const held = needsHeld
      ? JSON.parse((await post(host, "/api/buddy/sign-in/start", {})).body) as { readonly handle: string }
      : undefined
    const heldSession = needsHeld ? (await gateway.sessions()).at(-1) : undefined
    await gateway.clearReceived()
    const journalBefore = host.journal()?.length ?? 0
    violations.push(...(await cell.fault.play({ gateway, step, heldId: heldSession?.id, leftRunning })) ?? [])

    const reply = route.startsWith("status")
      ? await host.request("GET", "/api/buddy")
      : route.startsWith("start")
      ? await post(host, "/api/buddy/sign-in/start", {})
      : route.startsWith("sign-out")
      ? await post(host, "/api/buddy/sign-out", {})
      : await post(host, `/api/buddy/sign-in/${route}`, { handle: held?.handle })
    const body: unknown = JSON.parse(reply.body)

    // A closed answer of C6, within the faulted step's deadline.
    const closed = reply.status === 200
      ? decodes(successOf[route], body)
      : reply.status === 409
      ? !route.startsWith("status") && decodes(BlockedAnswer, body)
      : reply.status === 503
      ? !route.startsWith("status") && decodes(UnavailableAnswer, body)
      : false
    if (!closed) violations.push(`answer not closed: ${reply.status} ${reply.body}`)
    if (reply.ms >= deadlineOf(step) + MARGIN_MS) violations.push(`answered after ${Math.round(reply.ms)} ms`)

    // One journal line per sign-in operation, saying what the answer said; none for a status read.
    const journal = (host.journal() ?? []).slice(journalBefore)
    const operation = operationOf(route)
    const record = body as { readonly state?: string; readonly reason?: string }
    const expected = operation === undefined
      ? []
      : [JSON.stringify({
        scope: "buddy-sign-in",
        operation,
        ...(reply.status === 200
          ? { outcome: record.state }
          : { outcome: reply.status === 409 ? "blocked" : "unavailable", reason: record.reason })
      })]
    if (JSON.stringify(journal) !== JSON.stringify(expected)) {
      violations.push(`journal ${JSON.stringify(journal)} instead of ${JSON.stringify(expected)}`)
    }

    // Nothing sent twice but a refused ticket's one retry.
    const received = await gateway.received()
    const sent = new Map<string, number>()
    for (const entry of received) {
      if (entry.channel === "http") sent.set(lineOf(entry), (sent.get(lineOf(entry)) ?? 0) + 1)
    }
    for (const [line, count] of sent) {
      if (count > (cell.fault.refusesTicket === true ? 2 : 1)) violations.push(`${line} sent ${count} times`)
    }

    // No provider DELETE unless the held sign-in ended first on Hermes's word.
    const sessions = await gateway.sessions()
    const heldNow = heldSession === undefined ? undefined : sessions.find((session) => session.id === heldSession.id)
    const heldEnded = heldNow !== undefined && (heldNow.cancelled || !heldNow.inMap || heldNow.status !== "pending")
    // (Hermes's own "not found" to the sign-out's first poll is its word, under the contract.)
    if (
      route === "sign-out (held)" && sent.has("DELETE /api/providers/oauth/openai-codex") && !heldEnded &&
      cell.fault.provesGone !== true
    ) {
      violations.push("provider DELETE sent while the held sign-in was not ended on Hermes")
    }

    // No ending without Hermes's word: an ending claimed for the held sign-in is one Hermes proved.
    const claimsEnded = (route === "cancel" && reply.status === 200) ||
      ((route === "start (replacing)" || route === "sign-out (held)") && reply.status === 200) ||
      (route === "poll" && reply.status === 200 && record.state !== "pending")
    if (claimsEnded && cell.fault.provesGone !== true && !heldEnded) {
      violations.push(`the held sign-in was reported ended (${reply.body}) while Hermes still holds it`)
    }

    // No Hermes text or secret in the answer, the journal or stderr.
    const secrets = [
      CANARY,
      "Session not found",
      "detail",
      gateway.home,
      await gateway.instanceId(),
      ...sessions.map((session) => session.id),
      ...(await gateway.ticketsMinted())
    ]
    const told = {
      answer: reply.body,
      journal: (host.journal() ?? []).join("\n"),
      stderr: (host.stderr() ?? []).join("\n")
    }
    for (const [where, text] of Object.entries(told)) {
      for (const secret of secrets) {
        if (secret !== "" && text.includes(secret)) violations.push(`${where} carries ${secret}`)
      }
      if (held !== undefined && where !== "answer" && text.includes(held.handle)) {
        violations.push(`${where} carries the handle`)
      }
    }
    if (held !== undefined && route !== "start (replacing)" && reply.body.includes(held.handle)) {
      violations.push("the answer carries the handle")
    }

    // The server still answers.
    await gateway.clearFaults()
    const after = await host.request("GET", "/api/buddy")
    if (after.status !== 200) violations.push(`GET /api/buddy afterwards answered ${after.status}`)

    // No ending that contradicts what Hermes saved: not in the answer, not as the holder reads it afterwards.
    if (held !== undefined && heldSession !== undefined) {
      const saved = (await gateway.sessions()).find((session) => session.id === heldSession.id)
      const holderReads = JSON.parse((await post(host, "/api/buddy/sign-in/poll", { handle: held.handle })).body) as {
        readonly state?: string
      }
      const answered = route === "cancel" || route === "poll" ? record.state : undefined
      for (const [who, state] of [["the answer", answered], ["its holder", holderReads.state]] as const) {
        const contradiction = contradicts(state, saved)
        if (contradiction !== undefined) violations.push(`${who} reads ${state} while ${contradiction}`)
      }
    }
    return { cell, violations, answer: `${reply.status} ${reply.body}`, ms: reply.ms }
  } finally {
    for (const other of leftRunning) other.child.kill("SIGTERM")
    await Promise.all(leftRunning.map((other) => other.finished))
    await host.close()
  }
}

/** Runs cells on `workers` gateways at once, in order of the list. */
export const runCampaign = async (
  list: ReadonlyArray<Cell>,
  workers: number,
  onCell: (result: CellResult) => void = () => {}
): Promise<ReadonlyArray<CellResult>> => {
  const results: Array<CellResult> = []
  let next = 0
  const worker = async () => {
    const gateway = await spawnGateway()
    try {
      while (next < list.length) {
        const cell = list[next++]!
        const result = await runCell(gateway, cell).catch((error: unknown) => ({
          cell,
          violations: [`the cell could not run: ${String(error)}`],
          answer: "",
          ms: 0
        }))
        results.push(result)
        onCell(result)
      }
    } finally {
      await gateway.close()
    }
  }
  await Promise.all(Array.from({ length: workers }, worker))
  return results
}
