import { Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ModelRequest } from "../../src/domain/model.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import { clientLayer } from "../../src/rpc/client.js"
import { cleanEnv, type Service, snapshotCli, startService } from "./processes.js"
import { fmt, mib, printMachine, printResults } from "./report.js"
import { checkDelivery, type Delivery, type FollowedTurn, runTurn } from "./rpc-turn.js"

/**
 * The agent behind its network API (issue 5), served by `custom-agent serve` in its own
 * process with the scripted model, driven by the typed RPC client over HTTP from this one:
 * (a) events per second of one long streamed answer through the engine, the SQLite store and
 *     the RPC stream, against the same scripted stream consumed in-process (no store, no
 *     transport), as a ratio in one run;
 * (b) 200 sessions each running a turn at once, every event delivered exactly once.
 * No targets besides "0 lost, 0 duplicated": the figures are for tracking.
 */

const LONG_CHUNKS = 20_000
const THROUGHPUT_RUNS = 2
const BASELINE_RUNS = 3
const SESSIONS = 200
const WORDS = ["the", "file", "reads", "function", "returns", "a", "stream", "of", "events", "while", "tests", "pass"]
const SHORT_ANSWER =
  "The host ran this turn for one of many sessions at once; every event went to the store first and then to each subscriber, " +
  "in order, once, so a client that reconnects resumes exactly where it left off without a gap or a duplicate."

/** One answer of LONG_CHUNKS small text chunks. */
const longScript: Scripted.Script = {
  responses: [{ chunks: Array.from({ length: LONG_CHUNKS }, (_, i) => ({ text: `${WORDS[i % WORDS.length]} ` })) }]
}
const shortScript: Scripted.Script = { responses: [SHORT_ANSWER] }

/** Set by `run`: every server gets a fresh directory in it; the CLI is a snapshot of the build. */
let tempDir: string | undefined
let dirCount = 0
let cliPath = ""

const serverUrl = (output: string) => {
  const opened = /open (http:\/\/[^\s/]+)\/#token=(\S+)\n/.exec(output)
  return opened?.[1] === undefined || opened[2] === undefined ? undefined : { url: opened[1], token: opened[2] }
}

/** `custom-agent serve` on a free port with the scripted model playing `script`, a fresh data dir. */
const startServer = (script: Scripted.Script) => {
  if (tempDir === undefined) throw new Error("startServer called outside run()")
  const dir = path.join(tempDir, `serve-${++dirCount}`)
  const home = path.join(dir, "home")
  fs.mkdirSync(path.join(home, "config"), { recursive: true })
  const scriptFile = path.join(dir, "script.json")
  fs.writeFileSync(scriptFile, JSON.stringify(script))
  return startService([cliPath, "serve", "--port", "0", "--data-dir", path.join(dir, "data"), "--script", scriptFile], {
    cwd: dir,
    env: cleanEnv(home),
    ready: serverUrl
  })
}

const withServer = async <A>(script: Scripted.Script, use: (server: Service<{ url: string; token: string }>) => Promise<A>) => {
  const server = await startServer(script)
  try {
    return await use(server)
  } finally {
    await server.stop()
  }
}

const rate = (events: number, millis: number) => Math.round(events / (millis / 1000))

const turnEvents = (turn: FollowedTurn) => turn.received.filter((e) => e.turnId === turn.turnId).length

/** The scripted model's stream alone, in this process: what the pipeline would carry if it cost nothing. */
const baseline = Effect.gen(function* () {
  const gateway = yield* Scripted.make(longScript)
  let best = 0
  for (let i = 0; i < BASELINE_RUNS; i++) {
    const request: ModelRequest = { sessionId: `ses_baseline_${i}`, purpose: "turn", system: "", messages: [], tools: [] }
    const begin = performance.now()
    const count = yield* Stream.runCount(gateway.stream(request))
    best = Math.max(best, rate(count, performance.now() - begin))
  }
  return best
})

const sum = (deliveries: ReadonlyArray<Delivery>, key: keyof Delivery) => deliveries.reduce((n, d) => n + d[key], 0)

const deliveryLine = (deliveries: ReadonlyArray<Delivery>) =>
  `lost ${sum(deliveries, "lost")}, duplicated ${sum(deliveries, "duplicated")}, out of order or different from the export ${sum(deliveries, "mismatched")}`

const clean = (deliveries: ReadonlyArray<Delivery>) => deliveries.every((d) => d.lost === 0 && d.duplicated === 0 && d.mismatched === 0)

