// Throughput of servers side by side, for `npm run bench:versus-serve`: bench/load.mjs in its own
// process against each server in turn, the order rotating by round so none always follows another,
// each server's reads that worked per second summed over the rounds and read against one of them.
import { startChild } from "./standin.js"

interface Load {
  readonly requests: number
  readonly non200: number
  readonly errors: number
  readonly seconds: number
}

const loadOnce = (socket: string, connections: number, seconds: number) =>
  startChild<Load>("load.mjs", [socket, String(connections), String(seconds)]).then((child) => {
    child.close()
    return child.ready
  })

/** A Markdown table: each target's req/s over `reference`'s, at each number of connections. */
export const throughputTable = async (
  targets: Record<string, { readonly socket: string }>,
  reference: string,
  connectionCounts: ReadonlyArray<number>,
  options: { readonly rounds: number; readonly seconds: number }
): Promise<string> => {
  const names = Object.keys(targets)
  const lines = [
    `| req/s over the ${reference}'s | ${connectionCounts.map((n) => `${n} connections`).join(" | ")} |`,
    `|---|${connectionCounts.map(() => "---").join("|")}|`
  ]
  const perCount = new Map<number, Map<string, number>>()
  const failed = new Map<string, number>(names.map((name) => [name, 0]))
  for (const connections of connectionCounts) {
    const rates = new Map<string, number>(names.map((name) => [name, 0]))
    for (let round = 0; round < options.rounds; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(round + k) % names.length]!
        const { requests, non200, errors, seconds } = await loadOnce(
          targets[name]!.socket,
          connections,
          options.seconds
        )
        rates.set(name, rates.get(name)! + requests / seconds)
        failed.set(name, failed.get(name)! + non200 + errors)
      }
    }
    perCount.set(connections, rates)
  }
  for (const name of names) {
    const cells = connectionCounts.map((n) => {
      const rates = perCount.get(n)!
      return `${(rates.get(name)! / rates.get(reference)!).toFixed(2)}×`
    })
    lines.push(`| ${name} | ${cells.join(" | ")} |`)
  }
  const failures = names.map((name) => `${name} ${failed.get(name)}`).join(", ")
  lines.push(
    "",
    `${options.rounds} rounds × ${options.seconds} s per server and count, interleaved; answers not a 200 reading "works": ${failures}`,
    ""
  )
  return lines.join("\n")
}
