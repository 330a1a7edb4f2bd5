// The real `buddy serve` executable in a child, for boundary tests: its config file (Buddy present,
// hosted personal, English), the server on TCP with the port it announces, and a same-origin POST
// as the Launchpad's page sends it. The CLI tests' afterEach (test/cli/support) stops what it starts.
import * as fs from "node:fs/promises"
import { request } from "node:http"
import * as path from "node:path"
import { spawnBuddy } from "../../cli/support/buddy-process.js"
import { tempDir } from "../../cli/support/cleanup.js"

export const LAUNCHPAD = "https://launchpad.example"

/** A `--config` file for Hermes at `home`, with `extra` fields (allowedAccounts) merged in. */
export const serveConfig = async (home: string, extra: Record<string, unknown> = {}) => {
  const file = path.join(await tempDir("buddy-serve-config-"), "config.json")
  await fs.writeFile(
    file,
    JSON.stringify({
      hermesHome: home,
      launchpadOrigin: LAUNCHPAD,
      buddyOrigin: "https://buddy.example",
      environment: "hosted-personal",
      locale: "en",
      ...extra
    })
  )
  return file
}

/** `buddy serve --port 0` for Hermes at `home`, and the port it announced. */
export const serveTcp = async (
  home: string,
  options: { readonly env?: Record<string, string>; readonly extra?: Record<string, unknown> } = {}
) => {
  const serve = spawnBuddy(
    ["serve", "--config", await serveConfig(home, options.extra), "--port", "0"],
    options.env === undefined ? {} : { env: options.env }
  )
  const line = (await serve.stderrWith("listening on")).find((entry) => entry.includes("listening on")) ?? ""
  return { serve, port: Number(line.slice(line.lastIndexOf(":") + 1)) }
}

/** `GET /api/buddy` on a new connection: the answer's body. */
export const getStatus = (port: number) =>
  new Promise<string>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/buddy", agent: false }, (res) => {
      let text = ""
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve(text))
    })
    req.on("error", reject)
    req.end()
  })

/** A POST with the two headers a browser sends from the Launchpad's own page (C6 check 3). */
export const postSameOrigin = (port: number, pathname: string, body: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
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