const throughput = async () => {
  console.log(`(a) one answer of ${fmt(LONG_CHUNKS)} text chunks`)
  const inProcess = await Effect.runPromise(baseline)
  console.log(`  scripted model stream in-process, no store, no transport: ${fmt(inProcess)} events/s (best of ${BASELINE_RUNS})`)
  return withServer(longScript, async (server) => {
    const turns: Array<{ readonly turn: FollowedTurn; readonly delivery: Delivery }> = []
    await Effect.runPromise(
      Effect.gen(function* () {
        for (let i = 0; i < THROUGHPUT_RUNS; i++) {
          const turn = yield* runTurn("Stream a long answer.", `throughput ${i + 1}`)
          turns.push({ turn, delivery: yield* checkDelivery(turn) })
        }
      }).pipe(Effect.provide(clientLayer(server.ready)))
    )
    const rates = turns.map(({ turn }) => rate(turnEvents(turn), turn.completedAt - turn.promptedAt))
    for (const { turn } of turns) {
      const millis = turn.completedAt - turn.promptedAt
      console.log(
        `  through engine + SQLite + RPC/HTTP to this process: ${fmt(turnEvents(turn))} events in ${(millis / 1000).toFixed(2)} s = ` +
          `${fmt(rate(turnEvents(turn), millis))} events/s (subscriber resumed after a lag ${turn.resumes} times)`
      )
    }
    const best = Math.max(...rates)
    const deliveries = turns.map((t) => t.delivery)
    console.log(`  best of ${THROUGHPUT_RUNS}: ${fmt(best)} events/s = ${((best / inProcess) * 100).toFixed(2)}% of the in-process stream (1/${(inProcess / best).toFixed(0)})`)
    console.log(`  delivery: ${deliveryLine(deliveries)}; server peak RSS ${mib(server.peakRssBytes())}`)
    return { label: "(a) 20k-chunk answer", deliveries }
  })
}

const concurrentSessions = async () => {
  console.log(`\n(b) ${SESSIONS} sessions at once, each: create, subscribe, prompt, collect until turn.completed`)
  return withServer(shortScript, async (server) => {
    const idle = server.rssBytes()
    const begin = performance.now()
    const turns = await Effect.runPromise(
      Effect.forEach(
        Array.from({ length: SESSIONS }, (_, i) => i),
        (i) => runTurn("Answer briefly.", `session ${i + 1}`).pipe(Effect.timeoutFail({ duration: "120 seconds", onTimeout: () => new Error(`session ${i + 1} timed out`) })),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(clientLayer(server.ready)))
    )
    const millis = performance.now() - begin
    const peak = server.peakRssBytes()
    const deliveries = await Effect.runPromise(
      Effect.forEach(turns, checkDelivery, { concurrency: 16 }).pipe(Effect.provide(clientLayer(server.ready)))
    )
    const events = turns.reduce((n, t) => n + t.received.length, 0)
    const resumes = turns.reduce((n, t) => n + t.resumes, 0)
    console.log(`  ${SESSIONS} turns completed in ${(millis / 1000).toFixed(2)} s (${fmt(rate(SESSIONS, millis))} turns/s), ${fmt(events)} events received (${fmt(rate(events, millis))}/s)`)
    console.log(`  delivery, checked against each session's ExportSession: ${deliveryLine(deliveries)}; subscriber resumes after a lag: ${resumes}`)
    console.log(`  peak RSS of the server process (custom-agent serve, VmHWM): ${mib(peak)} (${mib(idle)} when idle before the load)`)
    return { label: `(b) ${SESSIONS} concurrent sessions`, deliveries }
  })
}

export const run = async () => {
  printMachine("start")
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-end-to-end-"))
  const checks: Array<{ readonly label: string; readonly deliveries: ReadonlyArray<Delivery> }> = []
  try {
    cliPath = await snapshotCli(tempDir)
    checks.push(await throughput())
    checks.push(await concurrentSessions())
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true })
  }
  printMachine("end")
  printResults(
    checks.map(({ label, deliveries }) => ({
      label,
      figure: `${deliveries.length} sessions`,
      ratio: `lost ${sum(deliveries, "lost")}, duplicated ${sum(deliveries, "duplicated")}, mismatched ${sum(deliveries, "mismatched")} (target 0, 0, 0)`,
      pass: clean(deliveries)
    }))
  )
}
