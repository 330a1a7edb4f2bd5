// C6's same-origin rule in a real browser (#4 item 5): Debian's Chromium, driven by
// playwright-core, against `buddy serve` in a child process and a fake Hermes gateway.
//
// Three origins, each its own loopback server:
// - the Launchpad, http://127.0.0.1:A: serves /launchpad.html and forwards /api/buddy* to
//   buddy serve's socket (method, path, headers, Host included, body; the answer back), logging
//   what it forwarded;
// - another site, http://localhost:B (cross-site: another host);
// - Buddy's own origin, http://127.0.0.1:C, as configured (same-site, never admitted).
// The Launchpad page's fetch POSTs succeed; the others' form posts and fetches (no-cors, and
// cors with a JSON body) are refused before Hermes is asked: the fake gateway receives nothing.
// A page whose name rebinds to 127.0.0.1 (Chromium's resolver maps rebind.test there) reaches
// buddy serve through that proxy under its own name and is refused, GET included (D22).
// Last, buddy/client in a page of the README's node:http example (D20): bundled by esbuild for the
// browser, it starts, polls and cancels with only what Chromium itself sends.
import { build } from "esbuild"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchpad as nodeLaunchpad } from "../../examples/mount-node.js"
import { type FakeGatewayHandle, startFakeGateway } from "../../fixtures/fake-gateway.js"
import { readAll, type ServeChild, startServe, stopChild } from "../../fixtures/serve-child.js"
import type { makeBuddyClient } from "../../src/client/index.js"
import { BuddyConfig } from "../../src/services/BuddyConfig.js"
import { chromiumArgs as baseArgs, chromiumPath, hasChromium } from "./support/chromium.js"

/** This machine's flags, and a DNS-rebinding page's end state: its own name resolving to 127.0.0.1 (D22). */
const chromiumArgs = [...baseArgs, "--host-resolver-rules=MAP rebind.test 127.0.0.1"]

const root = path.resolve(import.meta.dirname, "../..")

/** One request the Launchpad's proxy forwarded to buddy serve, and what buddy serve answered. */
interface Forwarded {
  readonly method: string
  readonly path: string
  readonly origin: string | undefined
  readonly site: string | undefined
  readonly mode: string | undefined
  readonly contentType: string | undefined
  readonly preflight: string | undefined
  readonly status: number
  readonly body: string
}

const header = (request: http.IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

const listen = (server: http.Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

const close = (server: http.Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const page = (title: string, body = "") =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`

const attribute = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("\"", "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")

/**
 * A form that posts itself on load, as a hostile page would. Its one field makes a text/plain
 * body of `{"x":"="}`, the classic way to pass a JSON body off as a form.
 */
const autoForm = (action: string, enctype: string) =>
  page(
    "form",
    `<form method="post" action="${attribute(action)}" enctype="${attribute(enctype)}">` +
      `<input type="hidden" name="${attribute("{\"x\":\"")}" value="${attribute("\"}")}"></form>` +
      `<script>document.forms[0].submit()</script>`
  )

/** Serves /page.html (blank) and /form.html?action=…&enctype=… (an auto-submitted form). */
const siteServer = (title: string) =>
  http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://site.invalid")
    const send = (status: number, html: string) => {
      response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
      response.end(html)
    }
    if (url.pathname === "/page.html") return send(200, page(title))
    const action = url.searchParams.get("action")
    const enctype = url.searchParams.get("enctype")
    if (url.pathname === "/form.html" && action !== null && enctype !== null) {
      return send(200, autoForm(action, enctype))
    }
    return send(404, page("not found"))
  })

