import * as os from "node:os"

/** Shared output of the benches: machine line, figures, and a PASS/MISS table at the end. */

export const fmt = (n: number) => n.toLocaleString("en-US")

export const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`

export const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) throw new Error("median of no values")
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const upper = sorted[middle] ?? 0
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0) + upper) / 2
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")

/** Other processes competing for the CPU lower every figure: say how busy the machine was. */
export const printMachine = (when: "start" | "end") => {
  if (when === "start") console.log(`node ${process.version}, ${os.cpus().length} cores, load average ${loadAverage()} (1/5/15 min) at start`)
  else console.log(`load average ${loadAverage()} (1/5/15 min) at the end`)
}

export interface Result {
  readonly label: string
  readonly figure: string
  readonly ratio: string
  readonly pass: boolean
}

/** A figure against a budget it must stay under: the ratio says how far over or under. */
export const underBudget = (label: string, value: number, budget: number, show: (n: number) => string): Result => ({
  label,
  figure: show(value),
  ratio: `${(value / budget).toFixed(2)}x budget (<= ${show(budget)})`,
  pass: value <= budget
})

export const printResults = (results: ReadonlyArray<Result>) => {
  for (const r of results) console.log(`${r.pass ? "PASS" : "MISS"}  ${r.label.padEnd(28)} ${r.figure.padEnd(22)} ${r.ratio}`)
}
