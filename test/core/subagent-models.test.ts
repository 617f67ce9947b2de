import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import { EventStore } from "../../src/services/EventStore.js"
import { advanceUntil, replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { newLedger, renamedModelLayer, resolverLayer } from "../support/model-resolver.js"
import { storeCases } from "../support/store-cases.js"
import { childrenOf, parentTurn, removeSubagentDirs, subagentEngine, subagentWorkspace, task } from "../support/subagent-fixture.js"

afterAll(removeSubagentDirs)

const reviewer = { name: "reviewer", description: "Reviews code", tools: "read_file, task", model: "openai/small", body: "You review code." }
const checker = { name: "checker", description: "Checks one thing", tools: "read_file", body: "You check one thing." }

for (const store of storeCases.filter((s) => s.name !== "jsonl (fail)")) {
  describe(`a definition's model, on the ${store.name} store`, () => {
    it.effect("the child asks the model its definition names; its own child inherits it; the parent keeps the engine's", () => {
      const cwd = subagentWorkspace([reviewer, checker], { "a.txt": "alpha\n" })
      const script = {
        responses: [{ chunks: [task("reviewer", "Review a.txt", "call_review")] }, "Reviewed."],
        agents: {
          reviewer: { responses: [{ chunks: [task("checker", "Check a.txt", "call_check")] }, "a.txt is fine."] },
          checker: { responses: ["It says alpha."] }
        }
      }
      const ledger = newLedger()
      return Effect.gen(function* () {
        const { sessionId, events } = yield* parentTurn(cwd, "Review a.txt")
        expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
        const parentLog = yield* replayAll(sessionId)
        const [childId] = childrenOf(parentLog)
        const childLog = yield* replayAll(childId ?? "")
        const [grandchildId] = childrenOf(childLog)
        const grandchildLog = yield* replayAll(grandchildId ?? "")
        for (const log of [parentLog, childLog, grandchildLog]) expect(invariantProblem(log)).toBeUndefined()

        expect(eventsOf(parentLog, "session.created")[0]?.payload.model).toBe("openai/big")
        expect(eventsOf(childLog, "session.created")[0]?.payload.model).toBe("openai/small")
        expect(eventsOf(grandchildLog, "session.created")[0]?.payload.model).toBe("openai/small")
        expect(eventsOf(parentLog, "model.completed").map((e) => e.payload.model)).toEqual(["openai/big", "openai/big"])
        expect(eventsOf(childLog, "model.completed").map((e) => e.payload.model)).toEqual(["openai/small", "openai/small"])
        expect(eventsOf(grandchildLog, "model.completed").map((e) => e.payload.model)).toEqual(["openai/small"])
        // Every request of the child and the grandchild went to the resolved gateway, the parent's to the engine's.
        expect(ledger.requests.map(({ model, request }) => `${model} ${request.sessionId}`)).toEqual([
          `openai/big ${sessionId}`,
          `openai/small ${childId}`,
          `openai/small ${grandchildId}`,
          `openai/small ${childId}`,
          `openai/big ${sessionId}`
        ])
        // Resolved once, for the child; the grandchild took its parent's gateway; released once the child answered.
        expect(ledger.asked).toEqual(["openai/small"])
        expect(ledger.held.size).toBe(0)
        expect(eventsOf(parentLog, "tool.completed").find((e) => e.payload.toolCallId === "call_review")?.payload).toMatchObject({
          isError: false,
          output: "a.txt is fine."
        })
      }).pipe(Effect.provide(subagentEngine(script, { store: store.fresh(), harness: { model: renamedModelLayer(script, "openai/big", ledger), models: resolverLayer(script, ["openai/small"], ledger) } })))
    })

    it.effect("a model that cannot be used is a tool error naming the definition and why; no child session is started", () => {
      const cwd = subagentWorkspace([{ ...reviewer, model: "openai/unknown-here" }])
      const script = { responses: [{ chunks: [task("reviewer", "Review", "call_review")] }, "I will review it myself."] }
      const ledger = newLedger()
      return Effect.gen(function* () {
        const { sessionId, events } = yield* parentTurn(cwd, "Review")
        expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
        const parentLog = yield* replayAll(sessionId)
        expect(childrenOf(parentLog)).toEqual([])
        expect(eventsOf(parentLog, "subagent.completed")).toEqual([])
        const result = eventsOf(parentLog, "tool.completed").find((e) => e.payload.toolCallId === "call_review")?.payload
        expect(result?.isError).toBe(true)
        expect(result?.output).toMatch(/^The reviewer subagent could not run: its definition \(.*reviewer\.md\) names the model openai\/unknown-here, which cannot be used: OPENAI_API_KEY is not set$/)
        expect(ledger.asked).toEqual(["openai/unknown-here"])
        const sessions = yield* Effect.flatMap(EventStore, (events) => events.listSessions)
        expect(sessions.map((s) => s.sessionId)).toEqual([sessionId])
      }).pipe(Effect.provide(subagentEngine(script, { store: store.fresh(), harness: { model: renamedModelLayer(script, "openai/big", ledger), models: resolverLayer(script, [], ledger) } })))
    })
  })
}

describe("a definition's model, edge cases", () => {
  it.effect("an engine without a resolver runs a definition naming its own model, and refuses any other with a clear tool error", () => {
    const cwd = subagentWorkspace([{ ...checker, name: "same", model: "scripted" }, { ...checker, name: "other", model: "haiku" }])
    const script = {
      responses: [{ chunks: [task("same", "Check", "call_same"), task("other", "Check", "call_other")] }, "Done."],
      agents: { same: { responses: ["Same model."] }, other: { responses: ["Never played."] } }
    }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "Check twice")
      const parentLog = yield* replayAll(sessionId)
      const results = eventsOf(parentLog, "tool.completed")
      expect(results.find((e) => e.payload.toolCallId === "call_same")?.payload).toMatchObject({ isError: false, output: "Same model." })
      expect(results.find((e) => e.payload.toolCallId === "call_other")?.payload.output).toMatch(
        /names the model anthropic\/claude-haiku-5-5, which cannot be used: this engine has no models but scripted$/
      )
      expect(childrenOf(parentLog)).toHaveLength(1)
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("cancelling the parent while the child asks its own model releases that model's gateway", () => {
    const cwd = subagentWorkspace([reviewer])
    const script = { responses: [{ chunks: [task("reviewer", "Review", "call_review")] }], agents: { reviewer: { responses: [{ chunks: [{ text: "thinking" }], delayMs: 60_000 }] } } }
    const ledger = newLedger()
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const fiber = yield* Effect.fork(Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "Review" })))
      yield* advanceUntil(Effect.sync(() => ledger.held.size === 1))
      const childId = childrenOf(yield* replayAll(header.sessionId))[0] ?? ""
      yield* Fiber.interrupt(fiber)
      expect(ledger.held.size).toBe(0)
      const childLog = yield* replayAll(childId)
      expect(childLog.at(-1)?.payload).toMatchObject({ stopReason: "cancelled" })
    }).pipe(Effect.provide(subagentEngine(script, { harness: { model: renamedModelLayer(script, "openai/big", ledger), models: resolverLayer(script, ["openai/small"], ledger) } })))
  })
})