/** The Launchpad: its page, and /api/buddy* forwarded to buddy serve with every request logged. */
const launchpadServer = (serveSocket: () => string, log: Array<Forwarded>, all: Array<Forwarded>) =>
  http.createServer((request, response) => {
    const url = request.url ?? "/"
    if (url === "/launchpad.html") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
      response.end(page("Launchpad"))
      return
    }
    if (url !== "/api/buddy" && !url.startsWith("/api/buddy/") && !url.startsWith("/api/buddy?")) {
      response.writeHead(404)
      response.end()
      return
    }
    void readAll(request).then((body) => {
      const upstream = http.request({
        socketPath: serveSocket(),
        method: request.method,
        path: url,
        headers: request.headers,
        agent: false
      }, (answer) => {
        void readAll(answer).then((answerBody) => {
          const seen: Forwarded = {
            method: request.method ?? "",
            path: url,
            origin: header(request, "origin"),
            site: header(request, "sec-fetch-site"),
            mode: header(request, "sec-fetch-mode"),
            contentType: header(request, "content-type"),
            preflight: header(request, "access-control-request-method"),
            status: answer.statusCode ?? 0,
            body: answerBody.toString("utf8")
          }
          log.push(seen)
          all.push(seen)
          const headers = { ...answer.headers }
          delete headers["transfer-encoding"]
          delete headers["connection"]
          response.writeHead(answer.statusCode ?? 502, { ...headers, "content-length": answerBody.length })
          response.end(answerBody)
        })
      })
      upstream.on("error", () => {
        response.writeHead(502)
        response.end()
      })
      upstream.end(body)
    })
  })

/** A POST from the page's own script, answered or refused by the browser. */
type FetchOutcome =
  | { readonly sent: "answered"; readonly type: string; readonly status: number; readonly text: string }
  | { readonly sent: "failed"; readonly error: string }

interface FetchRequest {
  readonly url: string
  readonly mode: "cors" | "no-cors" | "same-origin"
  readonly json: boolean
  readonly body: string
}

const fetchFrom = (on: Page, request: FetchRequest): Promise<FetchOutcome> =>
  on.evaluate(async ({ body, json, mode, url }): Promise<FetchOutcome> => {
    try {
      const answer = await fetch(url, {
        method: "POST",
        mode,
        ...(json ? { headers: { "content-type": "application/json" } } : {}),
        body
      })
      return { sent: "answered", type: answer.type, status: answer.status, text: await answer.text() }
    } catch (error) {
      return { sent: "failed", error: String(error) }
    }
  }, request)

