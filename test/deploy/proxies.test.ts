// The operator guide's own reverse-proxy snippets, run for real (issue 24, items 2 and 3): Debian's
// nginx (master as root, workers as www-data, as Debian's nginx.conf says `user www-data;`) and
// Debian's Caddy (as caddy), each with the guide's snippet as it stands but for the socket's path and
// the port it listens on, over TLS, in front of the real `buddy serve` (bin/buddy.js running the built dist/buddy.js) run
// as a non-root account that is a member of the proxy's group, as the system unit runs it: its
// RUNTIME_DIRECTORY made as systemd makes it (owner buddy's account, the unit's
// RuntimeDirectoryMode=), its config naming the proxy's group as socketGroup. The fake Hermes
// gateway runs in another process as that same account (C1: buddy's account owns Hermes's home
// and socket), and its record of what it received is the proof of what reached Hermes.
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { renderHttp } from "../../fixtures/hermes/templates.js"
import { type Running, spawnBuddy } from "../cli/support/buddy-process.js"
import { type RemoteGateway, spawnGateway } from "../support/gateway-process.js"
import { requires } from "../support/required.js"
import {
  type Account,
  account,
  asAccount,
  BUDDY,
  BUDDY_ACCOUNT,
  type Child,
  ensureAccounts,
  freePort,
  groupId,
  guideSnippet,
  isRoot,
  NOBODY,
  ownedDirectory,
  parseAnswer,
  processCredentials,
  startChild,
  substitute,
  SYSTEM_SOCKET,
  tlsAnswers,
  tlsExchange,
  unitValue,
  unixExchangeAs,
  until
} from "./support/deploy.js"

const TEST = "test/deploy/proxies.test.ts"
const NGINX = "/usr/sbin/nginx"
const CADDY = "/usr/bin/caddy"
const CERTIFICATE = ["/etc/ssl/certs/ssl-cert-snakeoil.pem", "/etc/ssl/private/ssl-cert-snakeoil.key"]

const hasRoot = requires(
  isRoot,
  "root (to make the accounts and start nginx, Caddy and buddy serve as them)",
  "run the tests as root, as CI does"
)
const hasSetpriv = requires(existsSync("/usr/bin/setpriv"), "/usr/bin/setpriv", "apt-get install util-linux")
const hasNginx = requires(existsSync(NGINX), NGINX, "apt-get install nginx")
const hasCertificate = requires(
  CERTIFICATE.every((file) => existsSync(file)),
  "Debian's self-signed certificate (the nginx snippet's)",
  "apt-get install ssl-cert && make-ssl-cert generate-default-snakeoil"
)
const hasCaddy = requires(existsSync(CADDY), CADDY, "apt-get install caddy")

/** The code and page the fake gateway's start answer carries (fixtures/hermes/recorded.json). */
const issued = JSON.parse(renderHttp("start-ok", { session_id: "any" }).body) as {
  readonly user_code: string
  readonly verification_url: string
}

interface Proxy {
  readonly name: "nginx" | "caddy"
  /** The proxy's group, named as socketGroup and given to buddy's account. */
  readonly group: string
  readonly present: boolean
  /** Starts the proxy on 127.0.0.1:port with the guide's snippet, `socket` for the guide's socket. */
  readonly start: (dir: string, port: number, socket: string) => Promise<Child>
}

/** nginx's main context as Debian's /etc/nginx/nginx.conf has it (`user www-data;`), its files in `dir`. */
const nginxMain = (dir: string, user = "www-data") =>
  `user ${user};
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${dir}/launchpad.conf;
}
`

const startNginx = async (dir: string, port: number, socket: string, user = "www-data"): Promise<Child> => {
  const site = substitute(
    substitute(guideSnippet(TEST, "nginx").text, SYSTEM_SOCKET, socket),
    "listen 443 ssl;",
    `listen 127.0.0.1:${port} ssl;`
  )
  await fs.writeFile(path.join(dir, "launchpad.conf"), site)
  await fs.writeFile(path.join(dir, "nginx.conf"), nginxMain(dir, user))
  const nginx = startChild([
    NGINX,
    "-p",
    `${dir}/`,
    "-e",
    path.join(dir, "error.log"),
    "-c",
    path.join(dir, "nginx.conf")
  ])
  await until("nginx", () => tlsAnswers(port))
  return nginx
}

/**
 * What keeps Caddy offline and to itself, in a global options block before the guide's Caddyfile:
 * its own local CA (no ACME), trust not installed, no admin endpoint, no redirect listener on :80,
 * loopback only, its storage in the test's directory.
 */
