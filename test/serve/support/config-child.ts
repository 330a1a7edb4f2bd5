// readConfig in a child (./mutant-child.ts), for what only another account meets: `node
// config-child.mjs FILE` reads FILE as buddy serve does and prints the outcome as JSON: `{ "ok":
// config }` or `{ "lines": [...] }`.
import { Effect, Either, Option } from "effect"
import { readConfig } from "../../../src/serve/config-file.js"

const [file = ""] = process.argv.slice(2)
void Effect.runPromise(Effect.either(readConfig(Option.some(file)))).then((outcome) =>
  process.stdout.write(
    JSON.stringify(Either.match(outcome, { onLeft: ({ lines }) => ({ lines }), onRight: (ok) => ({ ok }) }))
  )
)
