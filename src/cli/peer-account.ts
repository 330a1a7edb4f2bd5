// Which local account is on the other end of a loopback TCP connection (C6 "Who may reach it";
// docs/decisions.md D22). Node has no SO_PEERCRED, but on Linux both ends of a loopback connection
// are this machine's sockets, and the kernel lists each socket with its owner in /proc/net/tcp (or
// /proc/net/tcp6, for a dual-stack client reaching 127.0.0.1 as ::ffff:127.0.0.1): the client's
// socket is the entry whose local end is the connection's remote end and the other way round.
import { Data, Effect, Option } from "effect"
import * as fsp from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import { errnoOf } from "../services/errno.js"

export const tcpTables = ["/proc/net/tcp", "/proc/net/tcp6"] as const

/** Where the peer's account cannot be established, so TCP is not served at all. */
export class PeerUnprovable extends Data.TaggedError("PeerUnprovable")<{
  readonly reason: "not-linux" | "unreadable"
  /** The table that could not be read, for `unreadable`. */
  readonly path?: string
  readonly code?: string
}> {}

/** One end of a connection, as Node's socket gives it. */
export interface End {
  readonly address: string
  readonly port: number
}

/** The connection as the server sees it. */
export interface Ends {
  readonly client: End
  readonly server: End
}

/**
 * States in which an entry is a socket a process owns. TIME_WAIT (06) and request sockets in
 * SYN_RECV (03, 0C) are listed with uid 0 whoever made them, and a LISTEN (0A) entry has no peer.
 */
const ownedStates = new Set(["01", "02", "04", "05", "07", "08", "09", "0B"])

/**
 * The owners a table lists for the socket whose ends are `local` and `remote` (in the table's hex):
 * the uid of each of its lines in an owned state. Found by searching the text rather than parsing
 * it whole: with thousands of sockets open, a parse of every line for every batch of connections
 * was most of what a burst cost (D22). Columns after the ends: `st queues tr retrnsmt uid …`.
 */
export const ownersIn = (text: string, local: string, remote: string): ReadonlyArray<number> => {
  const needle = ` ${local} ${remote} `
  const owners: Array<number> = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    const end = text.indexOf("\n", at)
    const [state, , , , uid] = text.slice(at + needle.length, end === -1 ? text.length : end).trim().split(/\s+/)
    if (state !== undefined && ownedStates.has(state) && uid !== undefined && /^[0-9]+$/.test(uid)) {
      owners.push(Number(uid))
    }
  }
  return owners
}

/**
 * An IPv4 address and port as the tables write them: each 32-bit word of the address in the
 * kernel's own byte order (reversed on a little-endian machine), then the port in hex. `mapped`
 * gives the ::ffff:a.b.c.d form of /proc/net/tcp6.
 */
export const procEnd = (end: End, mapped: boolean, littleEndian = os.endianness() === "LE"): Option.Option<string> => {
  const address = end.address.startsWith("::ffff:") ? end.address.slice("::ffff:".length) : end.address
  if (!net.isIPv4(address)) return Option.none()
  const v4 = address.split(".").map(Number)
  const all = mapped ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4] : v4
  const words = Array.from({ length: all.length / 4 }, (_, index) => {
    const word = all.slice(index * 4, index * 4 + 4)
    return littleEndian ? word.reverse() : word
  })
  const hex = words.flat().map((byte) => byte.toString(16).padStart(2, "0")).join("").toUpperCase()
  return Option.some(`${hex}:${end.port.toString(16).padStart(4, "0").toUpperCase()}`)
}

/**
 * The client socket's owner, from the IPv4 table and, where given, the IPv6 one (a dual-stack client
 * reaching 127.0.0.1 as ::ffff:127.0.0.1): its entry has the client's end first, the server's second.
 * None when no entry or two owners are found.
 */
export const peerUid = (tcp: string, tcp6: string, ends: Ends): Option.Option<number> => {
  const owners = [false, true].flatMap((mapped) =>
    Option.match(Option.all([procEnd(ends.client, mapped), procEnd(ends.server, mapped)]), {
      onNone: () => [],
      onSome: ([client, server]) => ownersIn(mapped ? tcp6 : tcp, client, server)
    })
  )
  const [owner, ...others] = owners
  return owner !== undefined && others.every((other) => other === owner) ? Option.some(owner) : Option.none()
}

/** A missing tcp6 table is a kernel without IPv6: nothing to find there. */
const readTable = (path: string) =>
  Effect.tryPromise({ try: () => fsp.readFile(path, "latin1"), catch: errnoOf }).pipe(
    Effect.catchIf((code) => code === "ENOENT" && path.endsWith("6"), () => Effect.succeed("")),
    Effect.mapError((code) => new PeerUnprovable({ reason: "unreadable", path, code }))
  )

/** Every table, read whole; fails when one cannot be read (a missing tcp6 is empty). */
export const readTables = (
  paths: ReadonlyArray<string> = tcpTables
): Effect.Effect<ReadonlyArray<string>, PeerUnprovable> => Effect.forEach(paths, readTable)

/** At start: TCP is served only where a peer's account can be established. */
export const peersProvable = (
  platform: NodeJS.Platform = process.platform,
  paths: ReadonlyArray<string> = tcpTables
): Effect.Effect<void, PeerUnprovable> =>
  platform === "linux" ? Effect.asVoid(readTables(paths)) : Effect.fail(new PeerUnprovable({ reason: "not-linux" }))

interface Waiting {
  readonly ends: Ends
  readonly answer: (peer: Option.Option<number>) => void
}

/**
 * Finds the peers of connections in batches, one reading of the tables at a time: every
 * connection accepted before a reading starts is answered from it, one accepted while a reading is
 * on its way waits for the next (a table read before the connection existed cannot vouch for it).
 * The IPv6 table is read only for a batch with a peer the IPv4 one does not list. A table that
 * cannot be read answers none, which refuses the connection.
 */
export const makePeerFinder = (paths: ReadonlyArray<string> = tcpTables) => {
  const [v4 = tcpTables[0], v6 = tcpTables[1]] = paths
  let waiting: Array<Waiting> = []
  let reading = false
  const orNothing = (path: string) => Effect.orElseSucceed(readTable(path), () => "")
  const answerBatch = (batch: ReadonlyArray<Waiting>) =>
    Effect.gen(function*() {
      const tcp = yield* orNothing(v4)
      const found = batch.map(({ ends }) => peerUid(tcp, "", ends))
      const tcp6 = found.some(Option.isNone) ? yield* orNothing(v6) : ""
      batch.forEach(({ answer, ends }, index) =>
        answer(Option.orElse(found[index] ?? Option.none(), () => peerUid(tcp, tcp6, ends)))
      )
    })
  const next = (): void => {
    const batch = waiting
    waiting = []
    reading = true
    Effect.runFork(
      answerBatch(batch).pipe(
        Effect.ensuring(Effect.sync(() => {
          reading = false
          if (waiting.length > 0) setImmediate(next)
        }))
      )
    )
  }
  return (ends: Ends): Effect.Effect<Option.Option<number>> =>
    Effect.async((resume) => {
      waiting.push({ ends, answer: (peer) => resume(Effect.succeed(peer)) })
      // The first connection of a batch schedules its reading after the I/O events at hand, so the
      // connections accepted with it share it; while a reading runs, the next waits for its end.
      if (!reading && waiting.length === 1) setImmediate(next)
    })
}
