import { Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { packageVersion } from "../../src/app/package-root.js"
import { buildRevision } from "./build-revision.js"
import { type ChainRunner, chainRunner, failed, MODEL } from "./chain-run.js"
import { answerChunks, LAST_CHUNK, lastChunkEvent, paragraphMarks, prepareLongSession, storedEvents, streamFixture } from "./interactive-fixtures.js"
import { cleanEnv, repoRoot, snapshotCli, startService, timedRun } from "./processes.js"
import { type PtyRun, runOnPty, screenOf } from "./pty-run.js"
import { fmt, median, mib, ms, printMachine, printResults, type Result, underBudget } from "./report.js"

/**
 * The interactive session (issue 32): `custom-agent` with no command, on a real pseudo-terminal
 * (node-pty), as a person runs it, measured against the one-shot commands in the same run:
 * - its first frame, against `custom-agent --version` (budget 1.5x that plus 100 ms);
 * - a 5,000-chunk answer streamed by the replay server in another process: bytes written to
 *   the terminal (budget 3x the answer's own: no full redraws) and how long after the server
 *   wrote the last chunk it is on the terminal (budget 50 ms);
 * - resuming a 10,000-event session written by scripted `run` turns: the whole history on the
 *   terminal within 1 s, peak RSS (VmHWM) within 100 MiB;
 * - RSS once idle with a session open (budget 90 MiB), after the answer and after the resume:
 *   right away, and settled once V8's memory reducer ran (the budget is the settled figure's).
 * Times are taken in this process when the terminal's output is read, never by the program.
 */

const COLS = 100
const ROWS = 30
const STARTUP_RUNS = 7
const STREAM_RUNS = 5
const RESUME_RUNS = 5
const CHUNKS = 5_000
/** The replay server waits this long before each event: about 5,000 chunks in 6 s, faster than a model streams. */
const CHUNK_DELAY_MS = 1
const SESSION_EVENTS = 10_000
/** Nothing drawn for this long: the session is idle (no turn runs, nothing animates). */
const QUIET_MS = 1_000
/** How long an idle session's RSS is watched for V8's memory reducer (it runs some 8-30 s after the last busy moment). */
const SETTLE_MS = 40_000
const PROMPT = "Write the long answer"
/** The hint line once no turn runs: the turn's end is on the terminal. */
const IDLE_HINT = "ctrl+c ×2 quit"

/** As a person's terminal: TERM=xterm-256color (runOnPty's), colours on. */
const ptyEnv = (home: string, extra: Readonly<Record<string, string>> = {}) => cleanEnv(home, extra)

/** The first frame on the terminal: the header's name, then the end of the synchronized output it is drawn in (pi-tui draws each frame in one). */
const firstFrame = async (session: PtyRun) => {
  const header = await session.waitForText("custom-agent", { label: "the header", timeoutMs: 30_000 })
  return session.waitForText("\x1b[?2026l", { from: header.end, label: "the first frame's end" })
}

const replayUrl = (output: string): string | undefined => /^\{"url":"(http:\/\/[^"]+)"\}$/m.exec(output)?.[1]

const ReplayTiming = Schema.Struct({
  timeOrigin: Schema.Number,
  requests: Schema.Array(Schema.Struct({ timing: Schema.Struct({ writtenAt: Schema.Array(Schema.Number) }) }))
})

/**
 * RSS once idle: right away (`quiet` for QUIET_MS), and settled, once V8's memory reducer has
 * given back what the busy moment left (the first reading 5% lower, else the last of SETTLE_MS).
 * A session left open sits at the settled figure.
 */
const idleRssOf = async (session: PtyRun) => {
  await session.quiet(QUIET_MS)
  const right = session.rssBytes()
  const until = performance.now() + SETTLE_MS
  let settled = right
  while (performance.now() < until && settled > 0.95 * right) {
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    settled = session.rssBytes()
  }
  return { right, settled }
}

/** Ends the session the way a person does; a non-zero exit fails the run. */
const quitCleanly = async (session: PtyRun, what: string) => {
  const code = await session.quit()
  if (code !== 0) throw new Error(`${what}: the session exited with ${code}:\n${(await screenOf(session.output(), COLS, ROWS)).slice(-3000)}`)
}

const summarize = (label: string, values: ReadonlyArray<number>, show: (n: number) => string) => {
  const value = median(values)
  console.log(`  ${label.padEnd(44)} median ${show(value).padStart(9)}   (runs: ${values.map(show).join(" ")})`)
  return value
}

/** A build of the CLI the scenarios run: this checkout's, or another revision's (`--against`). */
interface Build {
  readonly label: string
  readonly cli: string
}

