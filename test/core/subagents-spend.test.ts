import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Usage } from "../../src/domain/model.js"
import type { PriceTable } from "../../src/domain/prices.js"
import { addSpend, noSpend, type Spend, sumSpend } from "../../src/domain/spend.js"
import type { TurnTerms } from "../../src/domain/turn-terms.js"
import { priced } from "../../src/layers/model/priced.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import { StoreFailure } from "../../src/domain/errors.js"
import { EventStore } from "../../src/services/EventStore.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"
import { advanceUntil, replayAll, type StoreLayer, turnTypes } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { storeCases } from "../support/store-cases.js"
import { childrenOf, removeSubagentDirs, subagentEngine, subagentWorkspace, task, toolCall } from "../support/subagent-fixture.js"

afterAll(removeSubagentDirs)

const MODEL = "test/priced"
/** $0.001 a token, in or out: a request's cost is its tokens / 1000. */
const table: PriceTable = { [MODEL]: { inputPerMTok: 1_000, outputPerMTok: 1_000 } }

/**
 * The scripted model, priced from `table`; with `unpricedChildren` a subagent's requests get
 * no price (a child on a model the table does not know).
 */
const pricedModel = (script: Scripted.Script, unpricedChildren = false) =>
  Layer.effect(
    ModelGateway,
    Effect.map(ModelGateway, (gateway) => {
      const renamed = { ...gateway, info: { ...gateway.info, id: MODEL } }
      const withPrice = priced(renamed, table)
      return unpricedChildren ? { info: withPrice.info, stream: (request: Parameters<typeof renamed.stream>[0]) => (request.agent === undefined ? withPrice.stream(request) : renamed.stream(request)) } : withPrice
    })
  ).pipe(Layer.provide(Scripted.layer(script)))

const tokens = (inputTokens: number): Usage => ({ inputTokens, outputTokens: 0 })
const worker = { name: "worker", description: "Reads and answers", tools: "read_file", body: "You work." }
const lead = { name: "lead", description: "Delegates to a worker", tools: "task", body: "You delegate." }

/** The parent asks once (100 tokens) for a task, and would answer after it; the worker reads a file (600 tokens) and answers (`answerTokens`). */
const delegating = (answerTokens: number): Scripted.Script => ({
  responses: [{ chunks: [task("worker", "Read notes.txt", "call_task")], usage: tokens(100) }, { chunks: [{ text: "done" }], usage: tokens(50) }],
  agents: {
    worker: {
      responses: [
        { chunks: [toolCall("read_file", { path: "notes.txt" })], usage: tokens(600) },
        { chunks: [{ text: "milk" }], usage: tokens(answerTokens) }
      ]
    }
  }
})

/** The worker reads the file, then takes a minute over its answer: time to cancel it. */
const slowWorker: Scripted.Script = {
  responses: [{ chunks: [task("worker", "Read notes.txt", "call_task")], usage: tokens(100) }, { chunks: [{ text: "done" }], usage: tokens(50) }],
  agents: {
    worker: {
      responses: [{ chunks: [toolCall("read_file", { path: "notes.txt" })], usage: tokens(600) }, { chunks: [{ text: "milk" }], delayMs: 60_000, usage: tokens(10) }]
    }
  }
}

/** The store, refusing a child session's second `model.completed` (any session not created by the test's client). */
const refusingChildAnswer = (inner: StoreLayer): StoreLayer =>
  Layer.effect(
    EventStore,
    Effect.map(EventStore, (store) => {
      const children = new Set<string>()
      const answers = new Map<string, number>()
      const refuse = (event: AgentEvent) => {
        if (event.type === "session.created" && event.payload.parent !== undefined) children.add(event.sessionId)
        if (!children.has(event.sessionId) || event.type !== "model.completed") return false
        const seen = (answers.get(event.sessionId) ?? 0) + 1
        answers.set(event.sessionId, seen)
        return seen === 2
      }
      const failure = new StoreFailure({ operation: "append", reason: "refused by the test" })
      return EventStore.of({
        ...store,
        append: (event) => (refuse(event) ? Effect.fail(failure) : store.append(event)),
        appendAll: (events) => (events.some(refuse) ? Effect.fail(failure) : store.appendAll(events))
      })
    })
  ).pipe(Layer.provide(inner))

const runParent = (terms?: TurnTerms) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const cwd = subagentWorkspace([worker, lead], { "notes.txt": "milk\n" })
    const { header } = yield* engine.createSession({ cwd, client: "test" })
    yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "go", permissionMode: "bypass", ...(terms === undefined ? {} : { terms }) })).pipe(
      Effect.map(Chunk.toArray)
    )
    const log = yield* replayAll(header.sessionId)
    expect(invariantProblem(log)).toBeUndefined()
    return log
  })

