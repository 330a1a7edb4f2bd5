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

/** socket 4-tuple (`local-remote` in the tables' hex) → its owner's uid, or `ambiguous`. */
export type Table = ReadonlyMap<string, number | "ambiguous">

/**
 * States in which an entry is a socket a process owns. TIME_WAIT (06) and request sockets in
 * SYN_RECV (03, 0C) are listed with uid 0 whoever made them, and a LISTEN (0A) entry has no peer.
 */
const ownedStates = new Set(["01", "02", "04", "05", "07", "08", "09", "0B"])

/** A table's text → its owned sockets; its columns are `sl local rem st queues tr retrnsmt uid …`. */
export const parseTable = (text: string, into: Map<string, number | "ambiguous"> = new Map()) => {
  for (const line of text.split("\n").slice(1)) {
    const [, local, remote, state, , , , uid] = line.trim().split(/\s+/)
    if (local === undefined || remote === undefined || uid === undefined || !/^[0-9]+$/.test(uid)) continue
    if (state === undefined || !ownedStates.has(state)) continue
    const key = `${local}-${remote}`
    const owner = Number(uid)
    const before = into.get(key)
    into.set(key, before === undefined || before === owner ? owner : "ambiguous")
  }
  return into
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

/** The client socket's owner: its entry is keyed by the client's end first, the server's second. */
export const peerUid = (table: Table, ends: Ends): Option.Option<number> => {
  const keys = [false, true].flatMap((mapped) =>
    Option.toArray(
      Option.all([procEnd(ends.client, mapped), procEnd(ends.server, mapped)]).pipe(
        Option.map(([client, server]) => `${client}-${server}`)
      )
    )
  )
  const owners = [...new Set(keys.flatMap((key) => Option.toArray(Option.fromNullable(table.get(key)))))]
  const [owner] = owners
  return owners.length === 1 && typeof owner === "number" ? Option.some(owner) : Option.none()
}

/** A missing tcp6 table is a kernel without IPv6: nothing to find there. */
const readTable = (path: string) =>
  Effect.tryPromise({ try: () => fsp.readFile(path, "latin1"), catch: errnoOf }).pipe(
    Effect.catchIf((code) => code === "ENOENT" && path.endsWith("6"), () => Effect.succeed("")),
    Effect.mapError((code) => new PeerUnprovable({ reason: "unreadable", path, code }))
  )

/** Every table, read whole, as one map; fails when one cannot be read. */
export const readTables = (paths: ReadonlyArray<string> = tcpTables): Effect.Effect<Table, PeerUnprovable> =>
  Effect.forEach(paths, readTable).pipe(
    Effect.map((texts) =>
      texts.reduce((table, text) => parseTable(text, table), new Map<string, number | "ambiguous">())
    )
  )

/** At start: TCP is served only where a peer's account can be established. */
export const peersProvable = (
  platform: NodeJS.Platform = process.platform,
  paths: ReadonlyArray<string> = tcpTables
): Effect.Effect<void, PeerUnprovable> =>
  platform === "linux" ? Effect.asVoid(readTables(paths)) : Effect.fail(new PeerUnprovable({ reason: "not-linux" }))

/**
 * Finds the peers of connections in batches: every connection accepted before a reading starts is
 * answered from that reading, and one accepted while a reading is on its way waits for the next
 * (a table read before the connection existed cannot vouch for it). A table that cannot be read
 * answers none, which refuses the connection.
 */
export const makePeerFinder = (paths: ReadonlyArray<string> = tcpTables) => {
  let waiting: Array<(table: Table) => void> = []
  const read = () => {
    const batch = waiting
    waiting = []
    Effect.runFork(
      readTables(paths).pipe(
        Effect.orElseSucceed((): Table => new Map()),
        Effect.map((table) => batch.forEach((answer) => answer(table)))
      )
    )
  }
  return (ends: Ends): Effect.Effect<Option.Option<number>> =>
    Effect.async((resume) => {
      // The first connection of a batch schedules its reading after the I/O events at hand, so
      // the connections accepted with it share it.
      if (waiting.length === 0) setImmediate(read)
      waiting.push((table) => resume(Effect.succeed(peerUid(table, ends))))
    })
}