const startup = async ({ freshRunDir }: ChainRunner, builds: ReadonlyArray<Build>) => {
  const version = packageVersion()
  console.log(`start-up (median of ${STARTUP_RUNS} runs of each after one untimed, interleaved; a fresh data dir per run):`)
  const versionRun = async (cliPath: string) => {
    const dirs = freshRunDir("version")
    const r = await timedRun([cliPath, "--version"], { cwd: dirs.ws, env: cleanEnv(dirs.home) })
    if (r.code !== 0 || r.stdout !== `${version}\n`) throw failed("custom-agent --version", r)
    return { wall: r.wallSeconds, cpu: r.cpuSeconds }
  }
  const oneShotRun = async (cliPath: string) => {
    const dirs = freshRunDir("scripted")
    const r = await timedRun([cliPath, "run", "hi", "--data-dir", dirs.data], { cwd: dirs.ws, env: cleanEnv(dirs.home) })
    if (r.code !== 0 || !r.stdout.includes("You said")) throw failed('custom-agent run "hi"', r)
    return r.wallSeconds
  }
  const frameRun = async (cliPath: string) => {
    const dirs = freshRunDir("first-frame")
    const session = runOnPty([cliPath, "--data-dir", dirs.data, "--no-host"], { cwd: dirs.ws, env: ptyEnv(dirs.home), cols: COLS, rows: ROWS })
    try {
      const frame = await firstFrame(session)
      const wall = (frame.at - session.startedAt) / 1000
      const cpu = session.cpuSeconds()
      // The session itself is up: the launcher's early frame (if any) was taken over.
      const own = await session.waitForText(IDLE_HINT, { label: "the session's own frame" })
      return { wall, cpu, own: (own.at - session.startedAt) / 1000 }
    } finally {
      await quitCleanly(session, "first frame")
    }
  }
  const [main] = builds
  if (main === undefined) throw new Error("no build to measure")
  for (const build of builds) {
    await versionRun(build.cli)
    await frameRun(build.cli)
  }
  await oneShotRun(main.cli)
  const runs = builds.map(() => ({ versions: new Array<{ readonly wall: number; readonly cpu: number }>(), frames: new Array<{ readonly wall: number; readonly cpu: number; readonly own: number }>() }))
  const oneShots: Array<number> = []
  for (let i = 0; i < STARTUP_RUNS; i++) {
    for (const [b, build] of builds.entries()) {
      runs[b]?.versions.push(await versionRun(build.cli))
      runs[b]?.frames.push(await frameRun(build.cli))
    }
    oneShots.push(await oneShotRun(main.cli))
  }
  const figures = builds.map((build, b) => {
    const { versions, frames } = runs[b] ?? { versions: [], frames: [] }
    if (builds.length > 1) console.log(`  ${build.label}:`)
    const version = summarize("custom-agent --version", versions.map((r) => r.wall), ms)
    const frame = summarize("custom-agent: first frame on a pty", frames.map((r) => r.wall), ms)
    summarize("the session's own frame (its status line)", frames.map((r) => r.own), ms)
    // CPU time moves less with the machine's load than wall time: the better figure to compare two builds by.
    summarize("CPU time: --version", versions.map((r) => r.cpu), ms)
    summarize("CPU time: custom-agent until its first frame", frames.map((r) => r.cpu), ms)
    console.log(`  ${"first frame / its budget (1.5 x --version + 100 ms)".padEnd(44)} ${(frame / (1.5 * version + 0.1)).toFixed(2)}x`)
    return { version, frame }
  })
  const oneShot = summarize('custom-agent run "hi" (scripted, reference)', oneShots, ms)
  const first = figures[0] ?? { version: 0, frame: 0 }
  return { ...first, oneShot }
}

interface StreamFigures {
  readonly bytes: number
  readonly answerBytes: number
  readonly fullRedraws: number
  /** Seconds from the server writing the last chunk to the terminal showing it. */
  readonly fromServer: number
  /** Seconds from the last delta event's timestamp (the host's clock, whole milliseconds) to the terminal showing it. */
  readonly fromEvent: number
  readonly streamSeconds: number
  readonly deltaEvents: number
  /** Undefined when the run was asked for the bytes and delays alone (`interactive-stream`). */
  readonly idleRss: { readonly right: number; readonly settled: number } | undefined
  readonly peakRss: number
}

