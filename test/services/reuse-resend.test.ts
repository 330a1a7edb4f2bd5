// C2 as amended by issue 36, as a property over the fault campaign's own table: a status read (as
// `GET /api/buddy` makes it: the held sign-in looked at, then the card read), with and without a kept
// identify, with and without a held sign-in, meeting every fault of the table at every step it applies
// to, at the first or the second time that step is asked. The fake gateway's record shows each HTTP
// request line sent at most once, but for the one resend C3 allows after a 401; and once the read's
// GET of the provider list has left, nothing follows it but that resend's mint and GET. It runs in the
// mutation suite (test/services), so a mutant that brings a resend back is killed here. Every case
// of the table is tried first, whatever the seed; random runs then chain reads on one process, so a
// kept identify carries over from a faulted read to the next.
import { Duration, Effect, FastCheck, Layer, ManagedRuntime } from "effect"
import { describe, expect, it } from "vitest"
import type { Received } from "../../fixtures/fake-gateway.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { HolderLockMemory } from "../../src/services/HolderLock.js"
import { JournalCapture } from "../../src/services/Journal.js"
import { buddyServices } from "../../src/services/layers.js"
import { SignIn } from "../../src/services/SignIn.js"
import { Status } from "../../src/services/Status.js"
import { Ticket } from "../../src/services/Ticket.js"
import { type Cell, cellName, cells } from "../campaign/matrix.js"
import { params } from "../fuzz/support/runs.js"
import { gatewayProcess, type RemoteGateway } from "../support/gateway-process.js"

const fc = FastCheck

// Short, so that the table's faults past a deadline cost little; "late within the deadline" (100 ms)
// stays well within them.
const deadlines = { control: Duration.millis(400), api: Duration.millis(400), start: Duration.millis(800) }

const services = (home: string) =>
  buddyServices(HolderLockMemory()).pipe(
    Layer.provideMerge(JournalCapture),
    Layer.provide(BuddyConfig.gatewayLayer({ hermesHome: home, deadlines }))
  )

/** A status read as `GET /api/buddy` makes it (src/http/routes.ts): the held sign-in, then the card. */
const statusRead = Effect.gen(function*() {
  const signIn = yield* (yield* SignIn).current
  const buddy = yield* (yield* Status).read
  return { signIn, buddy }
})

/** The table's cells a status read meets; the second buddy's two are the CLI's, run by the campaign. */
const statusCells = cells.filter((cell) => cell.route.startsWith("status") && cell.fault.byAnotherProcess !== true)

interface Read {
  readonly cell: Cell
  /** How many times the faulted step is asked without a fault before the fault is met. */
  readonly skip: 0 | 1
}

interface Scenario {
  /** A sign-in held by this process (its start's identify is the kept one, and each read polls it). */
  readonly held: boolean
  /** Whether the identify of the read before is kept (otherwise it is forgotten before the first read). */
  readonly kept: boolean
  readonly reads: ReadonlyArray<Read>
}

const skippable = (cell: Cell) =>
  cell.step === "identify" || cell.step === "session-ticket" || cell.step === "providers"

/**
 * The mutation run (vitest.mutation.config.ts) tries each cell, kept or not, once, leaving out the two
 * faults that only wait past a deadline (0.4 s each, and a resend after them is a resend after any
 * failed GET, which the 500 and the reset cells already show) and the second asks: a mutant meets this
 * property after every faster test of its, so it stays a few seconds (D48). `npm test` tries them all.
 */
const mutationRun = process.env["MUTATION_RUN"] === "1"
const waitsOnly = (cell: Cell) => cell.fault.name === "late past the deadline" || cell.fault.name === "never answered"

/** Every cell, kept or not, met the first time; and, where a step can be asked twice in one read, the second. */
const everyCase: Array<[Scenario]> = statusCells.filter((cell) => !(mutationRun && waitsOnly(cell))).flatMap((
  cell
) =>
  [false, true].flatMap((kept) =>
    ([0, 1] as const).filter((skip) => skip === 0 || (skippable(cell) && !mutationRun)).map((skip): [Scenario] => [{
      held: cell.route === "status (held)",
      kept,
      reads: [{ cell, skip }]
    }])
  )
)

const scenarios: FastCheck.Arbitrary<Scenario> = fc.boolean().chain((held) =>
  fc.record({
    held: fc.constant(held),
    kept: fc.boolean(),
    reads: fc.array(
      fc.record({
        cell: fc.constantFrom(...statusCells.filter((cell) => (cell.route === "status (held)") === held)),
        skip: fc.constantFrom(0 as const, 1 as const)
      }),
      { minLength: 1, maxLength: 3 }
    )
  })
)

const PROVIDERS = "GET /api/providers/oauth"
const lineOf = (entry: Received) =>
  entry.channel === "http" ? `${entry.method} ${entry.path}` : (JSON.parse(entry.line) as { verb: string }).verb

