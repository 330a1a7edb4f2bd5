// The operator guide's own reverse-proxy snippets, run for real (issue 24, items 2 and 3): Debian's
// nginx (master as root, workers as www-data, as Debian's nginx.conf says `user www-data;`) and
// Debian's Caddy (as caddy), each with the guide's snippet as it stands but for the socket's path and
// the port it listens on, over TLS, in front of the real `buddy serve` (bin/buddy.js running the built dist/buddy.js) run
// as a non-root account that is a member of the proxy's group, as the system unit runs it: its
// RUNTIME_DIRECTORY made as systemd makes it (owner buddy's account, the unit's
// RuntimeDirectoryMode=), its config naming the proxy's group as socketGroup. The fake Hermes
// gateway runs in another process as that same account (C1: buddy's account owns Hermes's home
// and socket), and its record of what it received is the proof of what reached Hermes.
import { execFileSync } from "node:child_process"
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
  asRootLocked,
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
  /** The proxy's account, put in the proxy's own group by the guide's steps. */
  readonly account: string
  /** Where buddy serve listens: the system unit's directory, or the guide's manual place. */
  readonly place: "unit" | "manual"
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
  { name: "nginx", account: "www-data", place: "unit", present: hasNginx && hasCertificate, start: startNginx },
  { name: "caddy", account: "caddy", place: "manual", present: hasCaddy, start: startCaddy }
]

const request = (
  method: "GET" | "POST",
  target: string,
  host: string,
  headers: Record<string, string> = {},
  body = method === "POST" ? "{}" : ""
) => {
  const lines = [
    `${method} ${target} HTTP/1.1`,
    `Host: ${host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ...(method === "POST" ? ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`] : []),
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

/** The group the guide's steps make, its name unique to the run (the guide's is buddy-proxy). */
const groupFor = (proxy: Proxy) => `buddy-proxy-t-${proxy.name}`

/**
 * The guide's group steps as root, as they stand but for the group's name, buddy's account (the
 * test's), the proxy's account, and the restart (the test starts the proxy after them), from a
 * machine without that group.
 */
const makeProxyGroup = (proxy: Proxy, group: string) => {
  let steps = guideSnippet(TEST, "group").text
  steps = substitute(steps, "usermod -aG buddy-proxy buddy\n", `usermod -aG buddy-proxy ${BUDDY_ACCOUNT}\n`)
  steps = substitute(steps, "usermod -aG buddy-proxy www-data\n", `usermod -aG buddy-proxy ${proxy.account}\n`)
  steps = substitute(steps, "systemctl restart nginx\n", "")
  steps = substitute(steps, "buddy-proxy", group)
  asRootLocked(`if getent group ${group} >/dev/null; then groupdel ${group}; fi\n${steps}`)
}

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

      let group = ""

      beforeAll(async () => {
        buddyAccount = ensureAccounts([])
        group = groupFor(proxy)
        makeProxyGroup(proxy, group)
        base = await fs.mkdtemp(path.join(os.tmpdir(), `buddy-deploy-${proxy.name}-`))
        await fs.chmod(base, 0o755)
        port = await freePort()
        launchpad = `https://launchpad.example:${port}`

        // Hermes runs as buddy's account: its home and socket are that account's (C1).
        gateway = await spawnGateway({}, { uid: buddyAccount.uid, gid: buddyAccount.gid })

        const config = path.join(base, "serve.json")
        await fs.writeFile(
          config,
          JSON.stringify({
            hermesHome: gateway.home,
            launchpadOrigin: launchpad,
            buddyOrigin: "https://buddy.example",
            environment: "hosted-personal",
            socketGroup: group
          })
        )
        await fs.chmod(config, 0o644)
        if (proxy.place === "unit") {
          // The system unit's runtime directory, as systemd makes it for User=.
          const runtimeMode = parseInt(unitValue("system/buddy.service", "RuntimeDirectoryMode"), 8)
          const runtime = await ownedDirectory(path.join(base, "buddy"), buddyAccount, runtimeMode)
          socket = path.join(runtime, "serve.sock")
          serve = spawnBuddy(["serve", "--config", config], {
            command: [...asAccount(BUDDY_ACCOUNT, { RUNTIME_DIRECTORY: runtime }), process.execPath, BUDDY],
            stoppedByCaller: true
          })
        } else {
          // The guide's manual place, made and started by its two lines as they stand but for the
          // place, the account, the config's path and buddy's path.
          const place = path.join(base, "run-buddy")
          let steps = guideSnippet(TEST, "manual-place").text
          steps = substitute(steps, "/run/buddy", place)
          steps = substitute(steps, "-o buddy -g buddy-proxy", `-o ${BUDDY_ACCOUNT} -g ${group}`)
          steps = substitute(
            steps,
            "runuser -u buddy -- buddy serve",
            `runuser -u ${BUDDY_ACCOUNT} -- ${process.execPath} ${BUDDY} serve`
          )
          steps = substitute(steps, "/etc/buddy/serve.json", config)
          const [make = "", start = ""] = steps.trim().split("\n")
          asRootLocked(make)
          socket = path.join(place, "serve.sock")
          serve = spawnBuddy([], { command: ["sh", "-c", `exec ${start}`], stoppedByCaller: true })
        }
        expect(await serve.stderrWith("listening on")).toContain(`buddy serve: listening on unix:${socket}`)
        // The group holds the proxy's account alone: nothing to warn of.
        expect(serve.stderrNow().filter((line) => line.includes("admits"))).toStrictEqual([])

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
        if (group !== "") asRootLocked(`groupdel ${group}`)
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
        // The person approves on the page; the Launchpad's poll through the proxy sees Buddy signed in.
        const [session] = (await fake().sessions()).filter((one) => one.inMap)
        expect(await fake().approve(session?.id ?? "")).toBe(true)
        const poll = () =>
          tlsExchange(
            port,
            request(
              "POST",
              "/api/buddy/sign-in/poll",
              `launchpad.example:${port}`,
              { Origin: launchpad, "Sec-Fetch-Site": "same-origin" },
              JSON.stringify({ handle: started["handle"] })
            )
          ).then((raw) => JSON.parse(parseAnswer(raw).body) as Record<string, unknown>)
        let polled = await poll()
        for (let tries = 0; polled["state"] === "pending" && tries < 50; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100))
          polled = await poll()
        }
        expect(polled).toStrictEqual({ kind: "sign-in", state: "signed-in" })
        const works = parseAnswer(await tlsExchange(port, request("GET", "/api/buddy", `launchpad.example:${port}`)))
        expect(JSON.parse(works.body)).toStrictEqual({
          kind: "buddy",
          state: "works",
          signIn: { state: "none" },
          locale: "en"
        })
        await fake().setSignedIn(false)
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
        const groupNumber = groupId(group)
        // runuser stays as buddy's parent (for PAM's session): buddy is its one child.
        const pid = served().child.pid ?? -1
        const buddyPid = proxy.place === "manual"
          ? Number(execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).trim())
          : pid
        const credentials = processCredentials(buddyPid)
        expect(credentials.uid).not.toBe(0)
        expect(credentials.uid).toBe(buddyAccount?.uid)
        expect(credentials.groups).toContain(groupNumber)
        const directory = await fs.lstat(path.dirname(socket))
        const node = await fs.lstat(socket)
        expect({
          directory: [directory.mode & 0o777, directory.uid, directory.gid],
          socket: [node.isSocket(), node.mode & 0o777, node.uid, node.gid]
        }).toStrictEqual({
          directory: [0o710, credentials.uid, groupNumber],
          socket: [true, 0o660, credentials.uid, groupNumber]
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
        const own = account(proxy.account)
        const reached = await unixExchangeAs(socket, request("GET", "/api/buddy", "localhost"), {
          uid: own.uid,
          gid: groupNumber
        })
        expect([reached.error, parseAnswer(reached.bytes).status]).toStrictEqual([undefined, "HTTP/1.1 200 OK"])
      })
    }
  )
}

describe.skipIf(!(hasRoot && hasSetpriv && hasCaddy))("the proxy's usual group instead of one of its own", () => {
  it(
    "is named at start with the accounts it admits: www-data holds Caddy too on Debian",
    { timeout: 30_000 },
    async () => {
      const buddyAccount = ensureAccounts([])
      asRootLocked(`usermod -aG www-data caddy\ngpasswd -a ${BUDDY_ACCOUNT} www-data`)
      const base = await fs.mkdtemp(path.join(os.tmpdir(), "buddy-deploy-shared-"))
      try {
        await fs.chmod(base, 0o755)
        const config = path.join(base, "serve.json")
        await fs.writeFile(
          config,
          JSON.stringify({
            launchpadOrigin: "https://launchpad.example",
            environment: "local",
            socketGroup: "www-data"
          })
        )
        await fs.chmod(config, 0o644)
        const runtime = await ownedDirectory(path.join(base, "buddy"), buddyAccount, 0o700)
        const serve = spawnBuddy(["serve", "--config", config], {
          command: [...asAccount(BUDDY_ACCOUNT, { RUNTIME_DIRECTORY: runtime }), process.execPath, BUDDY]
        })
        const said = await serve.stderrWith("listening on")
        const admits = said.filter((line) => line.includes("admits"))
        expect(admits).toHaveLength(1)
        expect(admits[0]).toMatch(
          /^buddy serve: the socketGroup www-data admits \d+ accounts to the socket \(.*\bcaddy\b.*\)/
        )
        expect(admits[0]).toContain("www-data")
        expect(admits[0]).not.toContain(BUDDY_ACCOUNT)
        serve.child.kill("SIGTERM")
        await serve.finished
      } finally {
        asRootLocked(`gpasswd -d ${BUDDY_ACCOUNT} www-data`)
        await fs.rm(base, { recursive: true, force: true })
      }
    }
  )
})
