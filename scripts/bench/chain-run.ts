import * as fs from "node:fs"
import * as path from "node:path"
import { checkServer, checkStore, serverSeconds } from "./chain-checks.js"
import { cleanEnv, repoRoot, startService, type TimedRun, timedRun } from "./processes.js"

/**
 * One chain as a user runs it: the built CLI (`run ... --model anthropic/<id>`) against the
 * replay server in another process, on N sequential read_file calls then a final answer,
 * with a fresh data dir and workspace. Checked from outside afterwards: the server saw every
 * step and the SQLite file holds the whole session.
 */

export const MODEL = "anthropic/claude-sonnet-5-5"
const MARKER = "bench marker: the file the chain reads"
const FINAL_TEXT = "Read it every time; the chain is done."
const PROMPT = "Read notes.txt, once per step, until you are told to stop."

export interface ChainRunner {
  /** A fresh directory: `ws` (the CLI's cwd, holding notes.txt), `data`, and `home` with an empty config. */
  readonly freshRunDir: (label: string) => { readonly dir: string; readonly ws: string; readonly data: string; readonly home: string }
  /** `nodeArgs` go before the CLI's path (e.g. `--cpu-prof`). */
  readonly chainRun: (
    steps: number,
    nodeArgs?: ReadonlyArray<string>
  ) => Promise<{ readonly result: TimedRun; readonly events: number; readonly inServer: number }>
}

export const failed = (what: string, r: TimedRun) =>
  new Error(`${what} exited with ${r.code}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-2000)}`)

const replayUrl = (output: string): string | undefined => {
  const line = /^\{"url":"(http:\/\/[^"]+)"\}$/m.exec(output)
  return line?.[1]
}

/** Runs live in `tempDir`; `cliPath` is the CLI to run (a snapshot of the build). */
export const chainRunner = (tempDir: string, cliPath: string): ChainRunner => {
  let dirCount = 0

  const freshRunDir = (label: string) => {
    const dir = path.join(tempDir, `${label}-${++dirCount}`)
    for (const sub of ["ws", "data", path.join("home", "config")]) fs.mkdirSync(path.join(dir, sub), { recursive: true })
    fs.writeFileSync(path.join(dir, "ws", "notes.txt"), `${MARKER}\nline two\nline three\n`)
    return { dir, ws: path.join(dir, "ws"), data: path.join(dir, "data"), home: path.join(dir, "home") }
  }

  const chainRun = async (steps: number, nodeArgs: ReadonlyArray<string> = []) => {
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
        [...nodeArgs, cliPath, "run", PROMPT, "--model", MODEL, "--data-dir", run.data, "--approve", "allow-reads", "--max-steps", String(steps + 1)],
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

  return { freshRunDir, chainRun }
}