/** Why this read's record breaks C2/C3's "nothing is sent twice", or nothing. */
export const resent = (received: ReadonlyArray<string>, refusesTicket: boolean): ReadonlyArray<string> => {
  const broken: Array<string> = []
  const counts = new Map<string, number>()
  for (const line of received.filter((entry) => entry.includes(" "))) counts.set(line, (counts.get(line) ?? 0) + 1)
  for (const [line, count] of counts) {
    if (count > (refusesTicket ? 2 : 1)) broken.push(`${line} sent ${count} times`)
  }
  const first = received.indexOf(PROVIDERS)
  const after = first < 0 ? [] : received.slice(first + 1)
  const allowed = refusesTicket ? [[], ["session-ticket"], ["session-ticket", PROVIDERS]] : [[]]
  if (!allowed.some((one) => JSON.stringify(one) === JSON.stringify(after))) {
    broken.push(`after the provider list's GET: ${after.join(", ")}`)
  }
  return broken
}

const runScenario = async (gateway: RemoteGateway, scenario: Scenario): Promise<ReadonlyArray<string>> => {
  await gateway.clearFaults()
  await gateway.restart({ contract: true })
  await gateway.setSignedIn(true)
  const runtime = ManagedRuntime.make(services(gateway.home))
  const broken: Array<string> = []
  try {
    if (scenario.held) await runtime.runPromise(Effect.flatMap(SignIn, (signIn) => signIn.start))
    const heldId = scenario.held ? (await gateway.sessions()).at(-1)?.id : undefined
    // Not held: a read keeps its identify. Held: the start's identify is kept, and each read polls first.
    if (scenario.kept && !scenario.held) await runtime.runPromise(statusRead)
    if (!scenario.kept) await runtime.runPromise(Effect.flatMap(Ticket, (ticket) => ticket.forget))
    for (const { cell, skip } of scenario.reads) {
      await gateway.clearFaults()
      await gateway.clearReceived()
      // A fault that only waits a millisecond lets the step's first ask through.
      if (skip > 0 && cell.step !== "between") await gateway.fault(cell.step, { kind: "late", ms: 1 }, skip)
      await cell.fault.play({ gateway, step: cell.step, heldId, leftRunning: [] })
      const answer = await runtime.runPromise(statusRead)
      const received = (await gateway.received()).map(lineOf)
      const name = `${cellName(cell)}${skip > 0 ? " (its second ask)" : ""}, kept ${scenario.kept}`
      expect(["works", "waits", "unknown"], name).toContain(answer.buddy.state)
      broken.push(...resent(received, cell.fault.refusesTicket === true).map((why) => `${name}: ${why}`))
    }
  } finally {
    await runtime.dispose()
  }
  return broken
}

describe("a status read sends nothing twice, whatever fault it meets, with or without a kept identify (C2, C3)", () => {
  it("the property's own check: a resend, and anything after the list's GET but a 401's resend, is caught", () => {
    expect(resent(["identify", "session-ticket", PROVIDERS], false)).toStrictEqual([])
    expect(resent(["session-ticket", PROVIDERS, "session-ticket", PROVIDERS], true)).toStrictEqual([])
    expect(resent(["session-ticket", PROVIDERS, "session-ticket"], true)).toStrictEqual([])
    expect(resent(["session-ticket", "identify", "session-ticket", PROVIDERS], false)).toStrictEqual([])
    expect(resent(["session-ticket", PROVIDERS, "identify", "session-ticket", PROVIDERS], false)).toStrictEqual([
      `${PROVIDERS} sent 2 times`,
      `after the provider list's GET: identify, session-ticket, ${PROVIDERS}`
    ])
    expect(resent(["session-ticket", PROVIDERS, "identify"], false)).toStrictEqual([
      "after the provider list's GET: identify"
    ])
    expect(resent([PROVIDERS, "session-ticket", PROVIDERS, "session-ticket", PROVIDERS], true)).toStrictEqual([
      `${PROVIDERS} sent 3 times`,
      `after the provider list's GET: session-ticket, ${PROVIDERS}, session-ticket, ${PROVIDERS}`
    ])
    expect(resent(["GET /p/1", "GET /p/1", PROVIDERS], false)).toStrictEqual(["GET /p/1 sent 2 times"])
  })

  it(
    `every fault of the campaign's table at every step (${everyCase.length} cases first), then chained reads`,
    async () => {
      const gateway = await gatewayProcess({ signedIn: true })
      const broken: Array<string> = []
      let tried = 0
      await fc.assert(
        fc.asyncProperty(scenarios, async (scenario) => {
          tried += 1
          const found = await runScenario(gateway, scenario)
          broken.push(...found)
          expect(found).toStrictEqual([])
        }),
        { ...params<[Scenario]>(everyCase.length + (mutationRun ? 0 : 20)), examples: everyCase }
      )
      expect(broken).toStrictEqual([])
      expect(tried).toBeGreaterThanOrEqual(everyCase.length)
      // Every fault of the table a status read can meet, but the second buddy's, is among the cases.
      expect(new Set(everyCase.map(([scenario]) => scenario.reads[0]?.cell.fault.name)).size).toBe(
        new Set(statusCells.filter((cell) => !(mutationRun && waitsOnly(cell))).map((cell) => cell.fault.name)).size
      )
    },
    600_000
  )
})
