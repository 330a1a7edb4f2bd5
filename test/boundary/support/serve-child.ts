// The real `buddy serve` executable in a child, for boundary tests: its config file (Buddy present,
// hosted personal, English), the server on a socket of its own in a fresh runtime directory, and a
// same-origin POST as the Launchpad's page sends it. The CLI tests' afterEach (test/cli/support) stops what it starts.
import { request } from "node:http"
import * as path from "node:path"
import { spawnBuddy } from "../../cli/support/buddy-process.js"
import { tempDir, writeServeConfig } from "../../cli/support/cleanup.js"

export const LAUNCHPAD = "https://launchpad.example"

/** A `--config` file for Hermes at `home`, with `extra` fields (socketGroup) merged in. */
export const serveConfig = async (home: string, extra: Record<string, unknown> = {}) => {
  const file = path.join(await tempDir("buddy-serve-config-"), "config.json")
  await writeServeConfig(file, home, { launchpadOrigin: LAUNCHPAD, ...extra })
  return file
}

/** `buddy serve` for Hermes at `home` on a socket in a fresh runtime directory, once it listens; `at` is the socket. */
export const serveSocket = async (
  home: string,
  options: { readonly env?: Record<string, string>; readonly extra?: Record<string, unknown> } = {}
) => {
  const at = path.join(await tempDir("buddy-serve-runtime-", 0o700), "buddy", "serve.sock")
  const serve = spawnBuddy(
    ["serve", "--config", await serveConfig(home, options.extra), "--socket", at],
    options.env === undefined ? {} : { env: options.env }
  )
  await serve.stderrWith("listening on")
  return { serve, at }
}

/** `GET /api/buddy` on a new connection to the socket `at`: the answer's body. */
export const getStatus = (at: string) =>
  new Promise<string>((resolve, reject) => {
    const req = request({ socketPath: at, path: "/api/buddy", agent: false }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve(text))
    })
    req.on("error", reject)
    req.end()
  })

/** A POST with the two headers a browser sends from the Launchpad's own page (C6 check 3), to the socket `at`. */
export const postSameOrigin = (at: string, pathname: string, body: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        socketPath: at,
        method: "POST",
        path: pathname,
        agent: false,
        headers: { "content-type": "application/json", origin: LAUNCHPAD, "sec-fetch-site": "same-origin" }
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })
