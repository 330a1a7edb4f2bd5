// What the deploy tests share: the operator guide's tested snippets and the package's systemd units
// read as they stand, the accounts a deployment has (the proxy's, and one for buddy that is a member
// of the proxy's group), the proxies started as those accounts, and raw exchanges over TLS and over
// a Unix socket as another account. Node's spawn with uid/gid drops supplementary groups, so a
// process that must keep them (buddy serve in the proxy's group, Caddy) is started through
// util-linux's setpriv with --init-groups, as systemd's User= would start it.
import { execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import * as tls from "node:tls"
import { fileURLToPath } from "node:url"
export { unixExchangeAs } from "../../support/unix-exchange.js"

export const REPO = fileURLToPath(new URL("../../../", import.meta.url))
/**
 * The `buddy` executable (package.json "bin"), which runs the built bundle dist/buddy.js that the test
 * run's global setup builds: what `npm install -g` links as PREFIX/bin/buddy (/usr/bin/buddy on Debian).
 */
export const BUDDY = path.join(REPO, "bin", "buddy.js")
export const GUIDE = path.join(REPO, "docs", "operator-guide.md")
export const UNITS = path.join(REPO, "systemd")

/** Where the guide and the system units put buddy's socket. */
export const SYSTEM_SOCKET = "/run/buddy/serve.sock"

export const isRoot = process.getuid?.() === 0

// --- the guide's tested snippets --------------------------------------------------------------

export interface Snippet {
  /** The test file the marker names. */
  readonly test: string
  /** The name after the test file (`nginx`, `caddy`). */
  readonly name: string
  /** The fence's language. */
  readonly language: string
  /** The fenced text, verbatim, with its final newline. */
  readonly text: string
}

const marker = /<!-- tested in the repository: (test\/[^\s,]+), ([\w-]+) -->\n```([\w-]*)\n([\s\S]*?\n)```/g

/** Every fenced block of the markdown that a `<!-- tested in the repository: FILE, NAME -->` line marks. */
export const testedSnippets = (markdown: string): ReadonlyArray<Snippet> =>
  [...markdown.matchAll(marker)].map(([, test = "", name = "", language = "", text = ""]) => ({
    test,
    name,
    language,
    text
  }))

/** The guide's snippet of that name, marked for `test`. */
export const guideSnippet = (test: string, name: string): Snippet => {
  const found = testedSnippets(readFileSync(GUIDE, "utf8")).filter((one) => one.test === test && one.name === name)
  if (found.length !== 1) throw new Error(`docs/operator-guide.md has ${found.length} snippets marked ${test}, ${name}`)
  return found[0]!
}

/** `text` with every `from` replaced, failing when there is none: a substitution that misses proves nothing. */
export const substitute = (text: string, from: string, to: string): string => {
  if (!text.includes(from)) throw new Error(`the snippet has no ${JSON.stringify(from)} to substitute`)
  return text.replaceAll(from, to)
}

// --- the systemd units --------------------------------------------------------------------------

/** A unit file's settings: each `Key=value` line under its section, in order, comments left out. */
const unitSettings = (
  text: string
): ReadonlyArray<{ readonly section: string; readonly key: string; readonly value: string }> => {
  let section = ""
  const settings: Array<{ section: string; key: string; value: string }> = []
  for (const raw of text.split("\n")) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const header = /^\[(.+)\]$/.exec(line)
    if (header !== null) {
      section = header[1]!
      continue
    }
    const eq = line.indexOf("=")
    if (eq > 0) settings.push({ section, key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() })
  }
  return settings
}

/** The values of one key in a unit file (systemd's own order). */
export const unitValues = (file: string, key: string): ReadonlyArray<string> =>
  unitSettings(readFileSync(path.join(UNITS, file), "utf8")).filter((s) => s.key === key).map((s) => s.value)

/** The one value of a key, failing when there is not exactly one. */
export const unitValue = (file: string, key: string): string => {
  const values = unitValues(file, key)
  if (values.length !== 1) throw new Error(`${file} has ${values.length} ${key}= lines`)
  return values[0]!
}

// --- accounts -----------------------------------------------------------------------------------

/** The account these tests run buddy serve as: a member of each proxy's group, as the guide says. */
export const BUDDY_ACCOUNT = "buddy-deploy-test"
export const NOBODY = 65534

export interface Account {
  readonly name: string
  readonly uid: number
  readonly gid: number
}

const idOf = (flag: "-u" | "-g", name: string): number =>
  Number(execFileSync("id", [flag, name], { encoding: "utf8" }).trim())

export const account = (name: string): Account => ({ name, uid: idOf("-u", name), gid: idOf("-g", name) })

export const groupId = (name: string): number => {
  const entry = execFileSync("getent", ["group", name], { encoding: "utf8" }).trim()
  return Number(entry.split(":")[2])
}

// Test files run in parallel and useradd refuses to run beside another: one at a time, under a lock
// in root's own /run (no other account can squat it).
const ACCOUNTS_LOCK = "/run/buddy-deploy-test-accounts.lock"

/**
 * Debian's caddy package makes its `caddy` account; where it did not (a container that skipped its
 * scripts), the test makes it as the package would. Then buddy's test account, a member of `groups`.
 * Root only.
 */
