// A journal's lines that its stream could not take (issue 39, D58): stdout on a full disk (ENOSPC),
// closed (EPIPE), or destroyed. Such a line is lost, never the operation it records (D15); the
// first loss is said once on stderr, the total when the journal ends, so an operator reading the
// service's stderr (systemd's journal) learns that the record has a hole and how large. The words
// name the failure's code only: never a line's content, never what the error's message says.
import { Option, Schema } from "effect"

/**
 * A system error's code (ENOSPC, EPIPE) or Node's own (ERR_STREAM_DESTROYED): capitals, digits and
 * underscores, so that whatever else an error carries cannot reach stderr through it.
 */
const ErrorCode = Schema.Struct({ code: Schema.String.pipe(Schema.pattern(/^[A-Z][A-Z0-9_]{0,39}$/)) })
const decodeErrorCode = Schema.decodeUnknownOption(ErrorCode)

/** What the words say failed: the error's code; "closed" for a stream ended without an error. */
export const failureCode = (error: unknown): string =>
  error === undefined || error === null
    ? "closed"
    : Option.match(decodeErrorCode(error), { onNone: () => "unknown", onSome: ({ code }) => code })

/** Said at the first line lost. */
export const losingWords = (code: string) =>
  `buddy: the journal could not be written (${code}); its lines are being lost\n`

/** Said when the journal ends, if any line was lost. */
export const lostWords = (lost: number, code: string) =>
  `buddy: ${lost} journal ${lost === 1 ? "line" : "lines"} lost: the journal could not be written (${code})\n`

/** The count of a journal's lost lines, said through `warn`: the first loss at once, the total by `sayTotal`. */
export const lossTally = (warn: (text: string) => void) => {
  let lost = 0
  // The first failure's code, once it has been said; later failures are the same hole.
  let said: string | undefined
  return {
    lose: (error: unknown) => {
      lost += 1
      if (said !== undefined) return
      said = failureCode(error)
      warn(losingWords(said))
    },
    lost: () => lost,
    sayTotal: () => {
      if (said !== undefined) warn(lostWords(lost, said))
    }
  }
}
