// A raw exchange over a Unix socket from another process, as another account if asked: what a proxy
// or another local account would get (test/deploy, test/boundary/listener-trust.test.ts).
import { spawn } from "node:child_process"

/**
 * What came back on one Unix-socket connection made by a child process as `as` (no supplementary
 * groups), or as this account without one: every byte until it closed, or the connect error's code.
 */
export const unixExchangeAs = (
  socketPath: string,
  raw: string,
  as?: { readonly uid: number; readonly gid: number }
): Promise<{ bytes: string; error?: string }> =>
  new Promise((resolve, reject) => {
    const program = `
      const socket = require("node:net").connect(${JSON.stringify(socketPath)})
      let bytes = ""
      let error
      socket.setEncoding("latin1")
      socket.on("connect", () => socket.write(${JSON.stringify(raw)}))
      socket.on("data", (chunk) => (bytes += chunk))
      socket.on("error", (e) => (error = e.code))
      socket.on("close", () => process.stdout.write(JSON.stringify(error === undefined ? { bytes } : { bytes, error })))
    `
    const child = spawn(process.execPath, ["-e", program], {
      cwd: "/",
      stdio: ["ignore", "pipe", "pipe"],
      ...(as === undefined ? {} : { uid: as.uid, gid: as.gid })
    })
    let out = ""
    let err = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk))
    child.once("error", reject)
    child.once("close", () => {
      if (out === "") reject(new Error(`the client printed nothing: ${err}`))
      else resolve(JSON.parse(out) as { bytes: string; error?: string })
    })
  })
