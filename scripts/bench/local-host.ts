import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Scripted from "../../src/layers/model/scripted.js"
import { socketClientLayer } from "../../src/rpc/socket-client.js"
import { failed, MODEL } from "./chain-run.js"
import { checkServer, checkStore } from "./chain-checks.js"
import { cleanEnv, repoRoot, type Service, snapshotCli, startService, timedRun } from "./processes.js"
import { median, mib, printMachine, printResults, type Result } from "./report.js"
import { runTurn } from "./rpc-turn.js"

/**
 * The data directory's local host (issue 34):
 * (a) its overhead on the 100-step chain: the same `run` (the built CLI, `--model
 *     anthropic/<id>` against the replay server) in its own process, and joining a running
 *     `host run` of the same data directory (the turn runs in the host, the client follows it
 *     over the Unix socket); runs alternate, and the ratio of the medians is the figure
 *     (budget: the host at most 10% slower);
 * (b) the host's RSS with 100 idle sessions open: each created and given one short scripted
 *     turn over the socket, then left open (`--session-idle` long enough that none is let go).
 */

/** `--steps N` and `--runs N` change them (a 1-step chain tells a fixed cost from one per step). */
let STEPS = 100
let RUNS = 5
const SESSIONS = 100
const MARKER = "bench marker: the file the chain reads"
const FINAL_TEXT = "Read it every time; the chain is done."
const PROMPT = "Read notes.txt, once per step, until you are told to stop."

let tempDir = ""
let cliPath = ""
let dirCount = 0

const freshDir = (label: string) => {
  const dir = path.join(tempDir, `${label}-${++dirCount}`)
  for (const sub of ["ws", "data", path.join("home", "config")]) fs.mkdirSync(path.join(dir, sub), { recursive: true })
  fs.writeFileSync(path.join(dir, "ws", "notes.txt"), `${MARKER}\nline two\nline three\n`)
  return { dir, ws: path.join(dir, "ws"), data: path.join(dir, "data"), home: path.join(dir, "home") }
}

const replayUrl = (output: string): string | undefined => /^\{"url":"(http:\/\/[^"]+)"\}$/m.exec(output)?.[1]
const listening = (output: string): true | undefined => (/custom-agent host \S+ listening on /.test(output) ? true : undefined)

/** One 100-step chain, in `run`'s own process or through a host started beforehand (not timed). */
const chain = async (through: "process" | "host") => {
  const run = freshDir(`chain-${through}`)
  const fixture = path.join(run.dir, "fixture.json")
  fs.writeFileSync(fixture, JSON.stringify({ format: "anthropic", chain: { steps: STEPS, tool: "read_file", input: { path: "notes.txt" }, finalText: FINAL_TEXT } }))
  const replay = await startService(["--import", "tsx", "test/support/replay-server-main.ts", "--fixture", fixture, "--port", "0"], {
    cwd: repoRoot,
    env: cleanEnv(run.home),
    ready: replayUrl
  })
  const env = cleanEnv(run.home, { ANTHROPIC_API_KEY: "anything", ANTHROPIC_BASE_URL: replay.ready })
  let host: Service<true> | undefined
  try {
    if (through === "host") {
      host = await startService([cliPath, "host", "run", "--model", MODEL, "--data-dir", run.data, "--idle-exit", "0"], { cwd: run.ws, env, ready: listening })
    }
    const result = await timedRun([cliPath, "run", PROMPT, "--model", MODEL, "--data-dir", run.data, "--approve", "allow-reads", "--max-steps", String(STEPS + 1)], {
      cwd: run.ws,
      env
    })
    if (result.code !== 0) throw failed(`the ${STEPS}-step chain (${through})`, result)
    if (through === "host" && /running in this process instead/.test(result.stderr)) throw new Error(`the run did not join the host:\n${result.stderr}`)
    checkServer(await (await fetch(`${replay.ready}/__requests`)).json(), STEPS, MARKER)
    const sessionId = /^session (ses_\S+)$/m.exec(result.stderr)?.[1] ?? /(ses_[A-Za-z0-9]+)/.exec(result.stderr)?.[1]
    if (sessionId === undefined) throw new Error(`no session id in the CLI's stderr:\n${result.stderr}`)
    // Checked once the host has let go of the file.
    await host?.stop()
    checkStore(path.join(run.data, "custom-agent.db"), sessionId, STEPS, FINAL_TEXT)
    return result.wallSeconds
  } finally {
    await host?.stop()
    await replay.stop()
  }
}

