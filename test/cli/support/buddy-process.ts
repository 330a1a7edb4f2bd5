// The real `buddy` executable in a child process, as `npx buddy` runs it (package.json "bin":
// bin/buddy.js), with its stdout and stderr split into lines, for tests against the fake gateway.
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterEach, expect } from "vitest"

export const BIN = fileURLToPath(new URL("../../../bin/buddy.js", import.meta.url))
export const REPO = fileURLToPath(new URL("../../../", import.meta.url))

export interface Finished {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: ReadonlyArray<string>
  readonly stderr: ReadonlyArray<string>
  readonly rawStdout: string
  readonly rawStderr: string
}

export interface Running {
  readonly child: ChildProcess
  /** Resolves with stdout's lines once there are at least `count` of them. */
  readonly stdoutLines: (count: number) => Promise<ReadonlyArray<string>>
  /** Resolves with stderr's lines once one of them contains `text`. */
  readonly stderrWith: (text: string) => Promise<ReadonlyArray<string>>
  readonly finished: Promise<Finished>
  /** Stdout's and stderr's whole lines so far. */
  readonly stdoutNow: () => ReadonlyArray<string>
  readonly stderrNow: () => ReadonlyArray<string>
}

const lines = (text: string): ReadonlyArray<string> => {
  const all = text.split("\n")
  if (all.at(-1) === "") all.pop()
  return all
}

/** The environment without anything that would change what buddy does or how it prints. */
export const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ["HERMES_HOME", "NO_COLOR", "FORCE_COLOR", "NODE_OPTIONS"]) delete env[name]
  return { ...env, ...extra }
}

const running = new Set<ChildProcess>()
afterEach(() => {
  for (const child of running) child.kill("SIGKILL")
  running.clear()
})

// Children their callers stop: killed only if the test process ends first (one listener for all).
const ownedByCallers = new Set<ChildProcess>()
process.once("exit", () => ownedByCallers.forEach((child) => child.kill("SIGKILL")))

// How long a test waits for what a buddy process prints before failing with what it has: a bound for
// a broken run, not a timing; eight buddy processes starting at once took more than 10 s at load 15.
const WAIT_MS = 25_000

export interface SpawnOptions {
  readonly env?: Record<string, string>
  readonly command?: ReadonlyArray<string>
  /** A descriptor of the test's own for the child's stdout, instead of a pipe read here. */
  readonly stdout?: number
  /**
   * Stopped by the caller rather than after each test: for tests that run concurrently, where
   * another test's afterEach would otherwise kill this child mid-test.
   */
  readonly stoppedByCaller?: boolean
  /** Another account to run as (the test must run as root). */
  readonly uid?: number
  readonly gid?: number
}

export const spawnBuddy = (args: ReadonlyArray<string>, options: SpawnOptions = {}): Running => {
  const [file, ...prefix] = options.command ?? [process.execPath, BIN]
  const child = spawn(file!, [...prefix, ...args], {
    cwd: REPO,
    env: cleanEnv(options.env),
    stdio: ["ignore", options.stdout ?? "pipe", "pipe"],
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid })
  })
  if (options.stoppedByCaller !== true) running.add(child)
  else ownedByCallers.add(child)
  let stdout = ""
  let stderr = ""
  const listeners = new Set<() => void>()
  const changed = () => listeners.forEach((listener) => listener())
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    changed()
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
    changed()
  })
  const finished = new Promise<Finished>((resolve) => {
    child.on("close", (code, signal) => {
      running.delete(child)
      ownedByCallers.delete(child)
      changed()
      resolve({ code, signal, stdout: lines(stdout), stderr: lines(stderr), rawStdout: stdout, rawStderr: stderr })
    })
  })
  const until = <A>(what: string, ready: () => A | undefined): Promise<A> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const value = ready()
        if (value !== undefined) {
          done()
          resolve(value)
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done()
          reject(new Error(`buddy ended before ${what}; stdout: ${stdout} stderr: ${stderr}`))
        }
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`no ${what} within ${WAIT_MS} ms; stdout: ${stdout} stderr: ${stderr}`))
      }, WAIT_MS)
      const done = () => {
        clearTimeout(timer)
        listeners.delete(check)
      }
      listeners.add(check)
      check()
    })
  return {
    child,
    finished,
    stdoutNow: () => lines(stdout.slice(0, stdout.lastIndexOf("\n") + 1)),
    stderrNow: () => lines(stderr.slice(0, stderr.lastIndexOf("\n") + 1)),
    stdoutLines: (count) =>
      until(`${count} stdout lines`, () => {
        const all = lines(stdout)
        return stdout.endsWith("\n") && all.length >= count ? all : undefined
      }),
    stderrWith: (text) => until(`stderr with "${text}"`, () => (stderr.includes(text) ? lines(stderr) : undefined))
  }
}

/** Runs buddy to its end. Every run is checked to carry no terminal escape sequence. */
export const buddy = async (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly command?: ReadonlyArray<string> } = {}
): Promise<Finished> => expectPlain(await spawnBuddy(args, options).finished)

/** Children write to pipes, not terminals: nothing they print may carry an escape sequence. */
export const expectPlain = (finished: Finished): Finished => {
  expect(finished.rawStdout).not.toContain("\u001b")
  expect(finished.rawStderr).not.toContain("\u001b")
  return finished
}
