import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { EventOf } from "../../src/domain/events.js"
import type { ModelStreamEvent, Usage } from "../../src/domain/model.js"
import { costOf, packagedPrices, type PriceTable } from "../../src/domain/prices.js"
import type { TurnTerms } from "../../src/domain/turn-terms.js"
import { loadPrices, priced } from "../../src/layers/model/priced.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"
import { engineLayer, replayAll, turnTypes } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "cost-")))
  dirs.push(dir)
  return dir
}

/** The scripted model under another model's id, priced from `table`: a provider with known usage. */
const pricedModel = (script: Scripted.Script, id: string, table: PriceTable = packagedPrices) =>
  Layer.effect(
    ModelGateway,
    Effect.map(ModelGateway, (gateway) => priced({ ...gateway, info: { ...gateway.info, id } }, table))
  ).pipe(Layer.provide(Scripted.layer(script)))

const usage: Usage = { inputTokens: 1_000, outputTokens: 500, cacheReadTokens: 2_000, cacheWriteTokens: 100 }
const readCall = { toolCall: { name: "read_file", input: { path: "notes.txt" } } }
/** Each step reads a file and costs the same: a chain only a limit stops. */
const chain = (steps: number): Scripted.Script => ({
  responses: [...Array.from({ length: steps }, () => ({ chunks: [readCall], usage })), { chunks: [{ text: "done" }], usage }]
})

const turn = (terms?: TurnTerms) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const cwd = tempDir()
    writeFileSync(join(cwd, "notes.txt"), "milk\n")
    const { header } = yield* engine.createSession({ cwd, client: "test" })
    yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "go", permissionMode: "bypass", ...(terms === undefined ? {} : { terms }) }))
    return yield* replayAll(header.sessionId)
  })

const completedOf = (log: ReadonlyArray<{ readonly type: string }>) =>
  log.filter((e): e is EventOf<"model.completed"> => e.type === "model.completed")
const endOf = (log: ReadonlyArray<{ readonly type: string }>) => log.find((e): e is EventOf<"turn.completed"> => e.type === "turn.completed")

for (const store of storeCases) {
  describe(`cost and budgets (${store.name} store)`, () => {
    const on = (script: Scripted.Script, id = "anthropic/claude-sonnet-4-5", table?: PriceTable) =>
      Effect.provide(engineLayer(store.fresh(), undefined, { model: pricedModel(script, id, table), tools: localTools(sandboxOff) }))

    it.live("model.completed carries the cost of its usage at the price table's rates", () =>
      Effect.gen(function* () {
        const log = yield* turn()
        const [completed] = completedOf(log)
        // Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
        expect(completed?.payload.costUsd).toBeCloseTo(0.003 + 0.0075 + 0.0006 + 0.000375, 10)
        expect(completed?.payload.costUsd).toBe(costOf(packagedPrices["anthropic/claude-sonnet-4-5"]!, usage))
      }).pipe(on({ responses: [{ chunks: [{ text: "hi" }], usage }] })))

    it.live("a model with no price records no cost", () =>
      Effect.gen(function* () {
        const [completed] = completedOf(yield* turn())
        expect(completed?.payload.usage).toEqual(usage)
        expect(completed?.payload.costUsd).toBeUndefined()
      }).pipe(on({ responses: [{ chunks: [{ text: "hi" }], usage }] }, "openai/some-unpriced-model")))

    it.live("--max-cost-usd stops the chain at the boundary after the step that crosses it", () =>
      Effect.gen(function* () {
        const perStep = costOf(packagedPrices["anthropic/claude-sonnet-4-5"]!, usage)
        // Two steps stay under the limit, the third crosses it: its tools run, no fourth request.
        const log = yield* turn({ maxCostUsd: perStep * 2.5 })
        expect(completedOf(log)).toHaveLength(3)
        expect(log.filter((e) => e.type === "tool.completed")).toHaveLength(3)
        expect(endOf(log)?.payload.stopReason).toBe("budget")
        expect(endOf(log)?.payload.message).toMatch(/limit is \$0\.0287/)
        expect(log.find((e) => e.type === "turn.started")?.payload).toMatchObject({ terms: { maxCostUsd: perStep * 2.5 } })
      }).pipe(on(chain(6))))

    it.live("--max-turn-tokens stops the chain the same way, counting every token a request processed", () =>
      Effect.gen(function* () {
        // 3,600 tokens a step: the second step reaches 7,200.
        const log = yield* turn({ maxTurnTokens: 7_000 })
        expect(completedOf(log)).toHaveLength(2)
        expect(endOf(log)?.payload).toMatchObject({ stopReason: "budget", message: "the turn used 7200 tokens, its limit is 7000" })
        expect(turnTypes(log).at(-2)).toBe("tool.completed")
      }).pipe(on(chain(6))))

    it.live("a limit the turn stays under changes nothing", () =>
      Effect.gen(function* () {
        const log = yield* turn({ maxCostUsd: 10, maxTurnTokens: 1_000_000 })
        expect(endOf(log)?.payload.stopReason).toBe("final")
        expect(completedOf(log)).toHaveLength(3)
      }).pipe(on(chain(2))))

    it.live("a cost limit on a model with no price stops at the first boundary instead of spending blind", () =>
      Effect.gen(function* () {
        const log = yield* turn({ maxCostUsd: 1 })
        expect(completedOf(log)).toHaveLength(1)
        expect(endOf(log)?.payload.stopReason).toBe("budget")
        expect(endOf(log)?.payload.message).toMatch(/cost of openai\/unpriced is unknown/)
      }).pipe(on(chain(3), "openai/unpriced")))
  })
}

