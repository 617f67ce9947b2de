import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { packageVersion } from "../../src/app/package-root.js"
import { checkServer, checkStore, serverSeconds } from "./chain-checks.js"
import { cleanEnv, repoRoot, snapshotCli, startService, type TimedRun, timedRun } from "./processes.js"
import { median, mib, ms, printMachine, printResults, type Result, underBudget } from "./report.js"

/**
 * The agent's own overhead (issue 8): the real CLI, as a user runs it, on a chain of N
 * sequential read_file calls served by the replay server in another process (a model that
 * answers instantly), with a fresh data dir per run. Targets: a 100-step chain in <= 0.7 s
 * and <= 90 MiB peak RSS, <= 3 ms per extra step, `--version` <= 150 ms, a scripted one-line
 * `run` <= 300 ms.
 */

const CHAINS = [20, 100] as const
const CHAIN_RUNS = 5
const STARTUP_RUNS = 7
const FLOOR_RUNS = 10
const MODEL = "anthropic/claude-sonnet-5-5"
const MARKER = "bench marker: the file the chain reads"
const FINAL_TEXT = "Read it every time; the chain is done."
const PROMPT = "Read notes.txt, once per step, until you are told to stop."

const mark = (r: TimedRun) => `${ms(r.wallSeconds)}/${mib(r.peakRssBytes)}`

/** Set by `run`: every measured run gets a fresh directory in it; the CLI is a snapshot of the build. */
let tempDir: string | undefined
let dirCount = 0
let cliPath = ""

/** A fresh run directory: `ws` (the CLI's cwd, holding notes.txt), `data`, and `home` with an empty config. */
const freshRunDir = (label: string) => {
  if (tempDir === undefined) throw new Error("freshRunDir called outside run()")
  const dir = path.join(tempDir, `${label}-${++dirCount}`)
  for (const sub of ["ws", "data", path.join("home", "config")]) fs.mkdirSync(path.join(dir, sub), { recursive: true })
  fs.writeFileSync(path.join(dir, "ws", "notes.txt"), `${MARKER}\nline two\nline three\n`)
  return { dir, ws: path.join(dir, "ws"), data: path.join(dir, "data"), home: path.join(dir, "home") }
}

const failed = (what: string, r: TimedRun) =>
  new Error(`${what} exited with ${r.code}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-2000)}`)

const replayUrl = (output: string): string | undefined => {
  const line = /^\{"url":"(http:\/\/[^"]+)"\}$/m.exec(output)
  return line?.[1]
}

/** One chain of `steps` tool calls: its own replay server, data dir and workspace. */
const chainRun = async (steps: number) => {
  const run = freshRunDir(`chain-${steps}`)
  const fixture = path.join(run.dir, "fixture.json")
  fs.writeFileSync(
    fixture,
    JSON.stringify({ format: "anthropic", chain: { steps, tool: "read_file", input: { path: "notes.txt" }, finalText: FINAL_TEXT } })
  )
  // `node --import tsx` is `npx tsx` without npx's and tsx's extra processes: one pid to stop.
  const server = await startService(["--import", "tsx", "test/support/replay-server-main.ts", "--fixture", fixture, "--port", "0"], {
    cwd: repoRoot,
    env: cleanEnv(run.home),
    ready: replayUrl
  })
  let result: TimedRun
  let inServer: number
  try {
    result = await timedRun(
      [cliPath, "run", PROMPT, "--model", MODEL, "--data-dir", run.data, "--approve", "allow-reads", "--max-steps", String(steps + 1)],
      { cwd: run.ws, env: cleanEnv(run.home, { ANTHROPIC_API_KEY: "anything", ANTHROPIC_BASE_URL: server.ready }) }
    )
    if (result.code !== 0) throw failed(`the ${steps}-step chain`, result)
    const response = await fetch(`${server.ready}/__requests`)
    inServer = serverSeconds(checkServer(await response.json(), steps, MARKER))
  } finally {
    await server.stop()
  }
  const sessionId = /^session (ses_\S+)$/m.exec(result.stderr)?.[1]
  if (sessionId === undefined) throw new Error(`no session id in the CLI's stderr:\n${result.stderr}`)
  const stored = checkStore(path.join(run.data, "custom-agent.db"), sessionId, steps, FINAL_TEXT)
  return { result, events: stored.events, inServer }
}

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

const startup = async () => {
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

const chains = async () => {
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
  const figures = new Map<number, { readonly wall: number; readonly rss: number; readonly inServer: number }>()
  for (const n of CHAINS) figures.set(n, { ...summarize(`N = ${n}`, runs.get(n) ?? []), inServer: median(inServer.get(n) ?? []) })
  for (const n of CHAINS) {
    console.log(`  N = ${n}: of the wall, ${ms(figures.get(n)?.inServer ?? 0)} (median) in the replay server, from each request's arrival to its answer's end`)
  }
  for (const n of CHAINS) console.log(`  N = ${n}: ${storedEvents.get(n)} events in SQLite after the run, gap-free, every call, decision, start and result`)
  return figures
}

export const run = async () => {
  printMachine("start")
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-agent-loop-"))
  const results: Array<Result> = []
  try {
    cliPath = await snapshotCli(tempDir)
    const start = await startup()
    const figures = await chains()
    const short = figures.get(20)
    const long = figures.get(100)
    if (short === undefined || long === undefined) throw new Error("a chain size was not measured")
    const marginal = (long.wall - short.wall) / 80
    const ownMarginal = (long.wall - long.inServer - (short.wall - short.inServer)) / 80
    console.log(`\nper-step marginal cost (t100 - t20) / 80: ${(marginal * 1000).toFixed(2)} ms`)
    console.log(`  of which the CLI's own (the replay server's time taken out): ${(ownMarginal * 1000).toFixed(2)} ms`)
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
