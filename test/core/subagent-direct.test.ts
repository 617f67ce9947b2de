import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Stream } from "effect"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { agentUnavailableCode } from "../../src/core/standing-delegation.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as ScriptedApprovals from "../../src/layers/approvals/scripted.js"
import { Approvals } from "../../src/services/Approvals.js"
import { EventStore } from "../../src/services/EventStore.js"
import { awaitSequence, engineLayer, replayAll, turnTypes } from "../support/engine-harness.js"
import { eventsOf, parseEventLines } from "../support/events.js"
import { newLedger, renamedModelLayer, resolverLayer } from "../support/model-resolver.js"
import { storeCases } from "../support/store-cases.js"
import { childrenOf, parentTurn, removeSubagentDirs, subagentEngine, subagentWorkspace, task, toolCall } from "../support/subagent-fixture.js"

/**
 * A subagent's session prompted on its own (`run --session <child>`, an RPC or web prompt), not
 * by its parent's `task` call: its turns keep what its definition says, or do not run.
 */
afterAll(removeSubagentDirs)

const reviewer = { name: "reviewer", description: "Reviews code", tools: "read_file", model: "openai/small", body: "You review code. Answer in one sentence." }

/** A direct turn on `sessionId` (no delegation): its events. */
const directTurn = (sessionId: string, content: string, extra: { readonly maxSteps?: number } = {}) =>
  Effect.flatMap(SessionEngine, (engine) => Stream.runCollect(engine.runTurn({ sessionId, content, ...extra }))).pipe(Effect.map(Chunk.toArray))

/** The events of a log from its `index`th turn.started on. */
const fromTurn = <E extends { readonly type: string }>(log: ReadonlyArray<E>, index: number) => {
  const starts = log.flatMap((e, i) => (e.type === "turn.started" ? [i] : []))
  return log.slice(starts[index] ?? log.length)
}

