// The oracle for the browser client's checks (docs/decisions.md D45): `decodeAnswer` as the client
// wrote it before D45, straight from the route table's Schemas (`Schema.parseJson` of each success
// and refusal Schema, excess properties an error) and the table's statuses. The client now checks
// against shapes generated from those Schemas; test/fuzz/client-answers.test.ts holds the two equal.
import { Either, Schema } from "effect"
import { refusalOf, type Result, type Trouble, troubleOf } from "../../../src/client/decode.js"
import {
  BlockedAnswer,
  DeniedAnswer,
  ErrorAnswer,
  type Operation,
  pathRefusals,
  refusals,
  refusalsOf,
  serverRefusals,
  UnavailableAnswer
} from "../../../src/schema/routes.js"
import { bodyOfText } from "../../client/support/decode-text.js"

export const strict = { onExcessProperty: "error" } as const

/** Every refusal body the table has, as one Schema. */
export const RefusalAnswer = Schema.Union(ErrorAnswer, DeniedAnswer, BlockedAnswer, UnavailableAnswer)
const decodeRefusal = Schema.decodeUnknownEither(Schema.parseJson(RefusalAnswer), strict)

// How a refusal body becomes a result is the client's own `refusalOf`, not the Schemas': shared, and
// pinned answer by answer against the real app in test/client/client.test.ts.
export { refusalOf, troubleOf }

/** What the Schemas make of an answer of `operation`: the client's result before D45. */
export const decodeBySchema = (operation: Operation, status: number, text: string): Result<unknown> => {
  // What is none of the table's answers the client classes by itself (the front door, or unknown):
  // not a matter of the Schemas, so the oracle shares the client's `troubleOf`.
  const unknown: Trouble = troubleOf(status, bodyOfText(text))
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
