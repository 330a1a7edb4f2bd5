// `buddy status`: one fresh reading of Buddy's state (C5). Every reading is an answer, `unknown`
// with its reason included, printed whole; the exit code then says which (C8), so scripts can test
// it as they do `gh auth status`: 0 works, 3 waits, 1 unknown. A sign-in another buddy holds for
// this home (a `buddy serve`, another terminal) is said too, looked at without disturbing it (D46):
// this process never holds one.
import * as Command from "@effect/cli/Command"
import { Effect, Option } from "effect"
import type { BuddyState } from "../schema/reasons.js"
import { HolderLock } from "../services/HolderLock.js"
import { Status } from "../services/Status.js"
import { ExitCode } from "./exit.js"
import { explain } from "./output.js"
import { commonOptions, withServices } from "./root.js"
import * as words from "./words.js"

const exitCodes: Readonly<Record<BuddyState, 0 | 1 | 3>> = { works: 0, waits: 3, unknown: 1 }

export const status = Command.make(
  "status",
  commonOptions,
  (options) =>
    withServices(options, (output) =>
      Effect.gen(function*() {
        const reading = yield* Effect.flatMap(Status, (service) => service.read)
        const holding = yield* Effect.flatMap(HolderLock, (lock) => lock.holder)
        yield* output.answer(
          {
            kind: "buddy",
            state: reading.state,
            ...(reading.state === "unknown" ? { reason: reading.reason } : {}),
            ...(Option.isSome(holding) ? { signIn: { state: "pending" } } : {})
          },
          Option.match(holding, {
            onNone: () => words.status(reading),
            onSome: ({ pid }) => `${words.status(reading)}\n${words.signInHeld(pid)}`
          })
        )
        if (reading.state === "unknown") yield* explain(output, reading.reason)
        const code = exitCodes[reading.state]
        if (code !== 0) return yield* Effect.fail(new ExitCode({ code }))
      }))
).pipe(Command.withDescription("Read Buddy's state: works, waits, or unknown and why."))
