import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultEngineOptions, SessionEngine } from "../../src/core/SessionEngine.js"
import { addSpend, noSpend } from "../../src/domain/spend.js"
import type { TurnTerms } from "../../src/domain/turn-terms.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { storeCases } from "../support/store-cases.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A small window, so a long first prompt makes the second turn summarize it before its first request. */
const script: Scripted.Script = {
  contextWindow: 4_000,
  maxOutputTokens: 200,
  responses: ["Noted.", { chunks: [{ toolCall: { name: "read_file", input: { path: "notes.txt" } } }] }, "It says milk."],
  summaries: ["## Goal\nRemember the long note.\n\n## Decisions and constraints\nnone\n\n## Progress\nRead it.\n\n## Next step\nAnswer.\n\n## Open questions\nnone"]
}

/** The scripted model, priced: a summary request costs $5, any other $0.01. */
const pricedScripted = Layer.effect(
  ModelGateway,
  Effect.map(ModelGateway, (inner) =>
    ModelGateway.of({
      info: inner.info,
      stream: (request) =>
        Stream.map(inner.stream(request), (event) => (event._tag === "Completed" ? { ...event, costUsd: request.purpose === "compaction" ? 5 : 0.01 } : event))
    })
  )
).pipe(Layer.provide(Scripted.layer(script)))

const twoTurns = (terms?: TurnTerms) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "compaction-spend-")))
    dirs.push(cwd)
    writeFileSync(join(cwd, "notes.txt"), "milk\n")
    const { header } = yield* engine.createSession({ cwd, client: "test" })
    const run = (content: string, withTerms?: TurnTerms) =>
      Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content, permissionMode: "bypass", ...(withTerms === undefined ? {} : { terms: withTerms }) }))
    yield* run(`Keep this in mind: ${"a long note about the release. ".repeat(130)}`)
    yield* run("What does notes.txt say?", terms)
    return yield* replayAll(header.sessionId)
  })

for (const store of storeCases.filter((s) => s.name !== "jsonl (fail)")) {
  describe(`what a summary costs (${store.name} store)`, () => {
    const on = Effect.provide(
      engineLayer(store.fresh(), undefined, {
        model: pricedScripted,
        tools: localTools(sandboxOff),
        engine: { ...defaultEngineOptions, compactionThreshold: 0.5 }
      })
    )

    it.effect("a summary made before a turn's request records its spend, and the session's total counts it once", () =>
      Effect.gen(function* () {
        const log = yield* twoTurns()
        const compactions = eventsOf(log, "context.compacted")
        expect(compactions[0]?.payload.trigger).toBe("budget")
        for (const { payload } of compactions) {
          expect(payload.spend).toMatchObject({ requests: 1, costUsd: 5, unpriced: 0 })
          expect(payload.spend?.tokens).toBeGreaterThan(0)
        }
        // Each turn request at $0.01, each summary at $5, every one counted once.
        const requests = eventsOf(log, "model.completed").length
        const total = log.reduce(addSpend, noSpend)
        expect(total.requests).toBe(requests + compactions.length)
        expect(total.costUsd).toBeCloseTo(requests * 0.01 + compactions.length * 5, 6)
        expect(eventsOf(log, "turn.completed").map((e) => e.payload.stopReason)).toEqual(["final", "final"])
      }).pipe(on)
    )

    it.effect("the turn's cost limit counts the summary: a $1 limit stops the turn after its first step, before another request", () =>
      Effect.gen(function* () {
        const log = yield* twoTurns({ maxCostUsd: 1 })
        const ends = eventsOf(log, "turn.completed")
        expect(ends[1]?.payload).toEqual({ stopReason: "budget", message: "the turn cost $5.0100, its limit is $1.0000" })
        // The second turn made its one request (the read) and stopped: no request for the answer.
        expect(eventsOf(log, "model.completed")).toHaveLength(2)
        expect(eventsOf(log, "tool.completed")).toHaveLength(1)
      }).pipe(on)
    )
  })
}
