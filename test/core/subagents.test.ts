import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Stream, TestClock } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as ScriptedApprovals from "../../src/layers/approvals/scripted.js"
import { Approvals } from "../../src/services/Approvals.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import { PLAN_TOOL } from "../../src/domain/plan.js"
import { advanceUntil, replayAll, turnTypes } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import {
  childrenOf,
  parentTurn,
  recordingStore,
  removeSubagentDirs,
  subagentEngine,
  subagentWorkspace,
  task,
  toolCall
} from "../support/subagent-fixture.js"

afterAll(removeSubagentDirs)

const reviewer = { name: "reviewer", description: "Reviews code and reports problems", tools: "read_file, grep", body: "You review code. Answer in one sentence." }

describe("subagents: the task tool", () => {
  it.effect("the parent delegates to a reviewer, which reads a file and answers; the answer is the task's result, both logs linked", () => {
    const cwd = subagentWorkspace([reviewer], { "greet.js": "console.log('hello')\n" })
    const script = {
      responses: [{ chunks: [task("reviewer", "Review greet.js", "call_task")] }, "The reviewer found nothing wrong."],
      agents: { reviewer: { responses: [{ chunks: [toolCall("read_file", { path: "greet.js" })] }, "greet.js prints hello; it is fine."] } }
    }
    return Effect.gen(function* () {
      const { sessionId, events } = yield* parentTurn(cwd, "Have greet.js reviewed")
      const parentLog = yield* replayAll(sessionId)
      expect(invariantProblem(parentLog)).toBeUndefined()
      const [childId] = childrenOf(parentLog)
      expect(childId).toBeDefined()
      const childLog = yield* replayAll(childId ?? "")
      expect(invariantProblem(childLog)).toBeUndefined()

      // Linked both ways.
      expect(childLog[0]?.payload).toMatchObject({ client: "subagent", parent: { sessionId, toolCallId: "call_task", agent: "reviewer", depth: 1 } })
      const started = eventsOf(parentLog, "subagent.started")[0]?.payload
      expect(started).toEqual({ toolCallId: "call_task", agent: "reviewer", childSessionId: childId, prompt: "Review greet.js", depth: 1 })
      // The prompt and the answer in plain text in both logs.
      expect(eventsOf(childLog, "user.message")[0]?.payload.content).toBe("Review greet.js")
      const completed = eventsOf(parentLog, "subagent.completed")[0]?.payload
      expect(completed).toMatchObject({ agent: "reviewer", childSessionId: childId, stopReason: "final", answer: "greet.js prints hello; it is fine." })
      expect(eventsOf(childLog, "model.delta").map((e) => e.payload.text).join("")).toBe("greet.js prints hello; it is fine.")
      // The child's tokens are reported to the parent's turn.
      const childUsage = eventsOf(childLog, "model.completed").reduce((sum, e) => sum + e.payload.usage.inputTokens, 0)
      expect(completed?.usage.inputTokens).toBe(childUsage)
      expect(childUsage).toBeGreaterThan(0)
      // The answer is the tool result the parent's model reads.
      const result = eventsOf(parentLog, "tool.completed").find((e) => e.payload.toolCallId === "call_task")?.payload
      expect(result).toMatchObject({ isError: false, output: "greet.js prints hello; it is fine." })
      // The child read the file through the permission boundary, under its definition's instructions.
      expect(eventsOf(childLog, "tool.completed")[0]?.payload.output).toContain("console.log('hello')")
      expect(eventsOf(childLog, "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow" })
      expect(eventsOf(childLog, "context.source").find((e) => e.payload.kind === "system")?.payload).toMatchObject({ id: "agent:reviewer", text: reviewer.body })
      expect(eventsOf(childLog, "context.built")[0]?.payload.tools).toEqual(["read_file", "grep"])
      // The parent's task call was checked like any other.
      expect(eventsOf(parentLog, "permission.resolved").find((e) => e.payload.toolCallId === "call_task")?.payload).toMatchObject({ decision: "allow" })
      expect(turnTypes(events).filter((t) => t.startsWith("subagent.") || t.startsWith("tool."))).toEqual([
        "tool.started",
        "subagent.started",
        "subagent.completed",
        "tool.completed"
      ])
      expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("the task tool is offered only with agent definitions, and its description lists them", () => {
    const withAgents = subagentWorkspace([reviewer])
    const without = subagentWorkspace([])
    const script = { responses: ["one", "two"] }
    return Effect.gen(function* () {
      const a = yield* parentTurn(withAgents, "hello")
      const b = yield* parentTurn(without, "hello")
      expect(eventsOf(a.events, "context.built")[0]?.payload.tools).toContain("task")
      expect(eventsOf(b.events, "context.built")[0]?.payload.tools).not.toContain("task")
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("a child whose tools exclude write_file cannot write, even when the parent could", () => {
    const cwd = subagentWorkspace([reviewer])
    const script = {
      responses: [
        { chunks: [task("reviewer", "Write a file", "call_task")] },
        { chunks: [toolCall("write_file", { path: "parent.txt", content: "the parent may" }, "call_parent_write")] },
        "done"
      ],
      agents: { reviewer: { responses: [{ chunks: [toolCall("write_file", { path: "child.txt", content: "pwned" }, "call_child_write")] }, "I could not write."] } }
    }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go", "accept-edits")
      const parentLog = yield* replayAll(sessionId)
      const childLog = yield* replayAll(childrenOf(parentLog)[0] ?? "")
      const refused = eventsOf(childLog, "tool.completed").find((e) => e.payload.toolCallId === "call_child_write")?.payload
      expect(refused).toMatchObject({ isError: true })
      expect(refused?.output).toContain("not available to the reviewer subagent")
      expect(eventsOf(childLog, "tool.started")).toHaveLength(0)
      expect(existsSync(join(cwd, "child.txt"))).toBe(false)
      // The parent, in accept-edits, wrote.
      expect(existsSync(join(cwd, "parent.txt"))).toBe(true)
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("a child runs under its parent's mode: in plan mode a child with every tool cannot write", () => {
    const helper = { name: "helper", description: "Does anything", body: "You help." }
    const cwd = subagentWorkspace([helper])
    const script = {
      responses: [{ chunks: [task("helper", "Write a file")] }, "done"],
      agents: { helper: { responses: [{ chunks: [toolCall("write_file", { path: "child.txt", content: "x" }, "call_w")] }, "I could not."] } }
    }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go", "plan")
      const childLog = yield* replayAll(childrenOf(yield* replayAll(sessionId))[0] ?? "")
      expect(eventsOf(childLog, "turn.started")[0]?.payload.permissionMode).toBe("plan")
      expect(eventsOf(childLog, "permission.resolved")[0]?.payload).toMatchObject({ decision: "deny", by: "mode" })
      expect(existsSync(join(cwd, "child.txt"))).toBe(false)
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("a child's permission question goes to the same approvals, labelled with its name; an answer for the session holds for the parent too", () => {
    const helper = { name: "helper", description: "Does anything", body: "You help." }
    const cwd = subagentWorkspace([helper])
    const script = {
      responses: [
        { chunks: [task("helper", "Write a file")] },
        { chunks: [toolCall("write_file", { path: "child.txt", content: "again" }, "call_parent_w")] },
        "done"
      ],
      agents: { helper: { responses: [{ chunks: [toolCall("write_file", { path: "child.txt", content: "x" }, "call_w")] }, "Written."] } }
    }
    const approvals = Effect.runSync(ScriptedApprovals.make([{ decision: "allow", scope: "session", by: "user" }]))
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go")
      const parentLog = yield* replayAll(sessionId)
      const [childId] = childrenOf(parentLog)
      const childLog = yield* replayAll(childId ?? "")
      expect(eventsOf(childLog, "permission.requested")[0]?.payload).toMatchObject({ tool: "write_file" })
      expect(eventsOf(childLog, "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow", by: "user", scope: "session" })
      // Asked of the top-level session's clients, labelled with the child's name.
      expect(approvals.asked).toHaveLength(1)
      expect(approvals.asked[0]).toMatchObject({ sessionId, toolCallId: `${childId}/call_w`, summary: expect.stringMatching(/^\[subagent helper\] /) })
      // Mirrored in the parent's running turn, where its clients (CLI, web, ACP) look for questions.
      const mirrored = eventsOf(parentLog, "permission.requested")[0]
      expect(mirrored?.payload).toMatchObject({ toolCallId: `${childId}/call_w`, tool: "write_file", summary: expect.stringMatching(/^\[subagent helper\] /) })
      expect(mirrored?.turnId).toBe(eventsOf(parentLog, "turn.started")[0]?.turnId)
      expect(eventsOf(parentLog, "permission.resolved").find((e) => e.payload.toolCallId === `${childId}/call_w`)?.payload).toMatchObject({ decision: "allow", scope: "session" })
      // The parent's own write of that file is allowed by the same answer, without a question.
      expect(eventsOf(parentLog, "permission.resolved").find((e) => e.payload.toolCallId === "call_parent_w")?.payload).toMatchObject({ decision: "allow", by: "remembered" })
    }).pipe(Effect.provide(subagentEngine(script, { harness: { approvals: Layer.succeed(Approvals, approvals.service) } })))
  })

  it.effect("the depth limit (default 2): a grandchild's task call is a clear tool error", () => {
    const looper = { name: "looper", description: "Delegates again", body: "You delegate." }
    const cwd = subagentWorkspace([looper])
    const script = {
      responses: [{ chunks: [task("looper", "level 1")] }, "top done"],
      agents: { looper: { responses: [{ chunks: [task("looper", "deeper", "call_deeper")] }, "looper done"] } }
    }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go")
      const level1 = childrenOf(yield* replayAll(sessionId))
      expect(level1).toHaveLength(1)
      const level1Log = yield* replayAll(level1[0] ?? "")
      const level2 = childrenOf(level1Log)
      expect(level2).toHaveLength(1)
      const level2Log = yield* replayAll(level2[0] ?? "")
      expect(level2Log[0]?.payload).toMatchObject({ parent: { sessionId: level1[0], depth: 2 } })
      expect(childrenOf(level2Log)).toHaveLength(0)
      const refused = eventsOf(level2Log, "tool.completed").find((e) => e.payload.toolCallId === "call_deeper")?.payload
      expect(refused?.isError).toBe(true)
      expect(refused?.output).toContain("delegation is limited to 2 level(s)")
      for (const log of [level1Log, level2Log]) expect(invariantProblem(log)).toBeUndefined()
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("the concurrency limit: a fourth task in one step while three run is a clear tool error; the three run at once", () => {
    const slow = { name: "slow", description: "Takes a while", body: "You are slow." }
    const cwd = subagentWorkspace([slow])
    const script = {
      responses: [{ chunks: [task("slow", "a", "call_1"), task("slow", "b", "call_2"), task("slow", "c", "call_3"), task("slow", "d", "call_4")] }, "all done"],
      agents: { slow: { responses: [{ chunks: [{ text: "finished" }], delayMs: 1000 }] } }
    }
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const fiber = yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "go" })).pipe(Effect.fork)
      // All three are started (each waits on its model) before any answers.
      yield* advanceUntil(Effect.map(replayAll(header.sessionId), (log) => eventsOf(log, "subagent.started").length === 3 && eventsOf(log, "tool.completed").length === 1), "1 millis")
      const early = yield* replayAll(header.sessionId)
      expect(eventsOf(early, "subagent.completed")).toHaveLength(0)
      const refused = eventsOf(early, "tool.completed")[0]?.payload
      expect(refused?.isError).toBe(true)
      expect(refused?.output).toContain("at most 3 subagents run at once")
      yield* advanceUntil(Effect.map(Fiber.poll(fiber), Option.isSome))
      yield* Fiber.join(fiber)
      const log = yield* replayAll(header.sessionId)
      expect(eventsOf(log, "subagent.completed").map((e) => e.payload.answer)).toEqual(["finished", "finished", "finished"])
      expect(invariantProblem(log)).toBeUndefined()
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("an unknown agent is an invalid call the model reads; a child's step limit ends it with max_steps, reported as a tool error", () => {
    const brief = { name: "brief", description: "Has one step", maxSteps: 1, body: "Be brief." }
    const cwd = subagentWorkspace([brief], { "a.txt": "a" })
    const script = {
      responses: [{ chunks: [task("nobody", "x", "call_unknown"), task("brief", "read a.txt", "call_brief")] }, "done"],
      agents: { brief: { responses: [{ chunks: [toolCall("read_file", { path: "a.txt" })] }, "never reached"] } }
    }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go")
      const log = yield* replayAll(sessionId)
      const results = eventsOf(log, "tool.completed").map((e) => e.payload)
      expect(results.find((r) => r.toolCallId === "call_unknown")).toMatchObject({ isError: true })
      expect(results.find((r) => r.toolCallId === "call_unknown")?.output).toContain("nobody")
      const limited = results.find((r) => r.toolCallId === "call_brief")
      expect(limited?.isError).toBe(true)
      expect(limited?.output).toContain("max steps")
      expect(eventsOf(log, "subagent.completed")[0]?.payload.stopReason).toBe("max_steps")
    }).pipe(Effect.provide(subagentEngine(script)))
  })
})

describe("subagents: the scripted model's per-prompt answers", () => {
  it.effect("two children of one agent in one step play the lists their prompts name; an unnamed prompt without responses fails clearly", () => {
    const cwd = subagentWorkspace([reviewer], { "a.js": "a\n", "b.js": "b\n" })
    const script = {
      responses: [{ chunks: [task("reviewer", "Review a.js", "call_a"), task("reviewer", "Review b.js", "call_b"), task("reviewer", "Review c.js", "call_c")] }, "Reviewed."],
      agents: {
        reviewer: {
          prompts: {
            "Review a.js": [{ chunks: [toolCall("read_file", { path: "a.js" })] }, "a.js is fine."],
            "Review b.js": ["b.js needs a test."]
          }
        }
      }
    }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "Review the files")
      const results = eventsOf(yield* replayAll(sessionId), "tool.completed")
      const output = (id: string) => results.find((e) => e.payload.toolCallId === id)?.payload
      expect(output("call_a")).toMatchObject({ isError: false, output: "a.js is fine." })
      expect(output("call_b")).toMatchObject({ isError: false, output: "b.js needs a test." })
      expect(output("call_c")?.isError).toBe(true)
      expect(output("call_c")?.output).toContain('the script\'s agent reviewer has no responses for the prompt "Review c.js" (its prompts: "Review a.js", "Review b.js")')
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("an agent with neither responses nor prompts is a script error naming it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Scripted.parseScript(JSON.stringify({ responses: ["hi"], agents: { reviewer: {} } }), "demo.json"))
      expect(error.message).toContain("demo.json: not a valid script")
      expect(error.message).toContain("an agent needs responses, prompts or both")
    })
  )
})

describe("subagents: cancel reaches every descendant", () => {
  it.effect("cancelling the parent while two children run closes both cancelled before the parent's turn.completed; nothing comes after", () => {
    const slow = { name: "slow", description: "Takes a while", body: "You are slow." }
    const cwd = subagentWorkspace([slow])
    const script = {
      responses: [{ chunks: [task("slow", "a", "call_1"), task("slow", "b", "call_2")] }, "never"],
      agents: { slow: { responses: [{ chunks: [{ text: "too late" }], delayMs: 60_000 }] } }
    }
    const order: Array<string> = []
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const parentId = header.sessionId
      const fiber = yield* Stream.runCollect(engine.runTurn({ sessionId: parentId, content: "go" })).pipe(Effect.fork)
      yield* advanceUntil(Effect.map(replayAll(parentId), (log) => eventsOf(log, "subagent.started").length === 2), "1 millis")
      const children = childrenOf(yield* replayAll(parentId))
      // Both children are inside their turns, waiting on the model.
      yield* advanceUntil(
        Effect.map(Effect.forEach(children, replayAll), (logs) => logs.every((log) => log.some((e) => e.type === "context.built"))),
        "1 millis"
      )
      yield* engine.cancelTurn(parentId)
      yield* Fiber.join(fiber)
      const parentLog = yield* replayAll(parentId)
      expect(parentLog.at(-1)?.payload).toEqual({ stopReason: "cancelled" })
      const parentClosedAt = order.indexOf(`${parentId} turn.completed`)
      for (const child of children) {
        const log = yield* replayAll(child)
        expect(log.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "cancelled" } })
        expect(invariantProblem(log)).toBeUndefined()
        expect(order.indexOf(`${child} turn.completed`)).toBeLessThan(parentClosedAt)
        expect(order.slice(parentClosedAt).some((entry) => entry.startsWith(`${child} `))).toBe(false)
      }
      expect(eventsOf(parentLog, "subagent.completed").map((e) => e.payload.stopReason)).toEqual(["cancelled", "cancelled"])
      expect(invariantProblem(parentLog)).toBeUndefined()
      // Time passing does not wake anything up: nothing was left running.
      const before = order.length
      yield* TestClock.adjust("2 minutes")
      expect(order.length).toBe(before)
      expect(yield* engine.runningSessions).toEqual(new Set())
    }).pipe(Effect.provide(subagentEngine(script, { store: recordingStore(order) })))
  })
})

describe("subagents: what a child's turn takes from its parent's scope", () => {
  it.effect("a grandchild's question is mirrored in the top-level session's turn, not in its parent's", () => {
    const lead = { name: "lead", description: "Delegates the writing", body: "You delegate." }
    const writer = { name: "writer", description: "Writes files", body: "You write." }
    const cwd = subagentWorkspace([lead, writer])
    const script = {
      responses: [{ chunks: [task("lead", "Have it written")] }, "top done"],
      agents: {
        lead: { responses: [{ chunks: [task("writer", "Write a file", "call_inner")] }, "lead done"] },
        writer: { responses: [{ chunks: [toolCall("write_file", { path: "deep.txt", content: "x" }, "call_w")] }, "Written."] }
      }
    }
    const approvals = Effect.runSync(ScriptedApprovals.make([{ decision: "allow", scope: "once", by: "user" }]))
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go")
      const topLog = yield* replayAll(sessionId)
      const [leadId] = childrenOf(topLog)
      const leadLog = yield* replayAll(leadId ?? "")
      const [writerId] = childrenOf(leadLog)
      expect(writerId).toBeDefined()
      const relayedId = `${writerId}/call_w`
      expect(approvals.asked.map((q) => ({ sessionId: q.sessionId, toolCallId: q.toolCallId }))).toEqual([{ sessionId, toolCallId: relayedId }])
      const mirrored = eventsOf(topLog, "permission.requested").find((e) => e.payload.toolCallId === relayedId)
      expect(mirrored?.turnId).toBe(eventsOf(topLog, "turn.started")[0]?.turnId)
      expect(eventsOf(topLog, "permission.resolved").find((e) => e.payload.toolCallId === relayedId)?.payload).toMatchObject({ decision: "allow" })
      expect(eventsOf(leadLog, "permission.requested")).toEqual([])
      expect(existsSync(join(cwd, "deep.txt"))).toBe(true)
      for (const log of [topLog, leadLog]) expect(invariantProblem(log)).toBeUndefined()
    }).pipe(Effect.provide(subagentEngine(script, { harness: { approvals: Layer.succeed(Approvals, approvals.service) } })))
  })

  it.effect("a child's exit_plan_mode is not its parent's plan: nobody is asked and the session stays in plan mode", () => {
    const helper = { name: "helper", description: "Does anything", body: "You help." }
    const cwd = subagentWorkspace([helper])
    const script = {
      responses: [{ chunks: [task("helper", "Plan it")] }, "done"],
      agents: { helper: { responses: [{ chunks: [toolCall(PLAN_TOOL, { plan: "1. write it" }, "call_plan")] }, "I could not."] } }
    }
    const approvals = Effect.runSync(ScriptedApprovals.make([{ decision: "allow", scope: "once", by: "user" }]))
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go", "plan")
      const parentLog = yield* replayAll(sessionId)
      const childLog = yield* replayAll(childrenOf(parentLog)[0] ?? "")
      expect(approvals.asked).toEqual([])
      for (const log of [parentLog, childLog]) {
        expect(eventsOf(log, "plan.proposed")).toEqual([])
        expect(eventsOf(log, "session.mode_changed").filter((e) => e.payload.mode !== "plan")).toEqual([])
      }
      expect(eventsOf(childLog, "tool.completed").find((e) => e.payload.toolCallId === "call_plan")?.payload.isError).toBe(true)
      const engine = yield* SessionEngine
      expect((yield* engine.getSession(sessionId)).mode).toBe("plan")
    }).pipe(Effect.provide(subagentEngine(script, { harness: { approvals: Layer.succeed(Approvals, approvals.service) } })))
  })
})
