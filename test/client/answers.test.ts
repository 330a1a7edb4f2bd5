// The client's types are plain TypeScript (src/client/answers.ts, generated), so a front end with only
// @lazurio/buddy installed type-checks them exactly (issue 37): each must be the very type its Schema
// has, which `tsc` proves here (npm run typecheck compiles the tests); a type that drifted one way or
// the other stops the compile. The closed values' lists are held to the Schemas' literals at run time.
import { describe, expect, it } from "vitest"
import { closedValues } from "../../scripts/client-wire.js"
import type * as Plain from "../../src/client/answers.js"
import type { RefusalAnswer as ClientRefusalAnswer } from "../../src/client/decode.js"
import type { PollResult, StatusResult } from "../../src/client/index.js"
import * as Reasons from "../../src/schema/reasons.js"
import type * as Routes from "../../src/schema/routes.js"

/** `true` only when A and B are the same type (each assignable to the other, and no `any`). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

const same = <A, B>(proof: Same<A, B>) => proof

describe("the client's plain types", () => {
  it("are the Schemas' own types, each of them", () => {
    expect([
      same<Plain.BuddyAnswer, Routes.BuddyAnswer>(true),
      same<Plain.StartAnswer, Routes.StartAnswer>(true),
      same<Plain.PollAnswer, Routes.PollAnswer>(true),
      same<Plain.CancelAnswer, Routes.CancelAnswer>(true),
      same<Plain.SignOutAnswer, Routes.SignOutAnswer>(true),
      same<Plain.OpenApiAnswer, typeof Routes.OpenApiAnswer.Type>(true),
      same<
        ClientRefusalAnswer,
        Routes.ErrorAnswer | Routes.DeniedAnswer | Routes.BlockedAnswer | Routes.UnavailableAnswer
      >(
        true
      ),
      same<Plain.GatewayReason, Reasons.GatewayReason>(true),
      same<Plain.BlockedReason, Reasons.BlockedReason>(true),
      same<Plain.SignInState, Reasons.SignInState>(true),
      same<Plain.BuddyState, Reasons.BuddyState>(true),
      same<Plain.DeniedReason, Routes.DeniedReason>(true),
      same<Plain.PlainError, Routes.PlainError>(true),
      same<Plain.RefusalName, Routes.RefusalName>(true),
      same<Plain.OperationId, keyof typeof Routes.operations>(true),
      same<Plain.Locale, Routes.BuddyAnswer["locale"]>(true)
    ]).not.toContain(false)
    // The proof can fail: a type one literal short is not the same.
    expect(same<Plain.GatewayReason, Exclude<Reasons.GatewayReason, "lost">>(false)).toBe(false)
  })

  it("name nothing of effect: a status result's state is exactly Buddy's three", () => {
    const _state = (result: StatusResult) => (result.kind === "buddy" ? result.state : undefined)
    expect(same<ReturnType<typeof _state>, Plain.BuddyState | undefined>(true)).toBe(true)
    const _ending = (
      result: PollResult
    ) => (result.kind === "sign-in" && result.state !== "pending" ? result.state : undefined)
    expect(same<ReturnType<typeof _ending>, Plain.SignInEnding | undefined>(true)).toBe(true)
  })

  it("list each closed value the Schemas list, in their order", () => {
    expect(closedValues.GatewayReason).toStrictEqual(Reasons.GatewayReason.literals)
    expect(closedValues.BlockedReason).toStrictEqual(Reasons.BlockedReason.literals)
    expect(closedValues.SignInState).toStrictEqual(Reasons.SignInState.literals)
    expect(closedValues.BuddyState).toStrictEqual(Reasons.BuddyState.literals)
    expect(closedValues.SignInEnding).toStrictEqual(["signed-in", "expired", "refused", "lost", "failed", "cancelled"])
  })
})
