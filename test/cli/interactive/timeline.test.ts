import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { AgentEvent } from "../../../src/domain/events.js"
import { Timeline, spendText } from "../../../src/cli/interactive/timeline.js"

/** Events as the log holds them, numbered in order (decoded: a payload the schema refuses fails the test). */
const log = () => {
  let sequence = 0
  return (type: string, payload: object, turnId: string | undefined = "turn_1"): AgentEvent =>
    Schema.decodeUnknownSync(AgentEvent)({
      id: `evt_${sequence + 1}`,
      schemaVersion: 1,
      sessionId: "ses_1",
      sequence: ++sequence,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
      type,
      payload,
      ...(turnId === undefined ? {} : { turnId })
    })
}

const usage = { inputTokens: 100, outputTokens: 20 }

describe("the timeline: the session's events as the blocks the screen draws", () => {
  it("streams an answer into one block, and a tool call's life into one line's state", () => {
    const event = log()
    const timeline = new Timeline()
    timeline.apply(event("session.created", { cwd: "/w", client: "cli", model: "scripted" }, undefined))
    timeline.apply(event("turn.started", { promptPreview: "hi" }))
    timeline.apply(event("user.message", { content: "hi", mode: "queue" }))
    timeline.apply(event("model.delta", { text: "Hello " }))
    timeline.apply(event("model.delta", { text: "there" }))
    timeline.apply(event("model.tool_call_requested", { toolCallId: "c1", name: "write_file", input: { path: "a.txt", content: "x" } }))
    timeline.apply(event("permission.requested", { toolCallId: "c1", tool: "write_file", risk: "write", summary: "create a.txt" }))
    expect(timeline.lastTool()?.state).toBe("asking")
    timeline.apply(event("permission.resolved", { toolCallId: "c1", decision: "allow", scope: "once", by: "user", client: "rpc:web" }))
    timeline.apply(event("tool.started", { toolCallId: "c1", name: "write_file" }))
    timeline.apply(event("tool.completed", { toolCallId: "c1", output: "wrote", isError: false, durationMs: 5, data: { _tag: "edit", path: "a.txt", before: null, after: "x", diff: "+x" } }))
    timeline.apply(event("model.completed", { stopReason: "final", usage, costUsd: 0.01 }))
    timeline.apply(event("turn.completed", { stopReason: "final" }))
    expect(timeline.blocks.map((block) => block.kind)).toEqual(["user", "assistant", "tool", "summary"])
    const [, answer, tool, closing] = timeline.blocks
    expect(answer).toMatchObject({ kind: "assistant", text: "Hello there" })
    expect(tool).toMatchObject({ kind: "tool", state: "done", verdict: "allowed, on the web", durationMs: 5 })
    expect(closing).toMatchObject({ kind: "summary", tally: { steps: 1, stopReason: "final", spend: { requests: 1, costUsd: 0.01 } } })
    expect(timeline.state).toMatchObject({ model: "scripted", running: false, turns: [{ number: 1, preview: "hi", sequence: 2 }] })
    expect(timeline.state.sessionSpend).toMatchObject({ requests: 1, tokens: 120 })
  })

  it("an answer given here needs no 'where'; a denial says who and why; a turn that ended leaves no call waiting", () => {
    const event = log()
    const timeline = new Timeline()
    timeline.apply(event("turn.started", { promptPreview: "go" }))
    timeline.apply(event("model.tool_call_requested", { toolCallId: "a", name: "shell", input: { command: "ls" } }))
    timeline.apply(event("permission.resolved", { toolCallId: "a", decision: "allow", scope: "once", by: "user", client: "cli" }))
    timeline.apply(event("model.tool_call_requested", { toolCallId: "b", name: "shell", input: { command: "rm x" } }))
    timeline.apply(event("permission.resolved", { toolCallId: "b", decision: "deny", scope: "once", by: "rule", reason: "no rm" }))
    timeline.apply(event("model.tool_call_requested", { toolCallId: "c", name: "read_file", input: { path: "y" } }))
    timeline.apply(event("turn.completed", { stopReason: "cancelled" }))
    const tools = timeline.blocks.filter((block) => block.kind === "tool")
    expect(tools.map((tool) => [tool.state, tool.verdict])).toEqual([
      ["cancelled", undefined],
      ["denied", "denied by rule: no rm"],
      ["cancelled", undefined]
    ])
    expect(timeline.blocks.at(-1)).toMatchObject({ kind: "summary", tally: { stopReason: "cancelled" } })
  })

  it("keeps the task list, the inbox and the mode; a subagent's calls go under its task call", () => {
    const event = log()
    const timeline = new Timeline()
    timeline.apply(event("session.mode_changed", { mode: "plan", by: "cli" }, undefined))
    timeline.apply(event("turn.started", { promptPreview: "go" }))
    timeline.apply(event("task.updated", { toolCallId: "t", todos: [{ content: "a", status: "in_progress" }] }))
    timeline.apply(event("inbox.updated", { nextTurn: [{ id: "m1", content: "later" }], nextStep: [] }))
    timeline.apply(event("model.tool_call_requested", { toolCallId: "task1", name: "task", input: { agent: "reviewer", prompt: "review" } }))
    timeline.apply(event("subagent.started", { toolCallId: "task1", agent: "reviewer", childSessionId: "ses_child", prompt: "review", depth: 1 }))
    const child = log()
    timeline.applyChild("ses_child", child("model.tool_call_requested", { toolCallId: "k1", name: "read_file", input: { path: "a" } }))
    timeline.applyChild("ses_child", child("tool.completed", { toolCallId: "k1", output: "x", isError: false, durationMs: 2 }))
    timeline.apply(event("subagent.completed", { toolCallId: "task1", agent: "reviewer", childSessionId: "ses_child", stopReason: "final", answer: "fine", usage }))
    expect(timeline.state).toMatchObject({ mode: "plan", tasks: [{ content: "a", status: "in_progress" }], queued: [{ id: "m1", content: "later" }] })
    const task = timeline.lastTool()
    expect(task?.children).toMatchObject([{ name: "read_file", state: "done", durationMs: 2 }])
    expect(task?.subagent).toMatchObject({ agent: "reviewer", stopReason: "final", answer: "fine" })
  })

  it("thinking is one block; text after a tool call is a new block; the last tool's detail can be added", () => {
    const event = log()
    const timeline = new Timeline()
    timeline.apply(event("model.thinking_delta", { text: "let me " }))
    timeline.apply(event("model.thinking_delta", { text: "think" }))
    timeline.apply(event("model.delta", { text: "one" }))
    timeline.apply(event("model.tool_call_requested", { toolCallId: "c", name: "shell", input: { command: "ls" } }))
    timeline.apply(event("tool.completed", { toolCallId: "c", output: "a\nb\n", isError: false, durationMs: 1, data: { _tag: "shell", command: "ls", exitCode: 0, timedOut: false, truncated: false } }))
    timeline.apply(event("model.delta", { text: "two" }))
    expect(timeline.expandLast()).toBe(true)
    expect(timeline.blocks.map((block) => block.kind)).toEqual(["thinking", "assistant", "tool", "assistant", "detail"])
    expect(timeline.blocks[0]).toMatchObject({ text: "let me think" })
    expect(timeline.blocks.at(-1)).toMatchObject({ kind: "detail", title: "$ ls", body: "a\nb\n" })
  })

  it("formats what was spent in a few characters", () => {
    expect(spendText({ requests: 0, tokens: 0, costUsd: 0, unpriced: 0 })).toBeUndefined()
    expect(spendText({ requests: 2, tokens: 1500, costUsd: 0, unpriced: 2 })).toBe("1.5k tokens")
    expect(spendText({ requests: 2, tokens: 1500, costUsd: 0.5, unpriced: 1 })).toBe("1.5k tokens · ≥ $0.5000")
  })

  it("a running command's output is its block's live tail until its result, which takes its place", () => {
    const event = log()
    const timeline = new Timeline()
    timeline.apply(event("turn.started", { promptPreview: "test" }))
    timeline.apply(event("model.tool_call_requested", { toolCallId: "sh", name: "shell", input: { command: "npm test" } }))
    timeline.apply(event("permission.resolved", { toolCallId: "sh", decision: "allow", scope: "once", by: "policy" }))
    timeline.apply(event("tool.started", { toolCallId: "sh", name: "shell" }))
    const tool = timeline.lastTool()
    const before = tool?.version ?? 0
    timeline.apply(event("tool.output", { toolCallId: "sh", text: "PASS a\nPASS b\n" }))
    timeline.apply(event("tool.output", { toolCallId: "sh", text: "FAIL c\n", skipped: 300 }))
    expect(tool?.live?.lines()).toEqual(["PASS a", "PASS b", "[… 300 bytes not shown …]", "FAIL c"])
    // Expanded while it runs: what it printed so far.
    timeline.expandLast()
    expect(timeline.blocks.at(-1)).toMatchObject({ kind: "detail", body: "(still running; its last lines so far:)\nPASS a\nPASS b\n[… 300 bytes not shown …]\nFAIL c" })
    // Each chunk redraws the block.
    expect(tool?.version).toBe(before + 2)
    timeline.apply(event("tool.completed", { toolCallId: "sh", output: "FAIL c\n[exit code 1]", isError: true, durationMs: 800, data: { _tag: "shell", command: "npm test", exitCode: 1, timedOut: false, truncated: false } }))
    expect(tool?.live).toBeUndefined()
    expect(tool?.state).toBe("failed")
  })
})
