// `npm run demo:web` (issue 37), run as a newcomer runs it: it says where to open the page (the port
// PORT names), the page holds the card under a strict CSP, buddy serve answers behind the sample
// Launchpad's front door, the simulator approves a sign-in after 3 s, and Ctrl-C stops everything,
// leaving no temporary home behind.
import { spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import { expect, it } from "vitest"

const root = new URL("..", import.meta.url).pathname

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const demoHomes = () => readdirSync(os.tmpdir()).filter((name) => name.startsWith("buddy-web-demo-"))

it("npm run demo:web serves the card on PORT, a sign-in is approved after 3 s, and Ctrl-C stops it all", async () => {
  const before = demoHomes()
  const port = await freePort()
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo-web.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(port) }
  })
  let stdout = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  try {
    for (let waited = 0; !stdout.includes("\n") && waited < 30_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const origin = `http://127.0.0.1:${port}`
    expect(stdout.split("\n")[0]).toBe(`Open ${origin}/`)
    const page = await fetch(`${origin}/?locale=cs`)
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'")
    expect(await page.text()).toContain("<buddy-sign-in locale=\"cs\"></buddy-sign-in>")
    expect((await fetch(`${origin}/buddy-sign-in.js`)).status).toBe(200)
    const headers = { origin, "sec-fetch-site": "same-origin", "content-type": "application/json" }
    const started = await (await fetch(`${origin}/api/buddy/sign-in/start`, { method: "POST", headers, body: "{}" }))
      .json() as { readonly handle: string }
    await new Promise((resolve) => setTimeout(resolve, 3_500))
    const polled = await fetch(`${origin}/api/buddy/sign-in/poll`, {
      method: "POST",
      headers,
      body: JSON.stringify({ handle: started.handle })
    })
    expect(await polled.json()).toStrictEqual({ kind: "sign-in", state: "signed-in" })
  } finally {
    child.kill("SIGINT")
  }
  expect(await exited).toBe(130)
  expect(demoHomes()).toStrictEqual(before)
}, 60_000)
