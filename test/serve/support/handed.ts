// Descriptors as a service manager hands them over (./handed-sockets.mjs): each a socket this
// process holds without any handle of its own polling it, as fd 3 is when `buddy serve` starts.
import { fork } from "node:child_process"

export interface Handed {
  /** A socket listening at the path given. */
  readonly listening: number
  /** A connection accepted on it: a socket with that path, connected, which cannot listen. */
  readonly accepted: number
  /** The end that connected: a socket with no path. */
  readonly connected: number
}

interface PipeHandle {
  readonly fd: number
}

export const handedSockets = (at: string): Promise<Handed> =>
  new Promise((resolve, reject) => {
    const child = fork(new URL("./handed-sockets.mjs", import.meta.url), [at], { stdio: "ignore" })
    const fds = new Map<unknown, number>()
    child.on("message", (name, handle) => {
      fds.set(name, (handle as unknown as PipeHandle).fd)
      const [listening, accepted, connected] = ["listening", "accepted", "connected"].map((key) => fds.get(key))
      if (listening !== undefined && accepted !== undefined && connected !== undefined) {
        child.kill("SIGKILL")
        resolve({ listening, accepted, connected })
      }
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`the sockets' child ended (${code}) before handing them over`)))
  })
