import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { buildRevision } from "./build-revision.js"
import { chainRunner } from "./chain-run.js"
import { median, printMachine } from "./report.js"

/**
 * Back-to-back comparison of builds, the way docs/performance.md ("Comparing two builds")
 * asks for it: a change of 10-20 ms per chain drowns in the machine's noise between runs
 * minutes apart, and only shows in many alternating rounds paired by round.
 *
 *   npx tsx scripts/bench/compare.ts [--rounds N] [--steps A,B] <rev> <rev> [<rev> ...]
 *
 * Each revision (a commit, a branch, or "." for the working tree with its uncommitted
 * changes to tracked files) is exported into a temporary directory and built there with this
 * checkout's node_modules (the dependencies must be the same). Then each round runs the
 * agent-loop chain at both step counts (default 20 and 100) with every build, in turn,
 * reversing the order every other round. Printed per build: medians of wall time, the
 * per-step cost, CPU per step and peak RSS, and against the first build the median of the
 * per-round differences.
 */

const usage = "usage: npx tsx scripts/bench/compare.ts [--rounds N] [--steps A,B] <rev> <rev> [<rev> ...]"

interface Options {
  readonly rounds: number
  readonly steps: readonly [number, number]
  readonly revisions: ReadonlyArray<string>
}

const parseArgs = (args: ReadonlyArray<string>): Options => {
  let rounds = 24
  let steps: readonly [number, number] = [20, 100]
  const revisions: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    if (arg === "--rounds") {
      rounds = Number(args[++i])
      if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: not a positive whole number\n${usage}`)
    } else if (arg === "--steps") {
      const [short, long] = String(args[++i]).split(",").map(Number)
      if (short === undefined || long === undefined || !Number.isInteger(short) || !Number.isInteger(long) || short < 1 || long <= short) {
        throw new Error(`--steps: two whole numbers, the smaller first (e.g. 20,100)\n${usage}`)
      }
      steps = [short, long]
    } else revisions.push(arg)
  }
  if (revisions.length < 2) throw new Error(`name at least two revisions\n${usage}`)
  return { rounds, steps, revisions }
}

interface Runs {
  readonly short: Array<number>
  readonly long: Array<number>
  readonly cpuShort: Array<number>
  readonly cpuLong: Array<number>
  readonly rss: Array<number>
}

const noRuns = (): Runs => ({ short: [], long: [], cpuShort: [], cpuLong: [], rss: [] })

const run = async () => {
  const options = parseArgs(process.argv.slice(2))
  const [short, long] = options.steps
  const extra = long - short
  printMachine("start")
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-compare-"))
  try {
    console.log("building:")
    const builds = options.revisions.map((revision, i) => ({
      revision,
      runner: chainRunner(tempDir, buildRevision(revision, path.join(tempDir, `build-${i}`))),
      runs: noRuns()
    }))
    console.log(`${options.rounds} rounds of ${short}- and ${long}-step chains, each build in turn, the order reversed every other round`)
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse()
      for (const steps of options.steps) {
        for (const { runner, runs } of order) {
          const { result } = await runner.chainRun(steps)
          if (steps === short) {
            runs.short.push(result.wallSeconds)
            runs.cpuShort.push(result.cpuSeconds)
          } else {
            runs.long.push(result.wallSeconds)
            runs.cpuLong.push(result.cpuSeconds)
            runs.rss.push(result.peakRssBytes)
          }
        }
      }
    }
    const first = builds[0]?.runs
    if (first === undefined) throw new Error("no build")
    const paired = (mine: ReadonlyArray<number>, theirs: ReadonlyArray<number>) => median(mine.map((value, i) => value - (theirs[i] ?? value)))
    const perStep = (r: Runs) => median(r.long.map((value, i) => (value - (r.short[i] ?? value)) / extra))
    const cpuPerStep = (r: Runs) => median(r.cpuLong.map((value, i) => (value - (r.cpuShort[i] ?? value)) / extra))
    const msOf = (seconds: number, digits = 0) => `${(seconds * 1000).toFixed(digits)} ms`
    for (const [i, { revision, runs }] of builds.entries()) {
      const figures =
        `N = ${short} ${msOf(median(runs.short))}, N = ${long} ${msOf(median(runs.long))}, per step ${msOf(perStep(runs), 2)}, ` +
        `CPU per step ${msOf(cpuPerStep(runs), 2)}, peak RSS ${(median(runs.rss) / 1048576).toFixed(1)} MiB`
      const against =
        i === 0
          ? ""
          : `\n    against ${options.revisions[0]}, median of the per-round differences: N = ${short} ${msOf(paired(runs.short, first.short))}, ` +
            `N = ${long} ${msOf(paired(runs.long, first.long))}, CPU at N = ${long} ${msOf(paired(runs.cpuLong, first.cpuLong))}`
      console.log(`  ${revision.padEnd(12)} ${figures}${against}`)
    }
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
}

run().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error))
  process.exitCode = 1
})