const streamRun = async ({ freshRunDir }: ChainRunner, cliPath: string, withRss: boolean): Promise<StreamFigures> => {
  const dirs = freshRunDir("stream")
  const chunks = answerChunks(CHUNKS)
  const answerBytes = chunks.reduce((total, chunk) => total + Buffer.byteLength(chunk, "utf8"), 0)
  const fixture = path.join(dirs.dir, "fixture.json")
  fs.writeFileSync(fixture, JSON.stringify(streamFixture(chunks, CHUNK_DELAY_MS)))
  const server = await startService(["--import", "tsx", "test/support/replay-server-main.ts", "--fixture", fixture, "--port", "0"], {
    cwd: repoRoot,
    env: cleanEnv(dirs.home),
    ready: replayUrl
  })
  try {
    const session = runOnPty([cliPath, "--model", MODEL, "--data-dir", dirs.data, "--no-host"], {
      cwd: dirs.ws,
      env: ptyEnv(dirs.home, { ANTHROPIC_API_KEY: "anything", ANTHROPIC_BASE_URL: server.ready }),
      cols: COLS,
      rows: ROWS
    })
    try {
      const frame = await firstFrame(session)
      session.type(PROMPT)
      await session.waitForText(PROMPT, { from: frame.end, label: "the typed prompt" })
      const offset = session.output().length
      const before = session.bytes()
      const sentAt = performance.now()
      session.type("\r")
      const shown = await session.waitForText(LAST_CHUNK, { from: offset, label: "the answer's last chunk", timeoutMs: 120_000 })
      // The hint line as it reads once no turn runs, drawn after the last chunk.
      await session.waitForText(IDLE_HINT, { from: shown.end, label: "the turn's end" })
      const bytes = session.bytes() - before
      const during = session.output().slice(offset)
      const idleRss = withRss ? await idleRssOf(session) : undefined
      const peakRss = session.peakRssBytes()
      const timing = Schema.decodeUnknownSync(ReplayTiming)(await (await fetch(`${server.ready}/__requests`)).json())
      const written = timing.requests[0]?.timing.writtenAt ?? []
      const last = lastChunkEvent(chunks)
      const lastChunkAt = written[last.index]
      if (timing.requests.length !== 1 || written.length !== last.of || lastChunkAt === undefined) {
        throw new Error(`the replay server answered ${timing.requests.length} requests and wrote ${written.length} events, expected one stream of ${last.of}`)
      }
      const sessionId = /── session (ses_[0-9a-z]+)/.exec(session.output())?.[1]
      if (sessionId === undefined) throw new Error("the session's id is not on the terminal")
      await quitCleanly(session, "streamed answer")
      // Every chunk on the screen, in order (the scrollback holds what scrolled away).
      const screen = await screenOf(session.output(), COLS, ROWS)
      let at = 0
      for (const mark of [...paragraphMarks(CHUNKS), LAST_CHUNK]) {
        const found = screen.indexOf(mark, at)
        if (found === -1) throw new Error(`${mark} is not on the terminal after the answer (or out of order):\n${screen.slice(-3000)}`)
        at = found
      }
      const deltas = storedEvents(dirs.data, sessionId).filter((event) => event.type === "model.delta")
      const lastDelta = deltas.at(-1)
      if (lastDelta === undefined) throw new Error("no model.delta event stored")
      return {
        bytes,
        answerBytes,
        fullRedraws: during.split("\x1b[2J").length - 1,
        fromServer: (shown.epoch - (timing.timeOrigin + lastChunkAt)) / 1000,
        fromEvent: (shown.epoch - Date.parse(lastDelta.timestamp)) / 1000,
        streamSeconds: (shown.at - sentAt) / 1000,
        deltaEvents: deltas.length,
        idleRss,
        peakRss
      }
    } finally {
      await session.quit()
    }
  } finally {
    await server.stop()
  }
}

