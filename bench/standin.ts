// Child processes of the bench: the gateway stand-in (bench/standin.mjs) in a fresh private home,
// and any other helper that announces itself with one JSON line on stdout. Each ends when its
// stdin closes, so a bench that dies leaves none behind.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"

export interface Child<A> {
  readonly ready: A
  readonly process: ChildProcess
  readonly close: () => void
}

/** Starts `node <script> ...args` and waits for its first stdout line, parsed as JSON. */
export const startChild = <A>(script: string, args: ReadonlyArray<string>): Promise<Child<A>> => {
  const child = spawn(process.execPath, [new URL(script, import.meta.url).pathname, ...args], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)))
    createInterface({ input: child.stdout! }).once("line", (line) => {
      resolve({
        ready: JSON.parse(line) as A,
        process: child,
        close: () => {
          child.stdin!.end()
          child.kill("SIGTERM")
        }
      })
    })
  })
}

export interface Standin {
  /** The real home: 0700, ours, with the socket at `<home>/gateway.sock` (0600). */
  readonly home: string
  readonly socket: string
  readonly origin: string
  readonly close: () => void
}

/** The stand-in in its own process, in a fresh home that `close` removes. */
export const startStandin = async (): Promise<Standin> => {
  // mkdtemp makes the directory 0700; its real path is what buddy and the gateway compare.
  const home = realpathSync(mkdtempSync(join(tmpdir(), "buddy-bench-")))
  const child = await startChild<{ origin: string; socket: string; home: string }>("standin.mjs", [home])
  return {
    ...child.ready,
    close: () => {
      child.close()
      rmSync(home, { recursive: true, force: true })
    }
  }
}

/** A `buddy serve` config for the stand-in's home, written in `directory`; returns its path. */
export const serveConfig = (directory: string, home: string): string => {
  const file = join(directory, "config.json")
  writeFileSync(
    file,
    JSON.stringify({
      hermesHome: home,
      launchpadOrigin: "https://launchpad.example",
      buddyOrigin: "https://buddy.example",
      environment: "hosted-personal",
      locale: "en"
    })
  )
  return file
}
