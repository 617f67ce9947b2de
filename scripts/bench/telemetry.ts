import { ConfigProvider, Effect, Layer, Stream } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { noEventBus } from "../../src/layers/event-bus/none.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { withTracing } from "../../src/layers/telemetry/live.js"
import { makeSpanProjector } from "../../src/layers/telemetry/spans.js"
import { EventBus } from "../../src/services/EventBus.js"
import { readChainEngine } from "./read-chain-engine.js"
import { median, printMachine, printResults, type Result } from "./report.js"

/**
 * What tracing costs per step (issue 23), in one process on the memory store: a turn of STEPS
 * read_file steps with the plain bus, with tracing configured off (no OTEL endpoint: the
 * layer hands back the plain bus), and with tracing on, sending to a local OTLP/HTTP receiver.
 * Runs interleaved, medians compared. Also the projector alone, per event. Target: tracing off
 * adds nothing measurable (within the run-to-run spread of the plain bus).
 */

const STEPS = 100
const RUNS = 9

/** Milliseconds per step of one turn, the layer built and closed around it (closing flushes spans). */
const turnPerStep = (workspace: string, bus: Layer.Layer<EventBus, unknown>, vars: Record<string, string>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const engine = yield* SessionEngine.SessionEngine
      const session = yield* engine.createSession({ cwd: workspace, client: "bench" })
      const start = performance.now()
      let last = ""
      yield* engine.runTurn({ sessionId: session.header.sessionId, content: "go" }).pipe(
        Stream.runForEach((event) => Effect.sync(() => (last = event.type === "turn.completed" ? event.payload.stopReason : event.type)))
      )
      const elapsed = performance.now() - start
      if (last !== "final") throw new Error(`the turn ended with ${last}`)
      return elapsed / STEPS
    }).pipe(
      Effect.provide(readChainEngine({ store: MemoryStore.layer, workspace, steps: STEPS, bus })),
      Effect.scoped,
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(vars))))
    )
  )

const receiver = () =>
  new Promise<{ readonly url: string; readonly requests: () => number; readonly close: () => void }>((resolve) => {
    let requests = 0
    const server = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        requests++
        res.writeHead(200).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ url: `http://127.0.0.1:${port}`, requests: () => requests, close: () => server.close() })
    })
  })

const projectorPerEvent = async (workspace: string) => {
  // A recorded turn of the chain, projected again and again.
  const events: Array<AgentEvent> = []
  const recording = Layer.succeed(EventBus, EventBus.of({ publish: (event) => Effect.sync(() => void events.push(event)), status: () => Effect.void }))
  await turnPerStep(workspace, recording, {})
  const rounds = 200
  const start = performance.now()
  for (let i = 0; i < rounds; i++) {
    const projector = makeSpanProjector({ captureContent: false })
    for (const event of events) projector.push(event)
  }
  return { microseconds: ((performance.now() - start) * 1000) / (rounds * events.length), events: events.length }
}

export const run = async () => {
  printMachine("start")
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "bench-telemetry-"))
  fs.writeFileSync(path.join(workspace, "notes.txt"), "bench marker\nline two\n")
  const collector = await receiver()
  try {
    const variants = [
      { label: "plain bus (no tracing layer)", bus: noEventBus, vars: {} },
      { label: "tracing layer, no endpoint set", bus: withTracing(noEventBus, "bench"), vars: {} },
      { label: "tracing on, local OTLP/HTTP receiver", bus: withTracing(noEventBus, "bench"), vars: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" } }
    ] as const
    const runs = variants.map(() => new Array<number>())
    for (const variant of variants) await turnPerStep(workspace, variant.bus, variant.vars)
    for (let i = 0; i < RUNS; i++) {
      for (const [index, variant] of variants.entries()) runs[index]?.push(await turnPerStep(workspace, variant.bus, variant.vars))
    }
    console.log(`one turn of ${STEPS} read_file steps, scripted model, memory store (median of ${RUNS} interleaved runs after one warm-up each):`)
    const medians = variants.map((variant, index) => {
      const values = runs[index] ?? []
      const m = median(values)
      const spread = Math.max(...values) - Math.min(...values)
      console.log(`  ${variant.label.padEnd(40)} ${m.toFixed(3)} ms per step (spread ${spread.toFixed(3)} ms)`)
      return { median: m, spread }
    })
    const projector = await projectorPerEvent(workspace)
    console.log(`span projector alone: ${projector.microseconds.toFixed(2)} µs per event (${projector.events} events a turn, content capture off)`)
    console.log(`OTLP requests the receiver got while tracing was on: ${collector.requests()}`)
    const plain = medians[0]
    const off = medians[1]
    if (plain === undefined || off === undefined) throw new Error("a variant was not measured")
    // Off is free by construction: the layer hands back the very bus it wraps.
    const same = await Effect.runPromise(
      Effect.gen(function* () {
        const inner = yield* Effect.provide(EventBus, noEventBus)
        const wrapped = yield* Effect.provide(EventBus, withTracing(noEventBus, "bench"))
        return inner === wrapped
      }).pipe(Effect.scoped, Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
    )
    console.log(`with no endpoint set, the tracing layer gives back the plain bus itself: ${same}`)
    const results: Array<Result> = [
      { label: "tracing off: same bus object", figure: String(same), ratio: "nothing added to an event's path", pass: same },
      {
        label: "tracing off: added per step",
        figure: `${(off.median - plain.median).toFixed(3)} ms`,
        ratio: `within the plain bus's spread (${plain.spread.toFixed(3)} ms)`,
        pass: Math.abs(off.median - plain.median) <= plain.spread
      }
    ]
    printResults(results)
  } finally {
    collector.close()
    fs.rmSync(workspace, { recursive: true, force: true })
  }
  printMachine("end")
}
