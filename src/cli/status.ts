// `buddy status`: one fresh reading of Buddy's state (C5). Every reading is an answer, `unknown`
// with its reason included, so the command always exits 0 ("status read", C8).
import * as Command from "@effect/cli/Command"
import { Effect } from "effect"
import { Status } from "../services/Status.js"
import { commonOptions, withServices } from "./root.js"
import * as words from "./words.js"

export const status = Command.make(
  "status",
  commonOptions,
  (options) =>
    withServices(options, (output) =>
      Effect.gen(function*() {
        const reading = yield* Effect.flatMap(Status, (service) => service.read)
        yield* output.answer(
          reading.state === "unknown"
            ? { kind: "buddy", state: reading.state, reason: reading.reason }
            : { kind: "buddy", state: reading.state },
          words.status(reading)
        )
      }))
).pipe(Command.withDescription("Read Buddy's state: works, waits, or unknown and why."))