describe("prices", () => {
  it.effect("a cost the provider reported stands; the table prices the rest", () =>
    Effect.gen(function* () {
      const gateway = yield* ModelGateway
      const table: PriceTable = { scripted: { inputPerMTok: 1_000_000, outputPerMTok: 0 } }
      const events = yield* Stream.runCollect(priced(gateway, table).stream({ sessionId: "s", system: "", messages: [], tools: [] }))
      const completed = Chunk.toArray(events).find((e) => e._tag === "Completed")
      expect(completed).toMatchObject({ costUsd: 12 })
      const reported = priced({ info: gateway.info, stream: () => Stream.make<[ModelStreamEvent]>({ _tag: "Completed", stopReason: "final", usage, costUsd: 0.5 }) }, table)
      const [only] = Chunk.toArray(yield* Stream.runCollect(reported.stream({ sessionId: "s", system: "", messages: [], tools: [] })))
      expect(only).toMatchObject({ costUsd: 0.5 })
    }).pipe(Effect.provide(Scripted.layer({ responses: [{ chunks: [{ text: "x" }], usage: { inputTokens: 12, outputTokens: 3 } }] }))))

  it.effect("the user's settings add and override prices model by model; a malformed table is refused with the file's name", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const file = join(dir, "settings.json")
      expect(yield* loadPrices(file)).toEqual(packagedPrices)
      writeFileSync(file, JSON.stringify({ sandbox: { network: false }, prices: { scripted: { inputPerMTok: 2, outputPerMTok: 4 }, "openai/mine": { inputPerMTok: 1, outputPerMTok: 1 } } }))
      const table = yield* loadPrices(file)
      expect(table["scripted"]).toEqual({ inputPerMTok: 2, outputPerMTok: 4 })
      expect(table["openai/mine"]).toBeDefined()
      expect(table["anthropic/claude-opus-4-5"]).toEqual(packagedPrices["anthropic/claude-opus-4-5"])
      writeFileSync(file, JSON.stringify({ prices: { scripted: { inputPerMTok: -1, outputPerMTok: 4 } } }))
      const error = yield* Effect.flip(loadPrices(file))
      expect(error._tag).toBe("PriceSettingsError")
      expect(error.message).toContain(file)
      writeFileSync(file, "{ not json")
      expect((yield* Effect.flip(loadPrices(file))).message).toMatch(/not valid JSON/)
    }))
})