const caddyGlobals = (dir: string) =>
  `{
	admin off
	local_certs
	skip_install_trust
	auto_https disable_redirects
	default_bind 127.0.0.1
	storage file_system ${dir}/storage
}

`

const startCaddy = async (dir: string, port: number, socket: string): Promise<Child> => {
  const site = substitute(
    substitute(guideSnippet(TEST, "caddy").text, SYSTEM_SOCKET, socket),
    "launchpad.example {",
    `launchpad.example:${port} {`
  )
  const caddy = account("caddy")
  await fs.chown(dir, caddy.uid, caddy.gid)
  const file = path.join(dir, "Caddyfile")
  await fs.writeFile(file, caddyGlobals(dir) + site)
  const child = startChild([
    ...asAccount("caddy", {
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, "config"),
      XDG_DATA_HOME: path.join(dir, "data")
    }),
    CADDY,
    "run",
    "--config",
    file,
    "--adapter",
    "caddyfile"
  ])
  await until("caddy", () => tlsAnswers(port))
  return child
}

const proxies: ReadonlyArray<Proxy> = [
  { name: "nginx", group: "www-data", present: hasNginx && hasCertificate, start: startNginx },
  { name: "caddy", group: "caddy", present: hasCaddy, start: startCaddy }
]

const request = (method: "GET" | "POST", target: string, host: string, headers: Record<string, string> = {}) => {
  const body = method === "POST" ? "{}" : ""
  const lines = [
    `${method} ${target} HTTP/1.1`,
    `Host: ${host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ...(method === "POST" ? ["Content-Type: application/json", `Content-Length: ${body.length}`] : []),
    "Connection: close"
  ]
  return `${lines.join("\r\n")}\r\n\r\n${body}`
}

/** What the gateway received, as verbs (control) and `METHOD path` (HTTP). */
const heard = (
  received: ReadonlyArray<
    { readonly channel: string; readonly line?: string; readonly method?: string; readonly path?: string }
  >
) =>
  received.map((entry) =>
    entry.channel === "control"
      ? (JSON.parse(entry.line ?? "{}") as { readonly verb?: string }).verb ?? "?"
      : `${entry.method} ${entry.path}`
  )

const hostRefused = "{\"error\":\"denied\",\"reason\":\"host-mismatch\"}"

for (const proxy of proxies) {
  describe.skipIf(!(hasRoot && hasSetpriv && proxy.present))(
    `the guide's ${proxy.name} snippet in front of buddy serve`,
    {
      timeout: 30_000
    },
    () => {
      let base = ""
      let port = 0
      let socket = ""
      let launchpad = ""
      let buddyAccount: Account | undefined
      let gateway: RemoteGateway | undefined
      let serve: Running | undefined
      let running: Child | undefined

      const fake = () => {
        if (gateway === undefined) throw new Error("no gateway")
        return gateway
      }
      const served = () => {
        if (serve === undefined) throw new Error("no buddy serve")
        return serve
      }

      beforeAll(async () => {
        buddyAccount = ensureAccounts(["www-data", "caddy"])
        base = await fs.mkdtemp(path.join(os.tmpdir(), `buddy-deploy-${proxy.name}-`))
        await fs.chmod(base, 0o755)
        port = await freePort()
        launchpad = `https://launchpad.example:${port}`

        // Hermes runs as buddy's account: its home and socket are that account's (C1).
        gateway = await spawnGateway({}, { uid: buddyAccount.uid, gid: buddyAccount.gid })

        // The system unit's runtime directory, as systemd makes it for User=.
        const runtimeMode = parseInt(unitValue("system/buddy.service", "RuntimeDirectoryMode"), 8)
        const runtime = await ownedDirectory(path.join(base, "buddy"), buddyAccount, runtimeMode)
        socket = path.join(runtime, "serve.sock")
        const config = path.join(base, "serve.json")
        await fs.writeFile(
          config,
          JSON.stringify({
            hermesHome: gateway.home,
            launchpadOrigin: launchpad,
            buddyOrigin: "https://buddy.example",
            environment: "hosted-personal",
            locale: "en",
            socketGroup: proxy.group
          })
        )
        await fs.chmod(config, 0o644)
        serve = spawnBuddy(["serve", "--config", config], {
          command: [...asAccount(BUDDY_ACCOUNT, { RUNTIME_DIRECTORY: runtime }), process.execPath, BUDDY],
          stoppedByCaller: true
        })
        expect(await serve.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${socket}`)

        const proxyDir = await fs.mkdtemp(path.join(base, "proxy-"))
        await fs.chmod(proxyDir, 0o755)
        running = await proxy.start(proxyDir, port, socket)
      }, 60_000)

      afterAll(async () => {
        await running?.stop()
        if (serve !== undefined && serve.child.exitCode === null) {
          serve.child.kill("SIGTERM")
          await serve.finished
        }
        await gateway?.close()
        if (base !== "") await fs.rm(base, { recursive: true, force: true })
      }, 30_000)

      it("GET /api/buddy through the guide's snippet is 200 with the gateway's state; the gateway saw identify, mint and GET", async () => {
        await fake().setSignedIn(true)
        await fake().clearReceived()
        const answer = parseAnswer(await tlsExchange(port, request("GET", "/api/buddy", `launchpad.example:${port}`)))
        expect([answer.status, JSON.parse(answer.body)]).toStrictEqual([
          "HTTP/1.1 200 OK",
          { kind: "buddy", state: "works", signIn: { state: "none" }, locale: "en" }
        ])
        expect(heard(await fake().received())).toStrictEqual(["identify", "session-ticket", "GET /api/providers/oauth"])
        await fake().setSignedIn(false)
        const waits = parseAnswer(await tlsExchange(port, request("GET", "/api/buddy", `launchpad.example:${port}`)))
        expect(JSON.parse(waits.body)).toStrictEqual({
          kind: "buddy",
          state: "waits",
          signIn: { state: "none" },
          locale: "en"
        })
      })

      it("only /api/buddy and what is under it reach buddy: /api/buddyx stays the Launchpad's", async () => {
        const host = `launchpad.example:${port}`
        const buddys = (answer: ReturnType<typeof parseAnswer>) =>
          answer.headers.some(([name, value]) => name === "x-content-type-options" && value === "nosniff")
        const document = parseAnswer(await tlsExchange(port, request("GET", "/api/buddy/openapi.json", host)))
        expect([document.status, buddys(document)]).toStrictEqual(["HTTP/1.1 200 OK", true])
        const unknown = parseAnswer(await tlsExchange(port, request("GET", "/api/buddy/nothing", host)))
        expect([unknown.status, unknown.body]).toStrictEqual(["HTTP/1.1 404 Not Found", "{\"error\":\"not-found\"}"])
        await fake().clearReceived()
        const stderrBefore = served().stderrNow().length
        for (const target of ["/api/buddyx", "/api/buddy-other/sign-in/start", "/api"]) {
          const answer = parseAnswer(await tlsExchange(port, request("GET", target, host)))
          expect([target, buddys(answer), answer.body.includes("\"error\"")]).toStrictEqual([target, false, false])
        }
        expect(await fake().received()).toStrictEqual([])
        expect(served().stderrNow().slice(stderrBefore)).toStrictEqual([])
      })

      it("the Launchpad's POST /api/buddy/sign-in/start through it returns the code the gateway issued", async () => {
        await fake().clearReceived()
        const journalBefore = served().stdoutNow().length
        const answer = parseAnswer(
          await tlsExchange(
            port,
            request("POST", "/api/buddy/sign-in/start", `launchpad.example:${port}`, {
              Origin: launchpad,
              "Sec-Fetch-Site": "same-origin"
            })
          )
        )
        expect(answer.status).toBe("HTTP/1.1 200 OK")
        const started = JSON.parse(answer.body) as Record<string, unknown>
        expect(started).toStrictEqual({
          kind: "sign-in",
          state: "pending",
          handle: expect.stringMatching(/^[0-9a-f]{32}$/),
          code: issued.user_code,
          page: issued.verification_url
        })
        expect(heard(await fake().received())).toContain("POST /api/providers/oauth/openai-codex/start")
        expect((await fake().sessions()).filter((session) => session.inMap)).toHaveLength(1)
        await served().stdoutLines(journalBefore + 1)
        expect(served().stdoutNow().slice(journalBefore)).toStrictEqual([
          "{\"scope\":\"buddy-sign-in\",\"operation\":\"start\",\"outcome\":\"pending\"}"
        ])
      })

      it("a Host the guide does not send is refused 403 host-mismatch, and buddy's stderr says so once", async () => {
        await fake().clearReceived()
        const stderrBefore = served().stderrNow().length
        // nginx's only server takes any name and passes it on: a page that rebinds evil.example to
        // the proxy. Caddy serves only its site's name, and passes the port on as the client sent it.
        const foreign = proxy.name === "nginx" ? `evil.example:${port}` : `launchpad.example:${port + 1}`
        for (
          const [method, target] of [["GET", "/api/buddy"], ["POST", "/api/buddy/sign-in/start"], [
            "GET",
            "/api/buddy"
          ]] as const
        ) {
          const answer = parseAnswer(
            await tlsExchange(
              port,
              request(method, target, foreign, { Origin: launchpad, "Sec-Fetch-Site": "same-origin" })
            )
          )
          expect([method, answer.status, answer.body]).toStrictEqual([method, "HTTP/1.1 403 Forbidden", hostRefused])
        }
        expect(await fake().received()).toStrictEqual([])
        // Said at the first refusal (a pipe's write is synchronous in Node, so it was in the pipe
        // before its answer left), and not again for the two after it.
        await served().stderrWith(`launchpad.example:${port}`)
        const said = served().stderrNow().slice(stderrBefore)
        expect(said).toHaveLength(1)
        for (const name of ["localhost", "127.0.0.1", "[::1]", `launchpad.example:${port}`]) {
          expect(said[0]).toContain(name)
        }
        if (proxy.name === "caddy") {
          // A name Caddy does not serve never reaches buddy at all.
          const other = await tlsExchange(port, request("GET", "/api/buddy", `evil.example:${port}`))
          expect(other).not.toContain("host-mismatch")
          expect(await fake().received()).toStrictEqual([])
          expect(served().stderrNow().slice(stderrBefore)).toHaveLength(1)
        }
      })

      if (proxy.name === "nginx") {
        it("an nginx whose workers are not in the group gets 502, its error.log says Permission denied, as the guide says; buddy hears nothing", async () => {
          const dir = await fs.mkdtemp(path.join(base, "outsider-"))
          await fs.chmod(dir, 0o755)
          const outsiderPort = await freePort()
          const outsider = await startNginx(dir, outsiderPort, socket, "nobody nogroup")
          try {
            await fake().clearReceived()
            const stdoutBefore = served().stdoutNow().length
            const answer = parseAnswer(
              await tlsExchange(outsiderPort, request("GET", "/api/buddy", `launchpad.example:${port}`))
            )
            expect(answer.status).toBe("HTTP/1.1 502 Bad Gateway")
            const log = await fs.readFile(path.join(dir, "error.log"), "utf8")
            expect(log).toContain(`connect() to unix:${socket} failed (13: Permission denied)`)
            expect(await fake().received()).toStrictEqual([])
            expect(served().stdoutNow().slice(stdoutBefore)).toStrictEqual([])
          } finally {
            await outsider.stop()
          }
        })
      }

      it("buddy serve runs as a member of the proxy's group, not root; another account (uid 65534, not in it) cannot connect: EACCES, the gateway hears nothing", async () => {
        const group = groupId(proxy.group)
        const credentials = processCredentials(served().child.pid ?? -1)
        expect(credentials.uid).not.toBe(0)
        expect(credentials.uid).toBe(buddyAccount?.uid)
        expect(credentials.groups).toContain(group)
        const directory = await fs.lstat(path.dirname(socket))
        const node = await fs.lstat(socket)
        expect({
          directory: [directory.mode & 0o777, directory.uid, directory.gid],
          socket: [node.isSocket(), node.mode & 0o777, node.uid, node.gid]
        }).toStrictEqual({
          directory: [0o710, credentials.uid, group],
          socket: [true, 0o660, credentials.uid, group]
        })
        await fake().clearReceived()
        const stdoutBefore = served().stdoutNow().length
        for (
          const raw of [
            request("GET", "/api/buddy", "localhost"),
            request("POST", "/api/buddy/sign-in/start", "localhost", {
              Origin: launchpad,
              "Sec-Fetch-Site": "same-origin"
            })
          ]
        ) {
          expect(await unixExchangeAs(socket, raw, { uid: NOBODY, gid: NOBODY })).toStrictEqual({
            bytes: "",
            error: "EACCES"
          })
        }
        expect(await fake().received()).toStrictEqual([])
        expect(served().stdoutNow().slice(stdoutBefore)).toStrictEqual([])
        // The proxy's own account, the same way: it connects and is served.
        const own = account(proxy.name === "nginx" ? "www-data" : "caddy")
        const reached = await unixExchangeAs(socket, request("GET", "/api/buddy", "localhost"), {
          uid: own.uid,
          gid: group
        })
        expect([reached.error, parseAnswer(reached.bytes).status]).toStrictEqual([undefined, "HTTP/1.1 200 OK"])
      })
    }
  )
}
