// prepareSocket in a child (./mutant-child.ts): `node place-child.mjs UMASK SOCKET [GID]` sets the
// umask (octal), prepares the place for SOCKET, shared with GID if given, and prints the outcome as
// JSON: `{ "ok": path }` or the refusal's fields.
import { Effect, Either } from "effect"
import { prepareSocket } from "../../../src/serve/socket-place.js"

const [umask = "022", socket = "", gid] = process.argv.slice(2)
process.umask(Number.parseInt(umask, 8))
const sharing = gid === undefined ? { _tag: "Owner" as const } : { _tag: "Group" as const, gid: Number(gid) }
void Effect.runPromise(Effect.either(prepareSocket(socket, sharing))).then((outcome) =>
  process.stdout.write(
    JSON.stringify(Either.match(outcome, { onLeft: (error) => ({ ...error }), onRight: (ok) => ({ ok }) }))
  )
)
