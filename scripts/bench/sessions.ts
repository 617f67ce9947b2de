import { Effect, Layer, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import * as AgentHost from "../../src/host/AgentHost.js"
import * as Fanout from "../../src/host/fanout.js"
import * as PendingAsks from "../../src/host/pending-asks.js"
import { builtInContext } from "../../src/layers/context/static.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import { IdsLive } from "../../src/layers/ids.js"
import { noMemoryStore } from "../../src/layers/memory/none.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import { noHooks } from "../../src/layers/hooks/none.js"
import { noMcp } from "../../src/layers/tools/mcp-none.js"
import * as Router from "../../src/layers/tools/router.js"
import { fmt, mib, printMachine, printResults, underBudget } from "./report.js"

/**
 * Many one-turn sessions through one host in one process (issue 16): what a session leaves
 * behind once it is done. Retained heap after a full GC is sampled every 1,000 sessions; the
 * target is that it stays within 5 MiB of the figure after the first 1,000, whatever the
 * number of sessions ever opened. `npm run bench -- sessions` (SESSIONS=N to change the count,
 * IDLE_MS=N the idle time after which a session is evicted).
 */

const SESSIONS = Number(process.env["SESSIONS"] ?? 10_000)
const SAMPLE_EVERY = 1_000
const BUDGET_MIB = 5
/** Short, so that the sessions done by a sample have been evicted, as a server's would be after `--session-idle`. */
const IDLE_MS = Number(process.env["IDLE_MS"] ?? 200)

/** A full collection on demand, without starting node with --expose-gc. */
const collect = (() => {
  v8.setFlagsFromString("--expose-gc")
  const gc: unknown = vm.runInNewContext("gc")
  return () => {
    if (typeof gc === "function") gc()
  }
})()

const retainedHeap = () => {
  collect()
  collect()
  return process.memoryUsage().heapUsed
}

const hostLayer = (dir: string) =>
  AgentHost.layer.pipe(
    Layer.provideMerge(SessionEngine.layer({ ...SessionEngine.defaultEngineOptions, sessionIdleMs: IDLE_MS })),
    Layer.provideMerge(
      Layer.mergeAll(
        SqliteStore.layer({ filename: path.join(dir, "sessions.db") }),
        Scripted.layer({ responses: Array.from({ length: SESSIONS }, () => ({ chunks: [{ text: "ok" }] })) }),
        IdsLive,
        Router.layer([Router.staticSource("none", [])]),
        Permissions.layer({ approvalsFile: path.join(dir, "approvals.json") }),
        LocalFilesLive,
        noHooks,
        builtInContext,
        noMemoryStore,
        PendingAsks.layer,
        Fanout.eventBusLayer
      )
    ),
    Layer.provideMerge(Layer.merge(Fanout.layer({ bufferSize: 4096 }), noMcp))
  )

/**
 * Each session starts on a fresh turn of the event loop, as a client's request does. The
 * scripted model and SQLite never wait on I/O, so a loop that never left effect's scheduler
 * would starve every timer, eviction's included.
 */
const nextMacrotask = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** One session, one turn, through the host as a client drives it: create, prompt, follow to the end. */
const oneSession = (workspace: string) =>
  Effect.gen(function* () {
    const host = yield* AgentHost.AgentHost
    const view = yield* host.createSession({ cwd: workspace, client: "bench" })
    const done = host.subscribe(view.sessionId, 0).pipe(
      Stream.takeUntil((frame) => frame._tag === "Event" && frame.event.type === "turn.completed"),
      Stream.runDrain
    )
    const following = yield* Effect.fork(done)
    yield* host.prompt({ sessionId: view.sessionId, content: "hi" })
    yield* following.await
  })

export const run = async () => {
  printMachine("start")
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-sessions-"))
  const workspace = path.join(dir, "ws")
  fs.mkdirSync(workspace)
  const samples: Array<{ readonly sessions: number; readonly heap: number }> = []
  const started = performance.now()
  try {
    await Effect.runPromise(
      Effect.gen(function* () {
        for (let i = 1; i <= SESSIONS; i++) {
          yield* nextMacrotask
          yield* oneSession(workspace)
          if (i % SAMPLE_EVERY === 0) samples.push({ sessions: i, heap: retainedHeap() })
        }
      }).pipe(Effect.provide(hostLayer(dir)), Effect.scoped)
    )
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const seconds = (performance.now() - started) / 1000
  console.log(`${fmt(SESSIONS)} one-turn sessions through one host (SQLite store, scripted model) in ${seconds.toFixed(1)} s`)
  console.log(`retained heap after a full GC, every ${fmt(SAMPLE_EVERY)} sessions:`)
  for (const sample of samples) console.log(`  after ${fmt(sample.sessions).padStart(6)}  ${mib(sample.heap)}`)
  const first = samples[0]
  const last = samples[samples.length - 1]
  if (first === undefined || last === undefined) throw new Error(`fewer than ${SAMPLE_EVERY} sessions: nothing to compare`)
  printResults([underBudget(`heap growth after ${fmt(first.sessions)}`, Math.max(0, last.heap - first.heap), BUDGET_MIB * 1024 * 1024, mib)])
  printMachine("end")
}