const overhead = async (): Promise<Result> => {
  console.log(`(a) the ${STEPS}-step chain (${MODEL} against the replay server), ${RUNS} runs each, alternating`)
  // One of each first, not counted: the file cache and the replay server's first start.
  await chain("process")
  await chain("host")
  const walls = { process: new Array<number>(), host: new Array<number>() }
  for (let i = 0; i < RUNS; i++) {
    walls.process.push(await chain("process"))
    walls.host.push(await chain("host"))
  }
  const inProcess = median(walls.process)
  const inHost = median(walls.host)
  const show = (values: ReadonlyArray<number>) => values.map((s) => s.toFixed(2)).join(", ")
  console.log(`  run in its own process: median ${inProcess.toFixed(2)} s (${show(walls.process)})`)
  console.log(`  run joining the local host: median ${inHost.toFixed(2)} s (${show(walls.host)})`)
  const ratio = inHost / inProcess
  console.log(`  host / in-process wall: ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)}%)`)
  return { label: `host overhead, ${STEPS} steps`, figure: `${inHost.toFixed(2)} s vs ${inProcess.toFixed(2)} s`, ratio: `${ratio.toFixed(3)} wall (<= 1.10)`, pass: ratio <= 1.1 }
}

const idleSessions = async (): Promise<Result> => {
  console.log(`\n(b) the host's RSS with ${SESSIONS} idle sessions open (each created and given one short scripted turn over the socket)`)
  const run = freshDir("idle")
  const script: Scripted.Script = { responses: Array.from({ length: SESSIONS }, (_, i) => `Answer ${i + 1}: done.`) }
  const scriptFile = path.join(run.dir, "script.json")
  fs.writeFileSync(scriptFile, JSON.stringify(script))
  const host = await startService([cliPath, "host", "run", "--script", scriptFile, "--data-dir", run.data, "--idle-exit", "0", "--session-idle", "3600"], {
    cwd: run.ws,
    env: cleanEnv(run.home),
    ready: listening
  })
  try {
    const started = host.rssBytes()
    const token = fs.readFileSync(path.join(run.data, "server-token"), "utf8").trim()
    const client = socketClientLayer({ path: path.join(run.data, "host.sock"), token })
    const before = process.cwd()
    process.chdir(run.ws)
    try {
      await Effect.runPromise(
        Effect.forEach(
          Array.from({ length: SESSIONS }, (_, i) => i),
          (i) => runTurn("Answer briefly.", `idle ${i + 1}`),
          { concurrency: 10, discard: true }
        ).pipe(Effect.provide(client))
      )
    } finally {
      process.chdir(before)
    }
    const open = host.rssBytes()
    const peak = host.peakRssBytes()
    console.log(`  host RSS: ${mib(started)} started, ${mib(open)} with ${SESSIONS} idle sessions open (${mib((open - started) / SESSIONS)} each), peak ${mib(peak)}`)
    return { label: `host RSS, ${SESSIONS} idle sessions`, figure: mib(open), ratio: `${(open / started).toFixed(2)}x the started host (no budget)`, pass: true }
  } finally {
    await host.stop()
  }
}

export const run = async (options: Readonly<Record<string, string>> = {}) => {
  STEPS = Number(options["steps"] ?? STEPS)
  RUNS = Number(options["runs"] ?? RUNS)
  printMachine("start")
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-local-host-"))
  try {
    cliPath = await snapshotCli(tempDir)
    const results = options["only"] === "overhead" ? [await overhead()] : [await overhead(), await idleSessions()]
    printMachine("end")
    printResults(results)
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
}
