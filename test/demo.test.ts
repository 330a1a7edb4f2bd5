// `npm run demo`, the README's first command, run whole on the simulator: it must end 0 and show
// every step an operator would see, with each command's exit code as a script would test it.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { expect, it } from "vitest"

const run = promisify(execFile)

it("npm run demo walks through status, a held sign-in, status, sign-out and status, and ends 0", async () => {
  const { stdout } = await run("bash", ["scripts/demo.sh"], { cwd: new URL("..", import.meta.url).pathname })
  const shown = stdout.split("\n").filter((line) =>
    line.startsWith("$ ") || line.startsWith("(exit ") || line.startsWith("Buddy")
  )
  expect(shown).toStrictEqual([
    "$ buddy status",
    "Buddy is waiting to be signed in.",
    "(exit 3)",
    "$ buddy sign-in start",
    "Buddy is signed in.",
    "(exit 0)",
    "$ buddy status",
    "Buddy works.",
    "(exit 0)",
    "$ buddy sign-out",
    "Buddy is signed out.",
    "(exit 0)",
    "$ buddy status",
    "Buddy is waiting to be signed in.",
    "(exit 3)"
  ])
}, 60_000)
