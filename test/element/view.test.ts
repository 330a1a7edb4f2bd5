// The card's view (src/element/view.ts): each client result becomes the closed view the card draws,
// and a view's change event carries its closed values only, never the code, the page or the handle.
import { describe, expect, it } from "vitest"
import {
  changeOf,
  fromCancel,
  fromPoll,
  fromSignOut,
  fromStart,
  fromStatus,
  minutesWaited,
  type View
} from "../../src/element/view.js"

const CODE = "ABCD-EFGHK"
const PAGE = "https://auth.openai.com/codex/device"
const HANDLE = "0123456789abcdef0123456789abcdef"
const pending: View = { kind: "pending", code: CODE, page: PAGE, since: 1_000 }

const refusals = [
  [{ kind: "blocked", reason: "sign-in-running" }, { view: "blocked", reason: "sign-in-running" }],
  [{ kind: "unavailable", reason: "timeout" }, { view: "unavailable", reason: "timeout" }],
  [{ kind: "denied", reason: "origin-mismatch" }, { view: "denied", reason: "origin-mismatch" }],
  [{ kind: "error", error: "operation-failed" }, { view: "error", error: "operation-failed" }],
  [{ kind: "front-door", status: 401 }, { view: "front-door" }],
  [{ kind: "network-failed" }, { view: "network-failed" }],
  [{ kind: "unknown-answer", status: 418 }, { view: "unknown-answer" }]
] as const

describe("the card's view of each result", () => {
  it("a status: Buddy's state, its reason, and a sign-in held elsewhere", () => {
    expect(fromStatus({ kind: "buddy", state: "works", signIn: { state: "none" }, locale: "cs" })).toStrictEqual({
      kind: "buddy",
      state: "works",
      reason: undefined,
      signIn: "none"
    })
    expect(
      fromStatus({ kind: "buddy", state: "unknown", reason: "not-running", signIn: { state: "pending" }, locale: "en" })
    ).toStrictEqual({ kind: "buddy", state: "unknown", reason: "not-running", signIn: "pending" })
  })

  it("a start: pending with its code and page since now, or the problem", () => {
    expect(fromStart({ kind: "sign-in", state: "pending", handle: HANDLE, code: CODE, page: PAGE }, 42)).toStrictEqual({
      kind: "pending",
      code: CODE,
      page: PAGE,
      since: 42
    })
    expect(fromStart({ kind: "blocked", reason: "hermes-outdated" }, 42)).toStrictEqual({
      kind: "problem",
      problem: { kind: "blocked", reason: "hermes-outdated" }
    })
  })

  it("a poll: still pending keeps when it began; an ending ends; a poll that could not ask keeps the code up", () => {
    expect(fromPoll({ kind: "sign-in", state: "pending", code: CODE, page: PAGE }, pending)).toStrictEqual(pending)
    expect(fromPoll({ kind: "sign-in", state: "pending", code: CODE, page: PAGE }, { kind: "loading" })).toStrictEqual({
      ...pending,
      since: 0
    })
    expect(
      fromPoll({ kind: "sign-in", state: "pending", code: CODE, page: PAGE }, { ...pending, kind: "cancelling" })
    ).toStrictEqual(pending)
    expect(fromPoll({ kind: "sign-in", state: "expired" }, pending)).toStrictEqual({ kind: "ended", state: "expired" })
    for (
      const waiting of [{ kind: "unavailable", reason: "timeout" }, { kind: "network-failed" }, {
        kind: "unknown-answer",
        status: 502
      }] as const
    ) {
      expect(fromPoll(waiting, pending), waiting.kind).toBe(pending)
      expect(fromPoll(waiting, { kind: "starting" }), waiting.kind).toMatchObject({ kind: "problem" })
    }
    // The front door, or a refusal, ends the waiting: the card shows it.
    expect(fromPoll({ kind: "front-door", status: 302 }, pending)).toStrictEqual({
      kind: "problem",
      problem: { kind: "front-door" }
    })
    expect(fromPoll({ kind: "blocked", reason: "sign-in-unknown" }, pending)).toStrictEqual({
      kind: "problem",
      problem: { kind: "blocked", reason: "sign-in-unknown" }
    })
  })

  it("a cancel and a sign-out: their endings, or the problem", () => {
    expect(fromCancel({ kind: "sign-in", state: "cancelled" })).toStrictEqual({ kind: "ended", state: "cancelled" })
    expect(fromCancel({ kind: "blocked", reason: "sign-in-running" })).toMatchObject({ kind: "problem" })
    expect(fromSignOut({ kind: "sign-out", state: "signed-out" })).toStrictEqual({ kind: "signed-out" })
    expect(fromSignOut({ kind: "unavailable", reason: "lost" })).toStrictEqual({
      kind: "problem",
      problem: { kind: "unavailable", reason: "lost" }
    })
  })

  it("each refusal and trouble is its own problem, and its event names it", () => {
    for (const [result, change] of refusals) {
      expect(changeOf(fromStatus(result)), result.kind).toStrictEqual(change)
      expect(changeOf(fromCancel(result)), result.kind).toStrictEqual(change)
    }
  })
})

describe("the card's change event", () => {
  it("carries the closed values only: never the code, the page or the handle", () => {
    const views: ReadonlyArray<View> = [
      { kind: "loading" },
      { kind: "starting" },
      pending,
      { ...pending, kind: "cancelling" },
      { kind: "ended", state: "signed-in" },
      { kind: "confirm-sign-out" },
      { kind: "signing-out" },
      { kind: "signed-out" },
      { kind: "buddy", state: "waits", reason: undefined, signIn: "none" },
      { kind: "buddy", state: "unknown", reason: "timeout", signIn: "pending" }
    ]
    expect(views.map(changeOf)).toStrictEqual([
      { view: "loading" },
      { view: "starting" },
      { view: "pending" },
      { view: "cancelling" },
      { view: "ended", state: "signed-in" },
      { view: "confirm-sign-out" },
      { view: "signing-out" },
      { view: "signed-out" },
      { view: "buddy", state: "waits", signIn: "none" },
      { view: "buddy", state: "unknown", reason: "timeout", signIn: "pending" }
    ])
    for (const view of views) {
      const said = JSON.stringify(changeOf(view))
      for (const secret of [CODE, PAGE, HANDLE, "1000"]) expect(said).not.toContain(secret)
    }
  })

  it("counts whole minutes waited, never below zero", () => {
    expect([0, 59_999, 60_000, 119_999, 600_000].map((at) => minutesWaited(0, at))).toStrictEqual([0, 0, 1, 1, 10])
    expect(minutesWaited(60_000, 0)).toBe(0)
  })
})