const denied = { error: "denied", reason: "origin-mismatch" }
const hostDenied = { error: "denied", reason: "host-mismatch" }
const journalOperations = (journal: ReadonlyArray<string>) =>
  journal.map((line) => JSON.parse(line) as { readonly scope: string; readonly operation: string })

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!hasChromium)("the same-origin rule in Chromium (C6)", () => {
  let temp = ""
  let fake: FakeGatewayHandle | undefined
  let serve: ServeChild | undefined
  let browser: Browser | undefined
  const servers: Array<http.Server> = []
  const forwarded: Array<Forwarded> = []
  const everything: Array<Forwarded> = []
  let launchpadOrigin = ""
  let otherOrigin = ""
  let buddyOrigin = ""

  const gateway = () => {
    if (fake === undefined) throw new Error("no fake gateway")
    return fake
  }
  const journal = () => serve?.journal ?? []
  const newPage = () => {
    if (browser === undefined) throw new Error("no browser")
    return browser.newPage()
  }
  const openPage = async (url: string) => {
    const opened = await newPage()
    await opened.goto(url)
    return opened
  }

  beforeAll(async () => {
    temp = mkdtempSync(path.join(os.tmpdir(), "buddy-browser-"))
    fake = await startFakeGateway()

    let serveSocket = ""
    const launchpad = launchpadServer(() => serveSocket, forwarded, everything)
    const other = siteServer("Another site")
    const buddy = siteServer("Buddy")
    servers.push(launchpad, other, buddy)
    launchpadOrigin = `http://127.0.0.1:${await listen(launchpad)}`
    otherOrigin = `http://localhost:${await listen(other)}`
    buddyOrigin = `http://127.0.0.1:${await listen(buddy)}`

    const configFile = path.join(temp, "buddy.json")
    writeFileSync(
      configFile,
      JSON.stringify({
        hermesHome: fake.home,
        launchpadOrigin,
        buddyOrigin,
        environment: "hosted-personal",
        locale: "en"
      })
    )
    serve = await startServe(configFile, path.join(temp, "runtime", "serve.sock"))
    serveSocket = serve.socket
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, timeout: 20_000 })
  }, 45_000)

  afterAll(async () => {
    await browser?.close()
    if (serve !== undefined) await stopChild(serve.child)
    await Promise.all(servers.map(close))
    await fake?.close()
    if (temp !== "") rmSync(temp, { recursive: true, force: true })
    if (process.env["BUDDY_BROWSER_LOG"] !== undefined) console.log(everything.map((r) => JSON.stringify(r)).join("\n"))
  }, 20_000)

  it("the Launchpad page's fetch POSTs reach Hermes: start, poll, cancel", async () => {
    const launchpad = await openPage(`${launchpadOrigin}/launchpad.html`)
    gateway().clearReceived()
    forwarded.length = 0
    const post = (route: string, body: string) =>
      fetchFrom(launchpad, { url: `/api/buddy/${route}`, mode: "same-origin", json: true, body })

    const start = await post("sign-in/start", "{}")
    expect(start).toMatchObject({ sent: "answered", status: 200 })
    const started = start.sent === "answered" ? JSON.parse(start.text) as Record<string, unknown> : {}
    expect(started).toMatchObject({ kind: "sign-in", state: "pending" })
    const handle = started["handle"]
    expect(handle).toMatch(/^[0-9a-f]{32}$/)
    expect(gateway().received).toContainEqual(
      expect.objectContaining({ channel: "http", method: "POST", path: expect.stringMatching(/\/start$/) })
    )

    const poll = await post("sign-in/poll", JSON.stringify({ handle }))
    expect(poll).toMatchObject({ sent: "answered", status: 200 })
    expect(poll.sent === "answered" ? JSON.parse(poll.text) : undefined).toMatchObject({
      kind: "sign-in",
      state: "pending"
    })

    const cancel = await post("sign-in/cancel", JSON.stringify({ handle }))
    expect(cancel).toMatchObject({ sent: "answered", status: 200 })
    expect(cancel.sent === "answered" ? JSON.parse(cancel.text) : undefined).toEqual({
      kind: "sign-in",
      state: "cancelled"
    })
    expect(gateway().received).toContainEqual(
      expect.objectContaining({ channel: "http", method: "DELETE", path: expect.stringMatching(/\/sessions\//) })
    )

    // What Chromium sent for the Launchpad's own fetches: the Launchpad's origin, same-origin.
    expect(forwarded.map(({ method, origin, site, status }) => ({ method, origin, site, status }))).toEqual(
      [1, 2, 3].map(() => ({ method: "POST", origin: launchpadOrigin, site: "same-origin", status: 200 }))
    )
    await launchpad.close()
  }, 20_000)

  for (const which of ["another site", "Buddy's own origin"] as const) {
    it(`${which}: form posts and fetches are refused, and Hermes is never asked`, async () => {
      const from = which === "another site" ? otherOrigin : buddyOrigin
      const expectedSite = which === "another site" ? "cross-site" : "same-site"
      const journalBefore = journal().length
      const sender = await openPage(`${from}/page.html`)
      for (const route of ["sign-in/start", "sign-out"]) {
        const url = `${launchpadOrigin}/api/buddy/${route}`

        for (const enctype of ["text/plain", "application/x-www-form-urlencoded"]) {
          gateway().clearReceived()
          forwarded.length = 0
          const form = await newPage()
          const answered = form.waitForResponse((response) =>
            response.url() === url && response.request().method() === "POST"
          )
          await form.goto(`${from}/form.html?${new URLSearchParams({ action: url, enctype })}`, { waitUntil: "commit" })
          const response = await answered
          expect(response.status()).toBe(403)
          expect(await response.json()).toEqual(denied)
          await form.close()
          expect(forwarded).toEqual([
            expect.objectContaining({
              method: "POST",
              origin: from,
              site: expectedSite,
              mode: "navigate",
              contentType: expect.stringContaining(enctype),
              status: 403,
              body: JSON.stringify(denied)
            })
          ])
          expect(gateway().received).toEqual([])
        }

        // no-cors: sent, the answer opaque to the page; buddy serve refused it.
        gateway().clearReceived()
        forwarded.length = 0
        const simple = await fetchFrom(sender, { url, mode: "no-cors", json: false, body: "{}" })
        expect(simple).toEqual({ sent: "answered", type: "opaque", status: 0, text: "" })
        expect(forwarded).toEqual([
          expect.objectContaining({ method: "POST", origin: from, site: expectedSite, mode: "no-cors", status: 403 })
        ])
        expect(forwarded[0]?.body).toBe(JSON.stringify(denied))
        expect(gateway().received).toEqual([])

        // cors with a JSON body: the preflight finds no CORS answer, so the POST is never sent.
        gateway().clearReceived()
        forwarded.length = 0
        const preflighted = await fetchFrom(sender, { url, mode: "cors", json: true, body: "{}" })
        expect(preflighted).toMatchObject({ sent: "failed" })
        expect(forwarded).toEqual([
          expect.objectContaining({
            method: "OPTIONS",
            origin: from,
            site: expectedSite,
            preflight: "POST",
            status: 405,
            body: JSON.stringify({ error: "method-not-allowed" })
          })
        ])
        expect(gateway().received).toEqual([])

        // cors with a simple body (no preflight): sent, refused, and the page may not read the answer.
        gateway().clearReceived()
        forwarded.length = 0
        const simpleCors = await fetchFrom(sender, { url, mode: "cors", json: false, body: "{}" })
        expect(simpleCors).toMatchObject({ sent: "failed" })
        expect(forwarded).toEqual([
          expect.objectContaining({ method: "POST", origin: from, site: expectedSite, mode: "cors", status: 403 })
        ])
        expect(gateway().received).toEqual([])
      }
      await sender.close()
      // Nothing refused is journaled: no start or sign-out outcome for any of them.
      await settle(200)
      expect(journal().slice(journalBefore)).toEqual([])
    }, 25_000)
  }

  it("the Launchpad page's sign-out reaches Hermes; the journal holds only the Launchpad's operations", async () => {
    const launchpad = await openPage(`${launchpadOrigin}/launchpad.html`)
    gateway().setSignedIn(true)
    gateway().clearReceived()
    const out = await fetchFrom(launchpad, {
      url: "/api/buddy/sign-out",
      mode: "same-origin",
      json: true,
      body: "{}"
    })
    expect(out).toMatchObject({ sent: "answered", status: 200 })
    expect(out.sent === "answered" ? JSON.parse(out.text) : undefined).toEqual({
      kind: "sign-out",
      state: "signed-out"
    })
    expect(gateway().received).toContainEqual(expect.objectContaining({ channel: "http", method: "DELETE" }))
    await launchpad.close()

    for (let waited = 0; waited < 2_000 && journal().length < 4; waited += 50) await settle(50)
    expect(journalOperations(journal()).map(({ operation, scope }) => `${scope} ${operation}`)).toEqual([
      "buddy-sign-in start",
      "buddy-sign-in poll",
      "buddy-sign-in cancel",
      "buddy-sign-in sign-out"
    ])
  }, 20_000)

  it(
    "a page whose name rebinds to 127.0.0.1 reads and changes nothing through the proxy: 403 host-mismatch, GET and POST",
    async () => {
      // The Launchpad's proxy passes Host on, as Caddy does: buddy serve sees the rebound name.
      const port = new URL(launchpadOrigin).port
      gateway().clearReceived()
      const journalBefore = journal().length
      const rebound = await newPage()
      const shown = await rebound.goto(`http://rebind.test:${port}/api/buddy`)
      expect([shown?.status(), await shown?.text()]).toStrictEqual([403, JSON.stringify(hostDenied)])
      // The page's own origin is now http://rebind.test:PORT: its fetches are same-origin to buddy serve.
      const read = await rebound.evaluate(async () => {
        const answer = await fetch("/api/buddy")
        return { status: answer.status, text: await answer.text() }
      })
      expect(read).toStrictEqual({ status: 403, text: JSON.stringify(hostDenied) })
      const start = await fetchFrom(rebound, {
        url: "/api/buddy/sign-in/start",
        mode: "same-origin",
        json: true,
        body: "{}"
      })
      expect(start).toStrictEqual({ sent: "answered", type: "basic", status: 403, text: JSON.stringify(hostDenied) })
      await rebound.close()
      expect(gateway().received).toEqual([])
      await settle(200)
      expect(journal().slice(journalBefore)).toEqual([])
    },
    20_000
  )
})

/** A free port on 127.0.0.1, so the Launchpad's origin is known before its server is made. */
const freePort = async () => {
  const probe = http.createServer()
  const port = await listen(probe)
  await close(probe)
  return port
}

describe.skipIf(!hasChromium)("buddy/client in a page of the Launchpad example (D20)", () => {
  let fake: FakeGatewayHandle | undefined
  let browser: Browser | undefined
  let server: http.Server | undefined
  let closeLaunchpad: (() => Promise<void>) | undefined
  let origin = ""
  let bundleSize = 0

  beforeAll(async () => {
    fake = await startFakeGateway()
    // The client as a front end bundles it: for the browser, minified, exposed as a global.
    const bundled = await build({
      absWorkingDir: root,
      entryPoints: ["src/client/index.ts"],
      bundle: true,
      minify: true,
      format: "iife",
      globalName: "BuddyClient",
      platform: "browser",
      write: false,
      logLevel: "silent"
    })
    const script = bundled.outputFiles[0]?.text ?? ""
    bundleSize = script.length
    const port = await freePort()
    origin = `http://127.0.0.1:${port}`
    const launchpad = await nodeLaunchpad(
      BuddyConfig.forGateway({
        hermesHome: fake.home,
        launchpadOrigin: origin,
        buddyOrigin: "http://buddy.invalid",
        environment: "hosted-personal",
        locale: "en"
      })
    )
    server = launchpad.server
    closeLaunchpad = launchpad.close
    // The example answers everything; its page and the client's bundle are served in front of it.
    const example = server.listeners("request")[0] as http.RequestListener
    server.removeAllListeners("request")
    server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
      if (request.url === "/page.html") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        return response.end(page("Launchpad", "<script src=\"/buddy-client.js\"></script>"))
      }
      if (request.url === "/buddy-client.js") {
        response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" })
        return response.end(script)
      }
      return example(request, response)
    })
    await new Promise<void>((resolve) => server?.listen(port, "127.0.0.1", resolve))
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, timeout: 20_000 })
  }, 45_000)

  afterAll(async () => {
    await browser?.close()
    if (server !== undefined) await close(server)
    await closeLaunchpad?.()
    await fake?.close()
  }, 20_000)

  it("starts, polls and cancels with only the headers Chromium sends; Hermes sees start, poll and cancel", async () => {
    if (browser === undefined || fake === undefined) throw new Error("not set up")
    expect(bundleSize).toBeGreaterThan(0)
    const launchpad = await browser.newPage()
    await launchpad.goto(`${origin}/page.html`)
    fake.clearReceived()
    const results = await launchpad.evaluate(async () => {
      const { BuddyClient } = globalThis as unknown as {
        readonly BuddyClient: { readonly makeBuddyClient: typeof makeBuddyClient }
      }
      const client = BuddyClient.makeBuddyClient({ pollInterval: 50 })
      const status = await client.status()
      const started = await client.start()
      const handle = started.kind === "sign-in" ? started.handle : ""
      const polled = await client.poll(handle)
      const cancelled = await client.cancel(handle)
      const held = await client.hold(handle)
      return { status, started, polled, cancelled, held }
    })
    expect(results.status).toStrictEqual({ kind: "buddy", state: "waits", signIn: { state: "none" }, locale: "en" })
    expect(results.started).toMatchObject({
      kind: "sign-in",
      state: "pending",
      code: "ABCD-EFGHK",
      page: "https://auth.openai.com/codex/device"
    })
    expect(results.polled).toMatchObject({ kind: "sign-in", state: "pending" })
    expect(results.cancelled).toStrictEqual({ kind: "sign-in", state: "cancelled" })
    expect(results.held).toStrictEqual({ kind: "sign-in", state: "cancelled" })
    const asked = fake.received.flatMap((entry) =>
      entry.channel === "http" ? [`${entry.method} ${entry.path.replace(/\/(poll|sessions)\/[^/]+$/, "/$1/<id>")}`] : []
    )
    expect(asked).toStrictEqual([
      "GET /api/providers/oauth",
      "POST /api/providers/oauth/openai-codex/start",
      "GET /api/providers/oauth/openai-codex/poll/<id>",
      // The cancel polls first (C4.7): still pending, so it is cancelled.
      "GET /api/providers/oauth/openai-codex/poll/<id>",
      "DELETE /api/providers/oauth/sessions/<id>"
    ])
    expect(fake.sessions().map((session) => session.cancelled)).toStrictEqual([true])
    await launchpad.close()
  }, 20_000)
})
