// The client's decoding of a text body, made synchronously for the tests' tables: src's `readBody`
// is a promise (it says "not JSON" without a try/catch), and test/client/decode.test.ts holds this
// helper's body equal to it on JSON and on what is not.
import type { OperationId } from "../../../src/client/answers.js"
import { type Body, decodeAnswer } from "../../../src/client/decode.js"

/** `{json}` for JSON text, `{text}` for anything else: what `readBody` resolves to. */
export const bodyOfText = (text: string): Body => {
  try {
    return { json: JSON.parse(text) }
  } catch {
    return { text }
  }
}

/** `decodeAnswer` of a text body. */
export const decodeText = <Id extends OperationId>(
  operation: { readonly operationId: Id },
  status: number,
  text: string
) => decodeAnswer(operation, status, bodyOfText(text))
