// The deadline matrix of issue 8, for one host: each route that asks Hermes (status, start, poll,
// cancel, sign-out) × each step Hermes can stop answering at (identify, session-ticket, the route's
// own API call). The gateway runs in another process and never answers that one step; the host must
// give its closed answer within the step's deadline plus a margin, release the sign-in lock, and
// answer normally once the gateway does. Removing the interruptible deadline regions makes every
// case here hang: the fake never answers.
import { describe, expect, it } from "vitest"
import type { FaultRoute, HttpRoute } from "../../../fixtures/fake-gateway.js"
import { type RemoteGateway, spawnGateway } from "../../support/gateway-process.js"
import { type DeadlinesMs, type Host, type HostKind, type Reply, startHost } from "./hosts.js"

export const deadlines: DeadlinesMs = { control: 1000, api: 1000, start: 2000 }
/** Scheduling on a loaded 2-core machine, a process start on the other side: generous, and still far below "never". */
const MARGIN_MS = 1500

type RouteName = "status" | "start" | "poll" | "cancel" | "sign-out"
type Step = "identify" | "session-ticket" | "api"

const apiRouteOf: Readonly<Record<RouteName, HttpRoute>> = {
  status: "providers",
  start: "start",
  poll: "poll",
  cancel: "cancel",
  "sign-out": "sign-out"
}

const timeoutAnswer = { status: 503, body: { error: "buddy-unavailable", reason: "timeout" } }

/** What the route answers when the step never answers (C6, D8.1: a cancel Hermes never confirms is blocked). */
const hungAnswer = (route: RouteName, step: Step) => {
  if (route === "status") {
    return {
      status: 200,
      body: { kind: "buddy", state: "unknown", reason: "timeout", signIn: { state: "none" }, locale: "en" }
    }
  }
  if (route === "cancel" && step === "api") return { status: 409, body: { kind: "blocked", reason: "sign-in-running" } }
  return timeoutAnswer
}

const journalOutcome = (route: RouteName, step: Step) =>
  route === "cancel" && step === "api"
    ? { outcome: "blocked", reason: "sign-in-running" }
    : { outcome: "unavailable", reason: "timeout" }

const deadlineOf = (route: RouteName, step: Step) =>
  step === "api" ? (route === "start" ? deadlines.start : deadlines.api) : deadlines.control

const json = (reply: Reply) => ({ status: reply.status, body: JSON.parse(reply.body) as unknown })

interface Started {
  readonly handle: string
}

const post = (host: Host, path: string, body: unknown) => host.request("POST", path, JSON.stringify(body))

const call = (host: Host, route: RouteName, held: Started | undefined): Promise<Reply> => {
  switch (route) {
    case "status":
      return host.request("GET", "/api/buddy")
    case "start":
      return post(host, "/api/buddy/sign-in/start", {})
    case "poll":
      return post(host, "/api/buddy/sign-in/poll", { handle: held?.handle })
    case "cancel":
      return post(host, "/api/buddy/sign-in/cancel", { handle: held?.handle })
    case "sign-out":
      return post(host, "/api/buddy/sign-out", {})
  }
}

/** The requests the gateway received on this step, as lines. */
const onStep = async (gateway: RemoteGateway, route: RouteName, step: Step) => {
  const received = await gateway.received()
  if (step !== "api") {
    return received.filter((entry) => entry.channel === "control" && entry.line.includes(`"verb":"${step}"`)).length
  }
  const fragment = {
    status: "GET /api/providers/oauth",
    start: "POST /api/providers/oauth/openai-codex/start",
    poll: "GET /api/providers/oauth/openai-codex/poll/",
    cancel: "DELETE /api/providers/oauth/sessions/",
    "sign-out": "DELETE /api/providers/oauth/openai-codex"
  }[route]
  return received.filter((entry) =>
    entry.channel === "http" && `${entry.method} ${entry.path}`.startsWith(fragment) &&
    (route !== "status" || entry.path === "/api/providers/oauth") &&
    (route !== "sign-out" || entry.path === "/api/providers/oauth/openai-codex")
  ).length
}

const routeNames: ReadonlyArray<RouteName> = ["status", "start", "poll", "cancel", "sign-out"]
const steps: ReadonlyArray<Step> = ["identify", "session-ticket", "api"]

export const deadlineMatrix = (kind: HostKind) =>
  describe.concurrent(`${kind}: every route answers within its deadline when Hermes stops answering`, () => {
    for (const route of routeNames) {
      for (const step of steps) {
        it(
          `${route}, ${step === "api" ? `the ${apiRouteOf[route]} call` : step} never answered: ${
            hungAnswer(route, step).status
          } within the deadline, then answered normally`,
          async ({ onTestFinished }) => {
            // Per test, not afterEach: the cases run concurrently, each with its own gateway and host.
            const gateway = await spawnGateway()
            onTestFinished(() => gateway.close())
            const host = await startHost(kind, gateway.home, deadlines)
            onTestFinished(() => host.close())
            // poll and cancel need a sign-in held by this host, started while Hermes answers.
            const held = route === "poll" || route === "cancel"
              ? JSON.parse((await post(host, "/api/buddy/sign-in/start", {})).body) as Started
              : undefined
            const faultRoute: FaultRoute = step === "api" ? apiRouteOf[route] : step
            await gateway.fault(faultRoute, { kind: "timeout" }, 1)
            const before = await onStep(gateway, route, step)

            const hung = await call(host, route, held)
            expect(json(hung)).toStrictEqual(hungAnswer(route, step))
            const deadline = deadlineOf(route, step)
            expect(hung.ms).toBeGreaterThanOrEqual(deadline - 20)
            expect(hung.ms).toBeLessThan(deadline + MARGIN_MS)
            // The step was asked once and nothing was sent twice (C3).
            expect(await onStep(gateway, route, step)).toBe(before + 1)
            const journal = host.journal()
            if (journal !== undefined && route !== "status") {
              expect(journal.at(-1)).toBe(
                JSON.stringify({ scope: "buddy-sign-in", operation: route, ...journalOutcome(route, step) })
              )
            }

            // Hermes answers again: the lock was released with the deadline, and the same route is answered.
            if (route === "start" && step === "api") {
              // The start may have run on Hermes with its answer never heard: held without a holder (C4.6).
              expect(json(await host.request("GET", "/api/buddy")).body).toMatchObject({ signIn: { state: "pending" } })
              expect(json(await call(host, "start", undefined))).toStrictEqual({
                status: 409,
                body: { kind: "blocked", reason: "sign-in-running" }
              })
              await gateway.restart()
            }
            const again = json(await call(host, route, held))
            expect(again.status).toBe(200)
            expect(again.body).toMatchObject(
              {
                status: { kind: "buddy", state: "waits" },
                start: { kind: "sign-in", state: "pending" },
                poll: { kind: "sign-in", state: "pending" },
                cancel: { kind: "sign-in", state: "cancelled" },
                "sign-out": { kind: "sign-out", state: "signed-out" }
              }[route]
            )
          },
          30_000
        )
      }
    }
  })
