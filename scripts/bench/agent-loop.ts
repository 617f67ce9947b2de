import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { packageVersion } from "../../src/app/package-root.js"
import { type ChainRunner, chainRunner, failed, MODEL } from "./chain-run.js"
import { cleanEnv, snapshotCli, type TimedRun, timedRun } from "./processes.js"
import { median, mib, ms, printMachine, printResults, type Result, underBudget } from "./report.js"

/**
 * The agent's own overhead (issue 8): the real CLI, as a user runs it, on a chain of N
 * sequential read_file calls served by the replay server in another process (a model that
 * answers instantly), with a fresh data dir per run. Targets: a 100-step chain in <= 0.7 s
 * and <= 90 MiB peak RSS, <= 3 ms per extra step, `--version` <= 150 ms, a scripted one-line
 * `run` <= 300 ms.
 */

const CHAINS = [20, 100] as const
// The per-step figure is the difference of two medians: with 5 runs each, back-to-back runs of one
// build gave per-step figures up to 0.7 ms apart on this machine class.
const CHAIN_RUNS = 9
const STARTUP_RUNS = 7
const FLOOR_RUNS = 10

const mark = (r: TimedRun) => `${ms(r.wallSeconds)}/${mib(r.peakRssBytes)}`

/** Runs `measure` once untimed (file cache, first-run costs), then `runs` times. */
const repeat = async (runs: number, measure: () => Promise<TimedRun>) => {
  await measure()
  const results: Array<TimedRun> = []
  for (let i = 0; i < runs; i++) results.push(await measure())
  return results
}

const summarize = (label: string, results: ReadonlyArray<TimedRun>) => {
  const wall = median(results.map((r) => r.wallSeconds))
  const rss = median(results.map((r) => r.peakRssBytes))
  console.log(`  ${label.padEnd(30)} median ${ms(wall).padStart(7)}, peak RSS ${mib(rss).padStart(10)}   (runs: ${results.map(mark).join(" ")})`)
  return { wall, rss }
}

const startup = async ({ freshRunDir }: ChainRunner, cliPath: string) => {
  const version = packageVersion()
  console.log(`start-up (median of ${STARTUP_RUNS} runs after one untimed, ${FLOOR_RUNS} for node -e 0):`)
  const floorDir = freshRunDir("floor")
  const floor = summarize("node -e 0 (reference)", await repeat(FLOOR_RUNS, () => timedRun(["-e", "0"], { cwd: floorDir.ws, env: cleanEnv(floorDir.home) })))
  const versionRuns = await repeat(STARTUP_RUNS, async () => {
    const r = await timedRun([cliPath, "--version"], { cwd: floorDir.ws, env: cleanEnv(floorDir.home) })
    if (r.code !== 0 || r.stdout !== `${version}\n`) throw failed("custom-agent --version", r)
    return r
  })
  const versionFigures = summarize("custom-agent --version", versionRuns)
  const scriptedRuns = await repeat(STARTUP_RUNS, async () => {
    const dirs = freshRunDir("scripted")
    const r = await timedRun([cliPath, "run", "hi", "--data-dir", dirs.data], { cwd: dirs.ws, env: cleanEnv(dirs.home) })
    if (r.code !== 0 || !r.stdout.includes("You said")) throw failed('custom-agent run "hi"', r)
    return r
  })
  const scripted = summarize('custom-agent run "hi" (scripted)', scriptedRuns)
  return { floor, version: versionFigures, scripted }
}

const chains = async ({ chainRun }: ChainRunner) => {
  console.log(`\nchains of N read_file calls then a final answer, ${MODEL} against the replay server`)
  console.log(`(${CHAIN_RUNS} runs per N after one untimed, N interleaved; fresh replay server, data dir and workspace per run;`)
  console.log(" each run checked: exit 0, the server answered N + 1 requests and got N good tool results, the SQLite file holds the session)")
  const runs = new Map<number, Array<TimedRun>>(CHAINS.map((n) => [n, []]))
  const storedEvents = new Map<number, number>()
  const inServer = new Map<number, Array<number>>(CHAINS.map((n) => [n, []]))
  for (const n of CHAINS) await chainRun(n)
  for (let i = 0; i < CHAIN_RUNS; i++) {
    for (const n of CHAINS) {
      const { result, events, inServer: seconds } = await chainRun(n)
      runs.get(n)?.push(result)
      inServer.get(n)?.push(seconds)
      storedEvents.set(n, events)
    }
  }
  const figures = new Map<number, { readonly wall: number; readonly rss: number; readonly cpu: number; readonly inServer: number }>()
  for (const n of CHAINS) {
    const measured = runs.get(n) ?? []
    figures.set(n, { ...summarize(`N = ${n}`, measured), cpu: median(measured.map((r) => r.cpuSeconds)), inServer: median(inServer.get(n) ?? []) })
  }
  for (const n of CHAINS) {
    console.log(`  N = ${n}: of the wall, ${ms(figures.get(n)?.inServer ?? 0)} (median) in the replay server, from each request's arrival to its answer's end`)
  }
  for (const n of CHAINS) console.log(`  N = ${n}: ${storedEvents.get(n)} events in SQLite after the run, gap-free, every call, decision, start and result`)
  return figures
}

export const run = async () => {
  printMachine("start")
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-agent-loop-"))
  const results: Array<Result> = []
  try {
    const cliPath = await snapshotCli(tempDir)
    const runner = chainRunner(tempDir, cliPath)
    const start = await startup(runner, cliPath)
    const figures = await chains(runner)
    const short = figures.get(20)
    const long = figures.get(100)
    if (short === undefined || long === undefined) throw new Error("a chain size was not measured")
    const marginal = (long.wall - short.wall) / 80
    const ownMarginal = (long.wall - long.inServer - (short.wall - short.inServer)) / 80
    console.log(`\nper-step marginal cost (t100 - t20) / 80: ${(marginal * 1000).toFixed(2)} ms`)
    console.log(`  of which the CLI's own (the replay server's time taken out): ${(ownMarginal * 1000).toFixed(2)} ms`)
    // CPU time moves less than wall time with the machine's load: the better figure to compare two builds by.
    console.log(
      `  CPU time of the CLI (user + system, GC threads included): ${ms(short.cpu)} at N = 20, ${ms(long.cpu)} at N = 100, ` +
        `${((long.cpu - short.cpu) / 80 * 1000).toFixed(2)} ms per step`
    )
    console.log(`floor of a Node process on this machine (node -e 0): ${ms(start.floor.wall)}, ${mib(start.floor.rss)}`)
    results.push(
      underBudget("100-step chain wall", long.wall, 0.7, (s) => `${s.toFixed(2)} s`),
      underBudget("100-step chain peak RSS", long.rss, 90 * 1024 * 1024, mib),
      underBudget("per-step marginal cost", marginal, 0.003, (s) => `${(s * 1000).toFixed(2)} ms`),
      underBudget("--version", start.version.wall, 0.15, ms),
      underBudget("scripted one-line run", start.scripted.wall, 0.3, ms)
    )
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
  printResults(results)
}
