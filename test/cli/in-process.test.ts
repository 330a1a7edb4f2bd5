// The CLI in this process: what a child process cannot show. A CLI process holds only the sign-in
// it starts itself, and `sign-out` starts none, so a fresh `buddy sign-out` can never meet a held
// sign-in. To show that sign-out is blocked while a held sign-in cannot be cancelled (C4.8), the
// command runs here on a SignIn that already holds one, whose cancel Hermes answers with a 500.
// Also here: the exit-code mapping and the colour rule, as pure functions.
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import type { Console } from "effect"
import { Cause, Effect, Exit, FiberId, Layer } from "effect"
import { format } from "node:util"
import { makeFakeGateway } from "../../fixtures/fake-gateway.js"
import { cli } from "../../src/cli/commands.js"
import { ExitCode, exitCodeOf } from "../../src/cli/exit.js"
import { colourAllowed, stripEscapes } from "../../src/cli/output.js"
import { CliServices } from "../../src/cli/services.js"
import type { HolderLock } from "../../src/services/HolderLock.js"
import { SignIn } from "../../src/services/SignIn.js"
import type { Status } from "../../src/services/Status.js"
import { buddyLayer } from "../support/buddy.js"
import { CANCEL, httpLines, POLL, SIGN_OUT } from "./support/fast-start.js"

/** Runs the CLI with argv, stdout and stderr captured, on the given services for any --home. */
const runCli = (argv: ReadonlyArray<string>, services: Layer.Layer<SignIn | Status | HolderLock>) =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const base = yield* Effect.console
    const capture: Console.Console = {
      ...base,
      log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void stdout.push(format(...args))),
      error: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void stderr.push(format(...args)))
    }
    const exit = yield* cli(["node", "buddy", ...argv]).pipe(
      Effect.withConsole(capture),
      Effect.provide(NodeContext.layer),
      Effect.provide(Layer.succeed(CliServices, { forHome: () => services })),
      Effect.exit
    )
    return { exit, code: exitCodeOf(exit), stdout, stderr }
  })

describe("buddy sign-out with a held sign-in", () => {
  it.scopedLive("is blocked while the held sign-in cannot be cancelled, and the provider DELETE is never sent", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeGateway({ signedIn: true })
      const context = yield* Layer.build(buddyLayer(fake).pipe(Layer.orDie))
      const held = Layer.succeedContext(context)
      yield* Effect.flatMap(SignIn, (signIn) => signIn.start).pipe(Effect.provide(held))
      const sessionId = fake.sessions()[0]!.id
      fake.fault("cancel", { kind: "status", status: 500 })
      fake.clearReceived()

      const json = yield* runCli(["sign-out", "--json"], held)
      expect(json).toMatchObject({
        code: 4,
        stdout: ["{\"kind\":\"blocked\",\"reason\":\"sign-in-running\"}"],
        stderr: []
      })
      const words = yield* runCli(["sign-out"], held)
      expect(words).toMatchObject({
        code: 4,
        stdout: [],
        stderr: ["A sign-in is still running on Hermes and could not be ended, so nothing was changed."]
      })
      // Each sign-out polls the held sign-in before it cancels it (C4.7).
      expect(httpLines(fake, sessionId)).toStrictEqual([POLL, CANCEL, POLL, CANCEL])
      expect(httpLines(fake)).not.toContain(SIGN_OUT)
      expect(fake.signedIn).toBe(true)

      // Once Hermes confirms the cancel, the same sign-out goes through.
      fake.clearFaults()
      expect(yield* runCli(["sign-out", "--json"], held)).toMatchObject({
        code: 0,
        stdout: ["{\"kind\":\"sign-out\",\"state\":\"signed-out\"}"]
      })
      expect(fake.signedIn).toBe(false)
    }))
})

describe("exit codes", () => {
  it("map each way a run ends to C8's number", () => {
    expect(exitCodeOf(Exit.void)).toBe(0)
    expect(exitCodeOf(Exit.fail(new ExitCode({ code: 2 })))).toBe(2)
    expect(exitCodeOf(Exit.fail(new ExitCode({ code: 3 })))).toBe(3)
    expect(exitCodeOf(Exit.fail(new ExitCode({ code: 4 })))).toBe(4)
    expect(exitCodeOf(Exit.fail(new ExitCode({ code: 1 })))).toBe(1)
    expect(exitCodeOf(Exit.fail(ValidationError.invalidArgument({ _tag: "Empty" })))).toBe(2)
    expect(exitCodeOf(Exit.interrupt(FiberId.none))).toBe(130)
    expect(exitCodeOf(Exit.failCause(Cause.interrupt(FiberId.none)), "SIGINT")).toBe(130)
    expect(exitCodeOf(Exit.failCause(Cause.interrupt(FiberId.none)), "SIGTERM")).toBe(143)
    expect(exitCodeOf(Exit.die(new Error("boom")))).toBe(1)
    expect(exitCodeOf(Exit.fail("something else"))).toBe(1)
  })
})

describe("colour", () => {
  it("is allowed only on a terminal without NO_COLOR", () => {
    expect(colourAllowed({ isTTY: true }, {})).toBe(true)
    expect(colourAllowed({ isTTY: true }, { NO_COLOR: "" })).toBe(true)
    expect(colourAllowed({ isTTY: true }, { TERM: "dumb" })).toBe(false)
    expect(colourAllowed({ isTTY: true }, { TERM: "xterm-256color" })).toBe(true)
    expect(colourAllowed({ isTTY: true }, { NO_COLOR: "1" })).toBe(false)
    expect(colourAllowed({ isTTY: false }, {})).toBe(false)
    expect(colourAllowed({}, {})).toBe(false)
  })

  it("is off with FORCE_COLOR=0 or false, as with NO_COLOR; no value of it forces colour onto a pipe", () => {
    for (const off of ["0", "false"]) {
      expect(colourAllowed({ isTTY: true }, { FORCE_COLOR: off })).toBe(false)
      expect(colourAllowed({ isTTY: true }, { FORCE_COLOR: off, TERM: "xterm-256color" })).toBe(false)
    }
    for (const other of ["", "1", "2", "3", "true"]) {
      expect(colourAllowed({ isTTY: true }, { FORCE_COLOR: other })).toBe(true)
      expect(colourAllowed({ isTTY: false }, { FORCE_COLOR: other })).toBe(false)
      expect(colourAllowed({ isTTY: true }, { FORCE_COLOR: other, NO_COLOR: "1" })).toBe(false)
    }
  })

  it("is stripped, with any other escape sequence, when it is not allowed", () => {
    expect(stripEscapes("\u001b[0;1mUSAGE\u001b[0m \u001b]8;;https://x\u0007link\u001b]8;;\u0007 \u001b[2K")).toBe(
      "USAGE link "
    )
  })
})