for (const store of storeCases.filter((s) => s.name !== "jsonl (fail)")) {
  describe(`a subagent's session prompted directly, on the ${store.name} store`, () => {
    it.effect("a reviewer (tools: read_file) is offered only read_file, its write_file call is refused, and it keeps its instructions and model; replay rebuilds what was sent", () => {
      const cwd = subagentWorkspace([reviewer], { "a.txt": "alpha\n" })
      const script = {
        responses: [{ chunks: [task("reviewer", "Review a.txt", "call_review")] }, "Reviewed."],
        agents: {
          reviewer: {
            responses: [
              "a.txt is fine.",
              { chunks: [toolCall("write_file", { path: "b.txt", content: "pwned" }, "call_write"), toolCall("read_file", { path: "a.txt" }, "call_read")] },
              "I can only read: a.txt says alpha."
            ]
          }
        }
      }
      const ledger = newLedger()
      return Effect.gen(function* () {
        const { sessionId } = yield* parentTurn(cwd, "Review a.txt", "accept-edits")
        const [childId = ""] = childrenOf(yield* replayAll(sessionId))
        const parentBefore = yield* replayAll(sessionId)

        const events = yield* directTurn(childId, "Now fix a.txt: write b.txt")
        expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
        const childLog = yield* replayAll(childId)
        expect(invariantProblem(childLog)).toBeUndefined()
        const direct = fromTurn(childLog, 1)
        // Offered only what the definition allows, in both of the turn's requests.
        expect(eventsOf(direct, "context.built").map((e) => e.payload.tools)).toEqual([["read_file"], ["read_file"]])
        const refused = eventsOf(direct, "tool.completed").find((e) => e.payload.toolCallId === "call_write")?.payload
        expect(refused).toMatchObject({ isError: true, output: expect.stringContaining("not available to the reviewer subagent") })
        expect(eventsOf(direct, "tool.started").map((e) => e.payload.toolCallId)).toEqual(["call_read"])
        expect(existsSync(join(cwd, "b.txt"))).toBe(false)
        // Its definition's instructions and model.
        const childRequests = ledger.requests.filter(({ request }) => request.sessionId === childId)
        expect(childRequests.map(({ model }) => model)).toEqual(["openai/small", "openai/small", "openai/small"])
        for (const { request } of childRequests) {
          expect(request.system).toContain(reviewer.body)
          expect(request.agent).toBe("reviewer")
          expect(request.tools.map((t) => t.name)).toEqual(["read_file"])
        }
        expect(eventsOf(direct, "model.completed").map((e) => e.payload.model)).toEqual(["openai/small", "openai/small"])
        // The resolved model lived for the turn only.
        expect(ledger.held.size).toBe(0)
        // Its own mode (accept-edits, from its parent's turn) and its own clients: nothing reached the parent's log.
        expect(eventsOf(direct, "turn.started")[0]?.payload.permissionMode).toBe("accept-edits")
        expect(yield* replayAll(sessionId)).toEqual(parentBefore)
        // Replay from the log alone gives the requests that were sent, the direct turn's included.
        const rebuilt = Either.getOrThrow(rebuildRequests(childLog))
        expect(rebuilt.map((r) => r.system)).toEqual(childRequests.map(({ request }) => request.system))
        expect(rebuilt.map((r) => r.messages)).toEqual(childRequests.map(({ request }) => request.messages))
        expect(rebuilt.map((r) => r.tools)).toEqual(childRequests.map(({ request }) => request.tools.map((t) => t.name)))
      }).pipe(
        Effect.provide(
          subagentEngine(script, { store: store.fresh(), harness: { model: renamedModelLayer(script, "openai/big", ledger), models: resolverLayer(script, ["openai/small"], ledger) } })
        )
      )
    })

    it.effect("a deleted definition: the turn ends agent_unavailable, naming the agent, where it was looked for and what to do; no model request, no tool", () => {
      const cwd = subagentWorkspace([reviewer])
      const script = {
        responses: [{ chunks: [task("reviewer", "Review", "call_review")] }, "Reviewed."],
        agents: { reviewer: { responses: ["Fine.", { chunks: [toolCall("read_file", { path: "a.txt" })] }, "never"] } }
      }
      const ledger = newLedger()
      return Effect.gen(function* () {
        const { sessionId } = yield* parentTurn(cwd, "Review")
        const [childId = ""] = childrenOf(yield* replayAll(sessionId))
        rmSync(join(cwd, ".agents", "agents", "reviewer.md"))
        const asked = ledger.requests.length

        const events = yield* directTurn(childId, "Review again")
        expect(turnTypes(events)).toEqual(["turn.started", "user.message", "turn.completed"])
        const end = events.at(-1)?.payload
        expect(end).toMatchObject({ stopReason: "error", errorCode: agentUnavailableCode })
        const message = end !== undefined && "message" in end ? String(end.message) : ""
        expect(message).toContain(`running the "reviewer" agent (level 1 below session ${sessionId})`)
        expect(message).toContain(`no agent named "reviewer" is defined for ${cwd}`)
        expect(message).toContain(".agents/agents/")
        expect(message).toContain(`custom-agent sessions fork ${childId}`)
        expect(ledger.requests.length).toBe(asked)
        const childLog = yield* replayAll(childId)
        expect(invariantProblem(childLog)).toBeUndefined()
        expect(eventsOf(fromTurn(childLog, 1), "tool.started")).toHaveLength(0)

        // Through the inbox (an RPC or web prompt) the same: admitted, then closed with the error.
        const engine = yield* SessionEngine
        const receipt = yield* engine.prompt({ sessionId: childId, content: "And again" })
        if (receipt._tag !== "Started") return expect.unreachable(`the prompt was ${receipt._tag}`)
        yield* awaitSequence(childId, receipt.sequence + 1)
        const closed = eventsOf(yield* replayAll(childId), "turn.completed").find((e) => e.turnId === receipt.turnId)
        expect(closed?.payload).toMatchObject({ stopReason: "error", errorCode: agentUnavailableCode })

        // Restored, the session goes on as the reviewer.
        writeFileSync(join(cwd, ".agents", "agents", "reviewer.md"), `---\nname: reviewer\ndescription: Reviews\ntools: read_file\n---\nYou review.\n`)
        const restored = yield* directTurn(childId, "Review a.txt")
        expect(eventsOf(restored, "context.built")[0]?.payload.tools).toEqual(["read_file"])
        expect(invariantProblem(yield* replayAll(childId))).toBeUndefined()
      }).pipe(
        Effect.provide(
          subagentEngine(script, { store: store.fresh(), harness: { model: renamedModelLayer(script, "openai/big", ledger), models: resolverLayer(script, ["openai/small"], ledger) } })
        )
      )
    })
  })
}