const streaming = async (runner: ChainRunner, cliPath: string, withRss = true) => {
  console.log(`\na ${fmt(CHUNKS)}-chunk answer streamed by the replay server (another process, ${CHUNK_DELAY_MS} ms before each event), ${COLS}x${ROWS} terminal`)
  console.log(`(${STREAM_RUNS} runs after one untimed; each checked: every paragraph of the answer on the terminal in order, exit 0)`)
  await streamRun(runner, cliPath, withRss)
  const runs: Array<StreamFigures> = []
  for (let i = 0; i < STREAM_RUNS; i++) runs.push(await streamRun(runner, cliPath, withRss))
  const first = runs[0]
  if (first === undefined) throw new Error("no streamed answer was measured")
  console.log(`  the answer: ${fmt(first.answerBytes)} bytes in ${fmt(CHUNKS)} chunks, stored as ${runs.map((r) => fmt(r.deltaEvents)).join(" / ")} model.delta events`)
  const figures = {
    ratio: summarize("bytes written / the answer's bytes", runs.map((r) => r.bytes / r.answerBytes), (n) => `${n.toFixed(2)}x`),
    fromServer: summarize("last chunk: server wrote it -> on the terminal", runs.map((r) => r.fromServer), (n) => `${(n * 1000).toFixed(1)} ms`),
    fromEvent: summarize("last chunk: its event's time -> on the terminal", runs.map((r) => r.fromEvent), (n) => `${(n * 1000).toFixed(1)} ms`),
    stream: summarize("Enter -> last chunk on the terminal", runs.map((r) => r.streamSeconds), (n) => `${n.toFixed(2)} s`),
    idleRssRight: withRss ? summarize("RSS once idle (1 s), after the answer", runs.map((r) => r.idleRss?.right ?? Number.NaN), mib) : undefined,
    idleRss: withRss ? summarize("RSS once idle, settled, after the answer", runs.map((r) => r.idleRss?.settled ?? Number.NaN), mib) : undefined,
    peakRss: summarize("peak RSS (VmHWM)", runs.map((r) => r.peakRss), mib)
  }
  console.log(`  bytes written per run: ${runs.map((r) => fmt(r.bytes)).join(" ")}; full redraws (clear screen): ${runs.map((r) => r.fullRedraws).join(" ")}`)
  return figures
}

const resuming = async (runner: ChainRunner, builds: ReadonlyArray<Build>, idle: boolean) => {
  const [main] = builds
  if (main === undefined) throw new Error("no build to measure")
  const dirs = runner.freshRunDir("long-session")
  const prepareStart = performance.now()
  const long = await prepareLongSession(main.cli, dirs, SESSION_EVENTS)
  console.log(
    `\nresuming a session of ${fmt(long.events)} events (${long.prompts.length} turns of scripted \`run\`, each 30 read_file calls and a streamed answer; ` +
      `written in ${((performance.now() - prepareStart) / 1000).toFixed(1)} s)`
  )
  console.log(`(${RESUME_RUNS} runs after one untimed of \`custom-agent --session ID\`; each checked: every turn's prompt and the last answer on the terminal, the log unchanged, exit 0)`)
  const resumeRun = async (cliPath: string, onHost = false) => {
    const session = runOnPty([cliPath, "--session", long.sessionId, "--data-dir", dirs.data, ...(onHost ? [] : ["--no-host"])], {
      cwd: dirs.ws,
      env: ptyEnv(dirs.home),
      cols: COLS,
      rows: ROWS
    })
    try {
      const frame = await firstFrame(session)
      const history = await session.waitForText(long.lastMark, { label: "the last answer", timeoutMs: 60_000 })
      const cpu = session.cpuSeconds()
      const idleRss = idle ? await idleRssOf(session) : { right: Number.NaN, settled: Number.NaN }
      const peakRss = session.peakRssBytes()
      await quitCleanly(session, "resume")
      const screen = await screenOf(session.output(), COLS, ROWS)
      const missing = long.prompts.filter((prompt) => !screen.includes(prompt))
      if (missing.length > 0) throw new Error(`resume: ${missing.length} of the turns' prompts are not on the terminal (${missing[0]})`)
      const events = storedEvents(dirs.data, long.sessionId).length
      if (events !== long.events) throw new Error(`resume: the session has ${events} events after it, ${long.events} before`)
      return { frame: (frame.at - session.startedAt) / 1000, history: (history.at - session.startedAt) / 1000, cpu, idleRss, peakRss }
    } finally {
      await session.quit()
    }
  }
  for (const build of builds) await resumeRun(build.cli)
  const runs = builds.map(() => new Array<Awaited<ReturnType<typeof resumeRun>>>())
  for (let i = 0; i < RESUME_RUNS; i++) for (const [b, build] of builds.entries()) runs[b]?.push(await resumeRun(build.cli))
  const figures = builds.map((build, b) => {
    const done = runs[b] ?? []
    if (builds.length > 1) console.log(`  ${build.label}:`)
    const peakRss = summarize("peak RSS (VmHWM)", done.map((r) => r.peakRss), mib)
    const figure = {
      frame: summarize("first frame", done.map((r) => r.frame), ms),
      history: summarize("the whole history on the terminal", done.map((r) => r.history), ms),
      cpu: summarize("CPU time of the session until then", done.map((r) => r.cpu), ms),
      peakRss,
      idleRssRight: idle ? summarize("RSS once idle (1 s), the session open", done.map((r) => r.idleRss.right), mib) : Number.NaN,
      idleRss: idle ? summarize("RSS once idle, settled, the session open", done.map((r) => r.idleRss.settled), mib) : Number.NaN
    }
    return figure
  })
  // The default since the interactive session starts the local host: the same resume through a
  // host started beforehand (not timed), stopped after; the figures are the client's.
  console.log(`  on the local host (started beforehand; the client's figures):`)
  const host = await startService([main.cli, "host", "run", "--model", MODEL, "--data-dir", dirs.data, "--idle-exit", "0"], {
    cwd: dirs.ws,
    env: cleanEnv(dirs.home, { ANTHROPIC_API_KEY: "anything" }),
    ready: (output) => (/custom-agent host \S+ listening on /.test(output) ? true : undefined)
  })
  try {
    await resumeRun(main.cli, true)
    const onHost: Array<Awaited<ReturnType<typeof resumeRun>>> = []
    for (let i = 0; i < RESUME_RUNS; i++) onHost.push(await resumeRun(main.cli, true))
    summarize("the whole history on the terminal", onHost.map((r) => r.history), ms)
    summarize("CPU time of the session until then", onHost.map((r) => r.cpu), ms)
    summarize("peak RSS (VmHWM)", onHost.map((r) => r.peakRss), mib)
  } finally {
    await host.stop()
  }
  const first = figures[0]
  if (first === undefined) throw new Error("no resume was measured")
  return first
}

