// The one interleaved run bench:versus and bench:stages share: each kind `reads` times per round,
// in rounds whose order rotates (so a change of load on this shared machine weighs on every kind
// alike), the first round a warm-up; each kind's figure is the median over rounds of its p50 and
// p90 (ms) and of its CPU per run (µs; this process, user + system, libuv's pool included).

export const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

export interface Figures {
  readonly p50: number
  readonly p90: number
  readonly cpu: number
}

export const interleave = async (
  kinds: Record<string, () => Promise<unknown>>,
  rounds: number,
  reads: number
): Promise<Record<string, Figures>> => {
  const names = Object.keys(kinds)
  const results = Object.fromEntries(
    names.map((name) => [name, { p50: [] as Array<number>, p90: [] as Array<number>, cpu: [] as Array<number> }])
  )
  for (let r = -1; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + 1 + k) % names.length]!
      const latencies: Array<number> = []
      const cpu = process.cpuUsage()
      for (let i = 0; i < reads; i++) {
        const start = performance.now()
        await kinds[name]!()
        latencies.push(performance.now() - start)
      }
      const used = process.cpuUsage(cpu)
      if (r < 0) continue // the first round warms up
      results[name]!.p50.push(quantile(latencies, 0.5))
      results[name]!.p90.push(quantile(latencies, 0.9))
      results[name]!.cpu.push((used.user + used.system) / reads)
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const { cpu, p50, p90 } = results[name]!
      return [name, { p50: quantile(p50, 0.5), p90: quantile(p90, 0.5), cpu: quantile(cpu, 0.5) }]
    })
  )
}