const totalOf = (log: ReadonlyArray<AgentEvent>) => log.reduce(addSpend, noSpend)
const ownOf = (log: ReadonlyArray<AgentEvent>) => totalOf(log.filter((e) => e.type === "model.completed"))
/** Equal spends; the cost summed in another order may differ in its last bits. */
const expectSameSpend = (actual: Spend | undefined, expected: Spend) => {
  expect(actual).toMatchObject({ requests: expected.requests, tokens: expected.tokens, unpriced: expected.unpriced })
  expect(actual?.costUsd).toBeCloseTo(expected.costUsd, 10)
}
const endOf = (log: ReadonlyArray<AgentEvent>) => eventsOf(log, "turn.completed").at(-1)?.payload

for (const store of storeCases) {
  describe(`a subagent's spend counts into the turn that delegated it (${store.name} store)`, () => {
    const on = (script: Scripted.Script, unpricedChildren = false) =>
      Effect.provide(subagentEngine(script, { store: store.fresh(), harness: { model: pricedModel(script, unpricedChildren) } }))

    it.live("a parent with a cost limit whose child overspends stops `budget` before its next request", () =>
      Effect.gen(function* () {
        // The parent's own request cost $0.10; its worker's two $1.20 in all: over the $1 limit.
        const log = yield* runParent({ maxCostUsd: 1 })
        expect(eventsOf(log, "model.completed")).toHaveLength(1)
        // The task step's tools finished; no request was built after it.
        const afterChild = turnTypes(log).slice(turnTypes(log).indexOf("subagent.completed"))
        expect(afterChild).toContain("tool.completed")
        expect(afterChild).not.toContain("context.built")
        expect(endOf(log)).toEqual({ stopReason: "budget", message: "the turn cost $1.3000 ($1.2000 by its subagents), its limit is $1.0000" })
        const completed = eventsOf(log, "subagent.completed")[0]?.payload
        expect(completed?.stopReason).toBe("final")
        expect(completed?.spend).toMatchObject({ requests: 2, tokens: 1200, unpriced: 0 })
        expect(completed?.spend?.costUsd).toBeCloseTo(1.2, 10)
      }).pipe(on(delegating(600))))

    it.live("the same limit with a cheap child changes nothing: the parent answers", () =>
      Effect.gen(function* () {
        // $0.10 + $0.60 + $0.10 stays under $1.
        const log = yield* runParent({ maxCostUsd: 1 })
        expect(eventsOf(log, "model.completed")).toHaveLength(2)
        expect(endOf(log)).toEqual({ stopReason: "final" })
        expect(totalOf(log).costUsd).toBeCloseTo(0.85, 10)
      }).pipe(on(delegating(100))))

    it.live("a token limit counts the child's tokens, cache and all, the same way", () =>
      Effect.gen(function* () {
        const log = yield* runParent({ maxTurnTokens: 1_000 })
        expect(eventsOf(log, "model.completed")).toHaveLength(1)
        expect(endOf(log)).toEqual({ stopReason: "budget", message: "the turn used 1300 tokens (1200 by its subagents), its limit is 1000" })
      }).pipe(on(delegating(600))))

    it.live("a child with no price stops at its next boundary, and its parent with a cost limit at its own, instead of spending blind", () =>
      Effect.gen(function* () {
        const log = yield* runParent({ maxCostUsd: 100 })
        expect(eventsOf(log, "model.completed")).toHaveLength(1)
        // The parent's limit binds the running child: no second request once one had no price.
        const completed = eventsOf(log, "subagent.completed")[0]?.payload
        expect(completed?.spend).toEqual({ requests: 1, tokens: 600, costUsd: 0, unpriced: 1 })
        expect(completed?.stopReason).toBe("budget")
        expect(completed?.message).toContain("the turn that delegated this one has no room left (the cost of 1 of its subagents' model request(s) is unknown")
        expect(endOf(log)).toMatchObject({ stopReason: "budget" })
        expect(endOf(log)?.message).toContain("the cost of 1 of its subagents' model request(s) is unknown")
      }).pipe(on(delegating(100), true)))

    it.live("each request counts once: a child's log totals its own requests and its children's, its parent's adds them to its own", () =>
      Effect.gen(function* () {
        const log = yield* runParent()
        const [leadId] = childrenOf(log)
        const leadLog = yield* replayAll(leadId ?? "")
        const [workerId] = childrenOf(leadLog)
        const workerLog = yield* replayAll(workerId ?? "")
        // What each subagent.completed reports is what the child's own log sums to.
        expectSameSpend(eventsOf(leadLog, "subagent.completed")[0]?.payload.spend, totalOf(workerLog))
        expectSameSpend(eventsOf(log, "subagent.completed")[0]?.payload.spend, totalOf(leadLog))
        expectSameSpend(totalOf(workerLog), ownOf(workerLog))
        expectSameSpend(totalOf(leadLog), sumSpend(ownOf(leadLog), ownOf(workerLog)))
        // The top-level total: every request of the tree, once.
        const all = sumSpend(sumSpend(ownOf(log), ownOf(leadLog)), ownOf(workerLog))
        expectSameSpend(totalOf(log), all)
        expect(all.requests).toBe(2 + 2 + 2)
      }).pipe(
        on({
          responses: [{ chunks: [task("lead", "Have notes.txt read")], usage: tokens(100) }, { chunks: [{ text: "done" }], usage: tokens(50) }],
          agents: {
            lead: { responses: [{ chunks: [task("worker", "Read notes.txt")], usage: tokens(200) }, { chunks: [{ text: "it says milk" }], usage: tokens(20) }] },
            worker: { responses: [{ chunks: [toolCall("read_file", { path: "notes.txt" })], usage: tokens(300) }, { chunks: [{ text: "milk" }], usage: tokens(30) }] }
          }
        })
      ))

    it.live("a child whose first request fails reports no spend, and the parent's turn goes on", () =>
      Effect.gen(function* () {
        const log = yield* runParent({ maxCostUsd: 1 })
        const completed = eventsOf(log, "subagent.completed")[0]?.payload
        expect(completed?.stopReason).toBe("error")
        expect(completed).not.toHaveProperty("spend")
        expect(endOf(log)).toEqual({ stopReason: "final" })
      }).pipe(
        on({
          responses: [{ chunks: [task("worker", "Read notes.txt")], usage: tokens(100) }, { chunks: [{ text: "done" }], usage: tokens(50) }],
          agents: { worker: { responses: [{ error: { message: "busy" } }] } }
        })
      ))

    it.effect("a child cut short by cancel still reports what it used until then", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const cwd = subagentWorkspace([worker], { "notes.txt": "milk\n" })
        const { header } = yield* engine.createSession({ cwd, client: "test" })
        const fiber = yield* Effect.fork(Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "go", permissionMode: "bypass" })))
        // The worker read the file (one request done) and waits on its second.
        yield* advanceUntil(
          Effect.flatMap(replayAll(header.sessionId), (log) =>
            Effect.map(Effect.forEach(childrenOf(log), replayAll), (children) => children.some((child) => eventsOf(child, "tool.completed").length === 1))
          ),
          "1 millis"
        )
        yield* engine.cancelTurn(header.sessionId)
        yield* Fiber.join(fiber)
        const log = yield* replayAll(header.sessionId)
        const completed = eventsOf(log, "subagent.completed")[0]?.payload
        expect(completed).toMatchObject({ stopReason: "cancelled", answer: "", usage: { inputTokens: 600, outputTokens: 0 }, message: "the parent's turn was cancelled" })
        expectSameSpend(completed?.spend, { requests: 1, tokens: 600, costUsd: 0.6, unpriced: 0 })
        // The parent's turn counts it: its own $0.10 and the worker's $0.60.
        expect(totalOf(log).costUsd).toBeCloseTo(0.7, 10)
        expect(invariantProblem(log)).toBeUndefined()
      }).pipe(on(slowWorker)))

    it.effect("a child whose run fails (its store refuses its second answer) is recorded as an error with what it used", () =>
      Effect.gen(function* () {
        const log = yield* runParent()
        const completed = eventsOf(log, "subagent.completed")[0]?.payload
        expect(completed).toMatchObject({ stopReason: "error", answer: "", usage: { inputTokens: 600, outputTokens: 0 } })
        expect(completed?.message).toMatch(/^the subagent failed: /)
        expectSameSpend(completed?.spend, { requests: 1, tokens: 600, costUsd: 0.6, unpriced: 0 })
        const result = eventsOf(log, "tool.completed").find((e) => e.payload.toolCallId === "call_task")?.payload
        expect(result?.isError).toBe(true)
        expect(endOf(log)).toEqual({ stopReason: "final" })
      }).pipe(
        Effect.provide(
          subagentEngine(delegating(600), {
            store: refusingChildAnswer(store.fresh()),
            harness: { model: pricedModel(delegating(600)) }
          })
        )
      ))
  })
}