const SCENARIOS = ["first-frame", "stream", "resume"] as const

/**
 * Options (`npm run bench -- interactive --only first-frame,resume --against main`):
 * `--only` runs those scenarios (first-frame, stream, resume); `--against REV` builds that
 * revision too (exported, as bench:compare does) and runs each scenario with both builds in
 * turn, so they see the same load (the budgets are judged on this checkout's build);
 * `--idle off` leaves out the idle RSS readings (40 s each).
 */
export const run = async (options: Readonly<Record<string, string>> = {}) => {
  const only = options["only"]?.split(",") ?? [...SCENARIOS]
  const unknown = only.filter((name) => !SCENARIOS.some((known) => known === name))
  if (unknown.length > 0) throw new Error(`--only: unknown scenario ${unknown.join(", ")}; choose from ${SCENARIOS.join(", ")}`)
  const idle = options["idle"] !== "off"
  printMachine("start")
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-interactive-"))
  const results: Array<Result> = []
  try {
    const cliPath = await snapshotCli(tempDir)
    const builds: Array<Build> = [{ label: "this build", cli: cliPath }]
    const against = options["against"]
    if (against !== undefined) builds.push({ label: against, cli: buildRevision(against, path.join(tempDir, "against")) })
    const runner = chainRunner(tempDir, cliPath)
    if (only.includes("first-frame")) {
      const start = await startup(runner, builds)
      const frameBudget = 1.5 * start.version + 0.1
      console.log(`\nfirst frame budget: 1.5 x --version (${ms(start.version)}) + 100 ms = ${ms(frameBudget)}`)
      results.push(underBudget("first frame (interactive)", start.frame, frameBudget, ms))
    }
    if (only.includes("stream")) {
      const stream = await streaming(runner, cliPath)
      results.push(
        underBudget("streamed: bytes / answer", stream.ratio, 3, (n) => `${n.toFixed(2)}x`),
        underBudget("streamed: last chunk shown", stream.fromServer, 0.05, (s) => `${(s * 1000).toFixed(1)} ms`),
        underBudget("idle RSS (settled), answer", stream.idleRss ?? Number.NaN, 90 * 1024 * 1024, mib)
      )
    }
    if (only.includes("resume")) {
      const resume = await resuming(runner, builds, idle)
      results.push(underBudget("resume: history shown", resume.history, 1, ms), underBudget("resume: peak RSS", resume.peakRss, 100 * 1024 * 1024, mib))
      if (idle) results.push(underBudget("idle RSS (settled), resumed", resume.idleRss, 90 * 1024 * 1024, mib))
    }
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
  printResults(results)
}

/**
 * The streamed answer alone, without the idle RSS readings (40 s a run): the bytes written and
 * the last chunk's delay, for comparing two builds of the screen quickly.
 */
export const runStream = async () => {
  printMachine("start")
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-interactive-"))
  try {
    const cliPath = await snapshotCli(tempDir)
    const stream = await streaming(chainRunner(tempDir, cliPath), cliPath, false)
    printResults([
      underBudget("streamed: bytes / answer", stream.ratio, 3, (n) => `${n.toFixed(2)}x`),
      underBudget("streamed: last chunk shown", stream.fromServer, 0.05, (s) => `${(s * 1000).toFixed(1)} ms`)
    ])
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
}