export const ensureAccounts = (groups: ReadonlyArray<string>): Account => {
  const script = [
    "set -e",
    "id -u caddy >/dev/null 2>&1 || useradd --system --user-group --home-dir /var/lib/caddy --shell /usr/sbin/nologin caddy",
    "id -u \"$1\" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \"$1\"",
    "[ -z \"$2\" ] || usermod -a -G \"$2\" \"$1\""
  ].join("\n")
  execFileSync("flock", [ACCOUNTS_LOCK, "sh", "-c", script, "sh", BUDDY_ACCOUNT, groups.join(",")], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  return account(BUDDY_ACCOUNT)
}

/** A shell script run as root while no other test changes the accounts files. */
export const asRootLocked = (script: string): void => {
  execFileSync("flock", [ACCOUNTS_LOCK, "sh", "-ec", script], { stdio: ["ignore", "ignore", "inherit"] })
}

export const asAccount = (name: string, env: Record<string, string> = {}): ReadonlyArray<string> => [
  "setpriv",
  `--reuid=${name}`,
  `--regid=${name}`,
  "--init-groups",
  "--reset-env",
  "env",
  ...Object.entries(env).map(([key, value]) => `${key}=${value}`)
]

/** The uid and supplementary groups of a running process, as the kernel has them. */
export const processCredentials = (pid: number): { readonly uid: number; readonly groups: ReadonlyArray<number> } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const field = (name: string) => (new RegExp(`^${name}:\\s*(.*)$`, "m").exec(status)?.[1] ?? "").trim()
  return {
    uid: Number(field("Uid").split(/\s+/)[0]),
    groups: field("Groups").split(/\s+/).filter((g) => g !== "").map(Number)
  }
}

// --- ports and processes ------------------------------------------------------------------------

/** A free port on 127.0.0.1 (free when asked; the proxy binds it next). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** Polls `ready` (a check that resolves true once the thing is up) until it is, or `ms` pass. */
export const until = async (what: string, ready: () => Promise<boolean>, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await ready()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`${what} was not up within ${ms} ms`)
}

/** Whether a TLS handshake for `servername` completes on 127.0.0.1:port. */
export const tlsAnswers = (port: number, servername = "launchpad.example"): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = tls.connect({ host: "127.0.0.1", port, servername, rejectUnauthorized: false })
    socket.once("secureConnect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

export interface Child {
  readonly pid: number
  /** What it said on stdout and stderr so far. */
  readonly output: () => string
  readonly exited: Promise<number | null>
  /** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. */
  readonly stop: () => Promise<void>
}

export const startChild = (command: ReadonlyArray<string>, options: { readonly cwd?: string } = {}): Child => {
  const [file, ...args] = command
  const child = spawn(file!, args, { cwd: options.cwd ?? "/", stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  process.once("exit", () => child.kill("SIGKILL"))
  return {
    pid: child.pid ?? -1,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const hard = setTimeout(() => child.kill("SIGKILL"), 5_000)
      child.kill("SIGTERM")
      await exited
      clearTimeout(hard)
    }
  }
}

// --- exchanges ------------------------------------------------------------------------------------

export interface Answer {
  readonly status: string
  /** Header lines, names lowercased. */
  readonly headers: ReadonlyArray<readonly [string, string]>
  /** The body, de-chunked when it came chunked. */
  readonly body: string
}

/** One HTTP/1.1 answer read whole from the bytes of a connection the server closed. */
export const parseAnswer = (bytes: string): Answer => {
  const end = bytes.indexOf("\r\n\r\n")
  if (end < 0) throw new Error(`no whole answer: ${JSON.stringify(bytes)}`)
  const [status = "", ...lines] = bytes.slice(0, end).split("\r\n")
  const headers = lines.map((line) => {
    const colon = line.indexOf(":")
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const
  })
  let body = bytes.slice(end + 4)
  if (headers.some(([name, value]) => name === "transfer-encoding" && /chunked/i.test(value))) {
    let rest = body
    body = ""
    for (;;) {
      const lineEnd = rest.indexOf("\r\n")
      const size = parseInt(rest.slice(0, lineEnd), 16)
      if (!(size > 0)) break
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size)
      rest = rest.slice(lineEnd + 2 + size + 2)
    }
  }
  return { status, headers, body }
}

/** Writes `raw` over TLS to 127.0.0.1:port (SNI `servername`) and reads every byte until the close. */
export const tlsExchange = (port: number, raw: string, servername = "launchpad.example"): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, servername, rejectUnauthorized: false })
    let bytes = ""
    socket.setEncoding("latin1")
    socket.once("secureConnect", () => socket.write(raw))
    socket.on("data", (chunk: string) => (bytes += chunk))
    socket.once("error", reject)
    socket.once("close", () => resolve(bytes))
  })

/** A directory made for `owner` with `mode`, as systemd makes a RuntimeDirectory= for User=. */
export const ownedDirectory = async (dir: string, owner: Account, mode: number): Promise<string> => {
  await fs.mkdir(dir, { mode })
  await fs.chown(dir, owner.uid, owner.gid)
  await fs.chmod(dir, mode)
  return dir
}