describe("a subagent's session prompted directly: depth, questions, limits", () => {
  it.effect("a child at depth 2 cannot delegate further; one at depth 1 can, and its child counts from there", () => {
    const a = { name: "a", description: "Delegates", body: "You are a." }
    const b = { name: "b", description: "Delegates too", body: "You are b." }
    const cwd = subagentWorkspace([a, b])
    const script = {
      responses: [{ chunks: [task("a", "start", "call_a")] }, "top done"],
      agents: {
        a: { responses: [{ chunks: [task("b", "go on", "call_b")] }, "a done", { chunks: [task("b", "once more", "call_b2")] }, "a done again"] },
        b: { responses: ["b done", { chunks: [task("a", "deeper", "call_deeper")] }, "I could not delegate."] }
      }
    }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go")
      const [aId = ""] = childrenOf(yield* replayAll(sessionId))
      const [bId = ""] = childrenOf(yield* replayAll(aId))
      expect((yield* replayAll(bId))[0]?.payload).toMatchObject({ parent: { agent: "b", depth: 2 } })

      yield* directTurn(bId, "Delegate something")
      const bLog = yield* replayAll(bId)
      const refused = eventsOf(bLog, "tool.completed").find((e) => e.payload.toolCallId === "call_deeper")?.payload
      expect(refused).toMatchObject({ isError: true, output: expect.stringContaining("already at level 2") })
      expect(childrenOf(bLog)).toHaveLength(0)

      yield* directTurn(aId, "Delegate again")
      const aLog = yield* replayAll(aId)
      const [, secondB = ""] = childrenOf(aLog)
      const secondLog = yield* replayAll(secondB)
      expect(secondLog[0]?.payload).toMatchObject({ parent: { sessionId: aId, toolCallId: "call_b2", agent: "b", depth: 2 } })
      expect(eventsOf(aLog, "subagent.started").at(-1)?.payload.depth).toBe(2)
      for (const log of [aLog, bLog, secondLog]) expect(invariantProblem(log)).toBeUndefined()
      expect((yield* (yield* EventStore).listSessions).length).toBe(4)
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("its questions go to its own clients (not relayed to the parent), and its definition's maxSteps holds unless the caller gives one", () => {
    const helper = { name: "helper", description: "Writes", tools: "write_file, read_file", maxSteps: 1, body: "You help." }
    const cwd = subagentWorkspace([helper])
    const script = {
      responses: [{ chunks: [task("helper", "hello", "call_h")] }, "done"],
      agents: {
        helper: {
          responses: [
            "hi",
            { chunks: [toolCall("write_file", { path: "out.txt", content: "x" }, "call_w")] },
            { chunks: [toolCall("read_file", { path: "out.txt" }, "call_r")] },
            "read it"
          ]
        }
      }
    }
    const approvals = Effect.runSync(ScriptedApprovals.make([{ decision: "allow", scope: "once", by: "user" }]))
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go")
      const [childId = ""] = childrenOf(yield* replayAll(sessionId))
      const parentBefore = yield* replayAll(sessionId)

      const limited = yield* directTurn(childId, "write out.txt")
      expect(limited.at(-1)?.payload).toMatchObject({ stopReason: "max_steps" })
      expect(approvals.asked).toHaveLength(1)
      expect(approvals.asked[0]).toMatchObject({ sessionId: childId, toolCallId: "call_w" })
      expect(approvals.asked[0]?.summary).not.toContain("[subagent")
      expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("x")
      expect(yield* replayAll(sessionId)).toEqual(parentBefore)

      const given = yield* directTurn(childId, "read it", { maxSteps: 2 })
      expect(given.at(-1)?.payload).toEqual({ stopReason: "final" })
    }).pipe(Effect.provide(subagentEngine(script, { harness: { approvals: Layer.succeed(Approvals, approvals.service) } })))
  })

  it.effect("a definition that now names a model that cannot be used: agent_unavailable naming the model and why", () => {
    const cwd = subagentWorkspace([{ name: "reviewer", description: "Reviews code", tools: "read_file", body: "You review." }])
    const script = { responses: [{ chunks: [task("reviewer", "Review", "call_review")] }, "done"], agents: { reviewer: { responses: ["Fine.", "never"] } } }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "Review")
      const [childId = ""] = childrenOf(yield* replayAll(sessionId))
      writeFileSync(join(cwd, ".agents", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews\nmodel: haiku\n---\nYou review.\n")
      const events = yield* directTurn(childId, "Review again")
      expect(events.at(-1)?.payload).toMatchObject({ stopReason: "error", errorCode: agentUnavailableCode })
      expect(events.at(-1)?.payload).toMatchObject({
        message: expect.stringMatching(/names the model anthropic\/claude-haiku-5-5, which cannot be used: this engine has no models but scripted/)
      })
      expect(eventsOf(events, "model.completed")).toHaveLength(0)
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("a malformed definition: agent_unavailable, naming the unreadable file", () => {
    const cwd = subagentWorkspace([reviewer])
    const script = { responses: [{ chunks: [task("reviewer", "Review", "call_review")] }, "done"], agents: { reviewer: { responses: ["Fine.", "never"] } } }
    const ledger = newLedger()
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "Review")
      const [childId = ""] = childrenOf(yield* replayAll(sessionId))
      writeFileSync(join(cwd, ".agents", "agents", "reviewer.md"), "no front matter at all\n")
      const events = yield* directTurn(childId, "Review again")
      expect(events.at(-1)?.payload).toMatchObject({
        stopReason: "error",
        errorCode: agentUnavailableCode,
        message: expect.stringContaining(`unreadable definition files: ${join(cwd, ".agents", "agents", "reviewer.md")}`)
      })
    }).pipe(
      Effect.provide(subagentEngine(script, { harness: { model: renamedModelLayer(script, "openai/big", ledger), models: resolverLayer(script, ["openai/small"], ledger) } }))
    )
  })

  it.effect("an engine without agent definitions does not run a subagent's session as a plain one", () => {
    const golden = resolve(import.meta.dirname, "../fixtures/golden/subagents")
    const child = parseEventLines(readFileSync(join(golden, "child.jsonl"), "utf8"))
    return Effect.gen(function* () {
      yield* (yield* EventStore).appendAll(child)
      const childId = child[0]?.sessionId ?? ""
      const events = yield* directTurn(childId, "Write something")
      expect(turnTypes(events)).toEqual(["turn.started", "user.message", "turn.completed"])
      expect(events.at(-1)?.payload).toMatchObject({
        stopReason: "error",
        errorCode: agentUnavailableCode,
        message: expect.stringContaining("this engine has no agent definitions to run it by")
      })
      expect(invariantProblem(yield* replayAll(childId))).toBeUndefined()
    }).pipe(Effect.provide(engineLayer(MemoryStore.layer, { responses: ["never"] })))
  })
})
