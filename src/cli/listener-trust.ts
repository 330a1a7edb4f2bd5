// Who `buddy serve` answers (C6 "Who may reach it"; docs/decisions.md D22), decided here for
// every connection and request before the HttpApp sees one, so the app itself stays host-agnostic
// for a Launchpad that mounts it behind its own authentication:
// - on the owner-only socket the kernel has already decided (its 0700 directory and 0600 mode);
// - on TCP each connection's peer account is established from the kernel's socket tables, and a
//   peer that is neither this account nor an allowed one is closed before a byte is answered;
// - every request's authority must name this server or the Launchpad (./host-pin.ts).
import { Effect, Option } from "effect"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { type Ends, makePeerFinder } from "./peer-account.js"

/** Whether a connection may be answered, and the way to wait until that is known. */
export interface Admission {
  /** For each accepted connection, before anything is answered on it. */
  readonly accepted: (socket: Socket) => void
  /** Runs `then` once the connection is admitted; never, if it is refused (it is closed then). */
  readonly whenAdmitted: (socket: Duplex, then: () => void) => void
}

/** The owner-only socket: the kernel let only this account (and root) connect. */
export const socketAdmission: Admission = {
  accepted: () => {},
  whenAdmitted: (_socket, then) => then()
}

type Verdict = "admitted" | "refused" | ReadonlyArray<() => void>

/** The ends of an accepted connection, or none if it is already gone. */
const endsOf = (socket: Socket): Option.Option<Ends> => {
  const { localAddress, localPort, remoteAddress, remotePort } = socket
  return localAddress === undefined || localPort === undefined || remoteAddress === undefined ||
      remotePort === undefined
    ? Option.none()
    : Option.some({
      client: { address: remoteAddress, port: remotePort },
      server: { address: localAddress, port: localPort }
    })
}

/** At most this many accounts are named on stderr; a flood of refusals says nothing more. */
const reportedLimit = 64

export interface PeerPolicy {
  /** This account's uid and the allowed accounts' uids. */
  readonly allowed: ReadonlySet<number>
  /** Says a refused peer on stderr, once per account: `describe` names it. */
  readonly report: (line: string) => void
  readonly describe: (uid: number) => string
  /** The kernel's TCP tables (tests point it elsewhere). */
  readonly tables?: ReadonlyArray<string>
}

/** TCP on loopback: a connection is answered only once its peer is proven to be an allowed account. */
export const peerAdmission = (policy: PeerPolicy): Admission => {
  const find = makePeerFinder(policy.tables)
  const verdicts = new WeakMap<Duplex, Verdict>()
  const reported = new Set<number | "unknown">()
  const report = (peer: Option.Option<number>) => {
    const key = Option.getOrElse(peer, (): number | "unknown" => "unknown")
    if (reported.has(key) || reported.size >= reportedLimit) return
    reported.add(key)
    policy.report(
      Option.match(peer, {
        onNone: () =>
          "buddy serve: refused a connection whose account could not be established; " +
          "such refusals are not repeated.",
        onSome: (uid) =>
          `buddy serve: refused a connection from ${policy.describe(uid)}: only this account and ` +
          `the config's allowedAccounts may connect; its refusals are not repeated.`
      })
    )
  }
  const decide = (socket: Socket, peer: Option.Option<number>) => {
    const waiting = verdicts.get(socket)
    const admitted = Option.exists(peer, (uid) => policy.allowed.has(uid))
    verdicts.set(socket, admitted ? "admitted" : "refused")
    if (!admitted) {
      socket.destroy()
      report(peer)
      return
    }
    if (waiting !== undefined && typeof waiting !== "string") waiting.forEach((then) => then())
  }
  return {
    accepted: (socket) => {
      verdicts.set(socket, [])
      Option.match(endsOf(socket), {
        onNone: () => decide(socket, Option.none()),
        onSome: (ends) => Effect.runFork(Effect.map(find(ends), (peer) => decide(socket, peer)))
      })
    },
    whenAdmitted: (socket, then) => {
      const verdict = verdicts.get(socket)
      if (verdict === "admitted") then()
      else if (verdict !== undefined && verdict !== "refused") verdicts.set(socket, [...verdict, then])
    }
  }
}
