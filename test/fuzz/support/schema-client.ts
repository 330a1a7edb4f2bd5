// The oracle for the browser client's checks (docs/decisions.md D45): `decodeAnswer` as the client
// wrote it before D45, straight from the route table's Schemas (`Schema.parseJson` of each success
// and refusal Schema, excess properties an error) and the table's statuses. The client now checks
// against shapes generated from those Schemas; test/fuzz/client-answers.test.ts holds the two equal.
import { Either, Schema } from "effect"
import type { Refusal, Result, Trouble } from "../../../src/client/decode.js"
import {
  BlockedAnswer,
  DeniedAnswer,
  ErrorAnswer,
  type Operation,
  pathRefusals,
  type RefusalName,
  refusals,
  refusalsOf,
  serverRefusals,
  UnavailableAnswer
} from "../../../src/schema/routes.js"

export const strict = { onExcessProperty: "error" } as const

/** Every refusal body the table has, as one Schema. */
export const RefusalAnswer = Schema.Union(ErrorAnswer, DeniedAnswer, BlockedAnswer, UnavailableAnswer)
const decodeRefusal = Schema.decodeUnknownEither(Schema.parseJson(RefusalAnswer), strict)

/** The refusal a body says, and the table's name for it. */
export const refusalOf = (body: typeof RefusalAnswer.Type): readonly [RefusalName, Refusal] => {
  if ("kind" in body) return [body.reason, { kind: "blocked", reason: body.reason }]
  switch (body.error) {
    case "denied":
      return [body.reason, { kind: "denied", reason: body.reason }]
    case "buddy-unavailable":
      return ["buddy-unavailable", { kind: "unavailable", reason: body.reason }]
    default:
      return [body.error, { kind: "error", error: body.error }]
  }
}

/** What the Schemas make of an answer of `operation`: the client's result before D45. */
export const decodeBySchema = (operation: Operation, status: number, text: string): Result<unknown> => {
  const unknown: Trouble = { kind: "unknown-answer", status }
  if (status === 200) {
    return Either.getOrElse(
      Schema.decodeUnknownEither(Schema.parseJson(operation.success), strict)(text),
      (): Result<unknown> => unknown
    )
  }
  const possible = [...refusalsOf(operation), ...pathRefusals, ...serverRefusals].filter((name) =>
    refusals[name].status === status
  )
  return Either.match(decodeRefusal(text), {
    onLeft: () => unknown,
    onRight: (body) => {
      const [name, refusal] = refusalOf(body)
      return possible.includes(name) ? refusal : unknown
    }
  })
}
