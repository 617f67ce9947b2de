import { describe, expect, it } from "@effect/vitest"
import { FastCheck, Schema } from "effect"
import type { AgentEvent } from "../../src/domain/events.js"
import type { HostFrame, SessionView } from "../../src/domain/host.js"
import {
  applyEvent,
  applyFrame,
  applyFrames,
  type Block,
  blocksInRange,
  currentTasks,
  emptyTimeline,
  lastMemoryNote,
  lastTurnFailed,
  LIVE_OUTPUT_CHARS,
  openAsks,
  retryablePrompt,
  TimelineState
} from "../../web/src/timeline.js"
import { recorder } from "./events.js"

const usage = { inputTokens: 10, outputTokens: 5 }
const diff = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-old line\n+new line\n"

/** A session with every kind of block: a streamed answer, thinking, an asked-for edit, a second step, a queued message. */
const fullSession = (): ReadonlyArray<AgentEvent> => {
  const e = recorder()
  return [
    e("session.created", { cwd: "/work", client: "web", title: "notes" }, undefined),
    e("turn.started", { promptPreview: "fix the notes" }),
    e("user.message", { content: "fix the notes", mode: "queue" }),
    e("model.thinking_delta", { text: "The notes " }),
    e("model.thinking_delta", { text: "are wrong." }),
    e("model.delta", { text: "Let me " }),
    e("inbox.updated", { nextTurn: [{ id: "msg_1", content: "then run the tests" }], nextStep: [] }),
    e("model.delta", { text: "fix them." }),
    e("model.tool_call_requested", { toolCallId: "call_1", name: "edit_file", input: { path: "notes.txt", old_string: "old line", new_string: "new line" } }),
    e("model.completed", { stopReason: "tool_calls", usage }),
    e("permission.requested", { toolCallId: "call_1", tool: "edit_file", risk: "write", summary: "edit notes.txt", detail: diff }),
    e("permission.resolved", { toolCallId: "call_1", decision: "allow", scope: "once", by: "user" }),
    e("tool.started", { toolCallId: "call_1", name: "edit_file" }),
    e("tool.completed", {
      toolCallId: "call_1",
      output: "edited notes.txt",
      isError: false,
      durationMs: 3,
      data: { _tag: "edit", path: "notes.txt", before: "old line\n", after: "new line\n", diff }
    }),
    e("model.delta", { text: "Done." }),
    e("model.completed", { stopReason: "final", usage }),
    e("turn.completed", { stopReason: "final" })
  ]
}

const replay = (events: ReadonlyArray<AgentEvent>) => events.reduce(applyEvent, emptyTimeline("ses_1"))

const texts = (blocks: ReadonlyArray<Block>) => blocks.flatMap((b) => (b._tag === "text" ? [b.text] : []))

describe("the timeline reducer", () => {
  it("rebuilds a whole turn: messages, streamed blocks, the tool call with its permission and result, the end", () => {
    const state = replay(fullSession())
    expect(state.lastSequence).toBe(17)
    expect(state.header).toEqual({ cwd: "/work", client: "web", title: "notes", createdAt: "2025-01-01T00:00:01.000Z" })
    expect(state.blocks.map((b) => b._tag)).toEqual(["user", "thinking", "text", "tool", "text", "turnEnd"])
    // Deltas join per assistant block; an inbox change in between does not split it.
    expect(texts(state.blocks)).toEqual(["Let me fix them.", "Done."])
    expect(state.blocks.find((b) => b._tag === "thinking")).toMatchObject({ text: "The notes are wrong.", streaming: false })
    expect(state.blocks.every((b) => !(b._tag === "text" && b.streaming))).toBe(true)
    const tool = state.blocks.find((b) => b._tag === "tool")
    expect(tool).toMatchObject({
      toolCallId: "call_1",
      name: "edit_file",
      input: { path: "notes.txt" },
      ask: { risk: "write", summary: "edit notes.txt", detail: diff, open: false },
      permission: { decision: "allow", scope: "once", by: "user" },
      started: true,
      result: { isError: false, data: { _tag: "edit", path: "notes.txt", diff } },
      abandoned: false
    })
    expect(state.blocks.at(-1)).toMatchObject({ _tag: "turnEnd", stopReason: "final" })
    expect(state.inbox.nextTurn).toEqual([{ id: "msg_1", content: "then run the tests" }])
  })

  it("shows an open permission question until it is resolved", () => {
    const events = fullSession()
    const asking = replay(events.slice(0, 11))
    expect(openAsks(asking).map((t) => t.toolCallId)).toEqual(["call_1"])
    expect(texts(asking.blocks)).toEqual(["Let me fix them."])
    expect(openAsks(replay(events.slice(0, 12)))).toEqual([])
  })

  it("keeps the block streaming until the model step ends", () => {
    const events = fullSession()
    const mid = replay(events.slice(0, 6))
    expect(mid.blocks.at(-1)).toEqual({ _tag: "text", sequence: 6, turnId: "turn_1", text: "Let me ", streaming: true })
    expect(mid.blocks.find((b) => b._tag === "thinking")).toMatchObject({ streaming: false })
  })

  it("ignores events at or below the last applied sequence, so a resume overlap changes nothing", () => {
    const events = fullSession()
    const once = replay(events)
    expect(replay([...events, ...events])).toEqual(once)
    expect(events.reduce(applyEvent, replay(events.slice(0, 9)))).toEqual(once)
  })

  it.prop(
    "a view resumed from any point, with any overlap, equals the full replay",
    { cut: FastCheck.integer({ min: 0, max: 17 }), overlap: FastCheck.integer({ min: 0, max: 17 }) },
    ({ cut, overlap }) => {
      const events = fullSession()
      const before = replay(events.slice(0, cut))
      const resumed = events.slice(Math.max(0, cut - overlap)).reduce(applyEvent, before)
      expect(resumed).toEqual(replay(events))
    }
  )

  it("closes the questions of a turn that ended without an answer, and records how it ended", () => {
    const e = recorder()
    const state = replay([
      e("turn.started", { promptPreview: "run it" }),
      e("user.message", { content: "run it", mode: "queue" }),
      e("model.tool_call_requested", { toolCallId: "call_9", name: "shell", input: { command: "make" } }),
      e("model.completed", { stopReason: "tool_calls", usage }),
      e("permission.requested", { toolCallId: "call_9", tool: "shell", risk: "execute", summary: "shell: make" }),
      e("turn.completed", { stopReason: "error", errorCode: "interrupted", message: "the process stopped" })
    ])
    expect(openAsks(state)).toEqual([])
    expect(state.blocks.find((b) => b._tag === "tool")).toMatchObject({ ask: { open: false }, abandoned: true, started: false })
    expect(state.blocks.at(-1)).toEqual({
      _tag: "turnEnd",
      sequence: 6,
      turnId: "turn_1",
      stopReason: "error",
      errorCode: "interrupted",
      message: "the process stopped"
    })
  })

  it("shows a validated structured output as a note with the value, and a budget stop with what was spent", () => {
    const e = recorder()
    const state = replay([
      e("turn.started", { promptPreview: "status?" }),
      e("model.delta", { text: '{"status": "ok"}' }),
      e("model.completed", { stopReason: "final", usage, costUsd: 0.01 }),
      e("output.structured", { value: { status: "ok" }, attempts: 2 }),
      e("turn.completed", { stopReason: "budget", message: "the turn cost $0.0100, its limit is $0.0050" })
    ])
    expect(state.blocks.find((b) => b._tag === "note")).toMatchObject({
      topic: "output",
      tone: "info",
      text: "Structured output validated against the output schema after 2 answers",
      detail: '{\n  "status": "ok"\n}'
    })
    expect(state.blocks.at(-1)).toMatchObject({ _tag: "turnEnd", stopReason: "budget", message: "the turn cost $0.0100, its limit is $0.0050" })
    expect(state.turns[0]?.cost).toEqual({ requests: 1, tokens: 15, costUsd: 0.01, unpriced: 0 })
  })

  it("a subagent's answer says what it spent, and the turn's cost counts it", () => {
    const e = recorder()
    const completed = (toolCallId: string, spend?: object) =>
      e("subagent.completed", {
        toolCallId,
        agent: "reviewer",
        childSessionId: `ses_${toolCallId}`,
        stopReason: "final",
        answer: "fine",
        usage,
        ...(spend === undefined ? {} : { spend })
      })
    const state = replay([
      e("turn.started", { promptPreview: "review" }),
      e("model.completed", { stopReason: "tool_calls", usage, costUsd: 0.01 }),
      completed("call_1", { requests: 2, tokens: 30, costUsd: 0.25, unpriced: 0 }),
      completed("call_2", { requests: 1, tokens: 15, costUsd: 0, unpriced: 1 })
    ])
    expect(state.blocks.filter((b) => b._tag === "note").map((b) => (b._tag === "note" ? b.text : ""))).toEqual([
      "Subagent reviewer answered · session ses_call_1 · 10 in / 5 out tokens · $0.2500",
      "Subagent reviewer answered · session ses_call_2 · 10 in / 5 out tokens"
    ])
    expect(state.turns[0]?.cost).toEqual({ requests: 4, tokens: 60, costUsd: 0.26, unpriced: 1 })
  })

  it("records model failures, shell results, denials and steering messages", () => {
    const e = recorder()
    const state = replay([
      e("user.message", { content: "go", mode: "queue" }),
      e("model.tool_call_requested", { toolCallId: "call_2", name: "shell", input: { command: "ls" } }),
      e("permission.resolved", { toolCallId: "call_2", decision: "allow", scope: "session", by: "remembered" }),
      e("tool.started", { toolCallId: "call_2", name: "shell" }),
      e("tool.completed", {
        toolCallId: "call_2",
        output: "a\nb\n",
        isError: false,
        durationMs: 12,
        data: { _tag: "shell", command: "ls", exitCode: 0, timedOut: false, truncated: false }
      }),
      e("model.tool_call_requested", { toolCallId: "call_3", name: "write_file", input: { path: "/etc/x" } }),
      e("permission.resolved", {
        toolCallId: "call_3",
        decision: "deny",
        scope: "once",
        by: "rule",
        rule: { source: "settings.json", index: 2, tool: "write_file" }
      }),
      e("tool.completed", { toolCallId: "call_3", output: "Permission denied", isError: true, durationMs: 0 }),
      e("user.message", { content: "look at b", mode: "steer" }),
      e("model.failed", { reason: "overloaded after 3 retries", code: "overloaded" }),
      e("turn.completed", { stopReason: "error", errorCode: "overloaded" })
    ])
    // The failed request that ended the turn is told once, by the turn's end.
    expect(state.blocks.map((b) => b._tag)).toEqual(["user", "tool", "tool", "user", "turnEnd"])
    expect(state.blocks[1]).toMatchObject({ permission: { by: "remembered", scope: "session" }, result: { data: { _tag: "shell", exitCode: 0 } } })
    expect(state.blocks[2]).toMatchObject({ started: false, permission: { decision: "deny", by: "rule" }, result: { isError: true } })
    expect(state.blocks[3]).toMatchObject({ content: "look at b", mode: "steer" })
    expect(state.blocks[4]).toMatchObject({
      stopReason: "error",
      errorCode: "overloaded",
      failure: { code: "overloaded", reason: "overloaded after 3 retries" }
    })
  })

  it("offers to retry the prompt of the last turn when it failed, and nothing once another prompt came", () => {
    const e = recorder()
    const failed = replay([
      e("turn.started", { promptPreview: "fix it" }),
      e("user.message", { content: "fix it", mode: "queue" }),
      e("model.failed", { reason: "529 overloaded", code: "overloaded" }),
      e("turn.completed", { stopReason: "error", errorCode: "overloaded", message: "529 overloaded" })
    ])
    expect(failed.blocks.map((b) => b._tag)).toEqual(["user", "turnEnd"])
    expect(lastTurnFailed(failed)).toBe(true)
    expect(retryablePrompt(failed)).toEqual({ turnEnd: 4, content: "fix it" })
    // A failure the turn went on from (no turn end right after it) keeps its own block.
    const goingOn = replay([e("model.failed", { reason: "bad json", code: "invalid_response" }, "turn_2"), e("model.delta", { text: "retrying" }, "turn_2")])
    expect(goingOn.blocks.map((b) => b._tag)).toEqual(["failure", "text"])
    const next = replay([
      e("turn.started", { promptPreview: "fix it" }),
      e("user.message", { content: "fix it", mode: "queue" }),
      e("turn.completed", { stopReason: "error", errorCode: "model_unavailable", message: "no key" }),
      e("user.message", { content: "try another way", mode: "queue" }, "turn_2")
    ])
    expect(retryablePrompt(next)).toBeUndefined()
    const fine = replay([e("user.message", { content: "hi", mode: "queue" }), e("turn.completed", { stopReason: "final" })])
    expect(lastTurnFailed(fine)).toBe(false)
    expect(retryablePrompt(fine)).toBeUndefined()
  })

  it("starts a new block for each model step and for text after thinking", () => {
    const e = recorder()
    const state = replay([
      e("model.delta", { text: "one" }),
      e("model.completed", { stopReason: "tool_calls", usage }),
      e("model.delta", { text: "two" }),
      e("model.thinking_delta", { text: "hmm" }),
      e("model.delta", { text: "three" }),
      e("model.delta", { text: "four" }, "turn_2")
    ])
    expect(state.blocks.map((b) => (b._tag === "text" || b._tag === "thinking" ? b.text : b._tag))).toEqual([
      "one",
      "two",
      "hmm",
      "three",
      "four"
    ])
  })

  it("takes running and the queue from baseline and status frames, and the queue from later events", () => {
    const session: SessionView = {
      sessionId: "ses_1",
      cwd: "/work",
      client: "cli",
      createdAt: "2025-01-01T00:00:00.000Z",
      lastSequence: 3,
      running: true,
      inbox: { nextTurn: [], nextStep: [{ id: "msg_2", content: "faster" }] },
      permissionMode: "plan",
      pendingPermissions: []
    }
    const e = recorder()
    const frames: ReadonlyArray<HostFrame> = [
      { _tag: "Baseline", session },
      { _tag: "Event", event: e("user.message", { content: "hi", mode: "queue" }) },
      { _tag: "Event", event: e("inbox.updated", { nextTurn: [], nextStep: [] }) }
    ]
    const afterBaseline = applyFrame(emptyTimeline("ses_1"), frames[0] ?? { _tag: "Status", running: false })
    expect(afterBaseline).toMatchObject({ running: true, header: { cwd: "/work", client: "cli" }, inbox: session.inbox, mode: "plan", lastSequence: 0 })
    const state = applyFrames(emptyTimeline("ses_1"), frames)
    expect(state.inbox).toEqual({ nextTurn: [], nextStep: [] })
    expect(state.lastSequence).toBe(2)
    expect(applyFrame(state, { _tag: "Status", running: false }).running).toBe(false)
  })

  it("closes the cards of questions nobody waits on when a baseline of an idle session says so, and skips keep-alives", () => {
    const e = recorder()
    const asked = [
      e("session.created", { cwd: "/work", client: "cli" }, undefined),
      e("turn.started", { promptPreview: "run it" }),
      e("model.tool_call_requested", { toolCallId: "call_1", name: "shell", input: { command: "make" } }),
      e("permission.requested", { toolCallId: "call_1", tool: "shell", risk: "execute", summary: "shell: make" })
    ]
    const session = (running: boolean, pending: ReadonlyArray<string>, lastSequence: number): SessionView => ({
      sessionId: "ses_1",
      cwd: "/work",
      client: "cli",
      createdAt: "2025-01-01T00:00:00.000Z",
      lastSequence,
      running,
      inbox: { nextTurn: [], nextStep: [] },
      permissionMode: "default",
      pendingPermissions: pending.map((toolCallId) => ({ toolCallId, turnId: "turn_1", tool: "shell", risk: "execute", summary: "shell: make", input: {} }))
    })
    const events = (list: ReadonlyArray<AgentEvent>): ReadonlyArray<HostFrame> => list.map((event) => ({ _tag: "Event", event }))
    // The process that asked died: the session is interrupted, its question is in no one's hands.
    const cached = replay(asked)
    expect(openAsks(cached).map((t) => t.toolCallId)).toEqual(["call_1"])
    const interrupted = applyFrame(cached, { _tag: "Baseline", session: session(false, [], 4) })
    expect(openAsks(interrupted)).toEqual([])
    expect(interrupted.blocks.find((b) => b._tag === "tool")).toMatchObject({ ask: { open: false }, abandoned: false })
    // The same when the question is replayed after the baseline, from a fresh view.
    const fresh = applyFrames(emptyTimeline("ses_1"), [{ _tag: "Baseline", session: session(false, [], 4) }, ...events(asked)])
    expect(openAsks(fresh)).toEqual([])
    // A running session keeps the question open until the log settles it; so does an idle one that still lists it.
    expect(openAsks(applyFrames(emptyTimeline("ses_1"), [{ _tag: "Baseline", session: session(true, [], 4) }, ...events(asked)]))).toHaveLength(1)
    expect(openAsks(applyFrame(cached, { _tag: "Baseline", session: session(false, ["call_1"], 4) }))).toHaveLength(1)
    // A question asked after what the baseline described is a new one: its card shows.
    const later = e("permission.requested", { toolCallId: "call_2", tool: "shell", risk: "execute", summary: "shell: make test" }, "turn_2")
    expect(openAsks(applyEvent(interrupted, later)).map((t) => t.toolCallId)).toEqual(["call_2"])
    expect(applyFrame(interrupted, { _tag: "KeepAlive" })).toBe(interrupted)
  })

  it("takes a renamed session's title and sums each turn's tokens, times and changed files", () => {
    const e = recorder()
    const renamed = replay([e("session.created", { cwd: "/work", client: "web", title: "notes" }, undefined), e("session.renamed", { title: "Notes, fixed", by: "web" }, undefined)])
    expect(renamed.header?.title).toBe("Notes, fixed")
    expect(renamed.blocks).toEqual([])
    expect(replay(fullSession()).turns).toEqual([
      {
        turnId: "turn_1",
        startedAt: "2025-01-01T00:00:02.000Z",
        endedAt: "2025-01-01T00:00:17.000Z",
        usage: { input: 20, output: 10, cacheRead: 0, cacheWrite: 0 },
        cost: { requests: 2, tokens: 30, costUsd: 0, unpriced: 2 },
        files: [{ path: "notes.txt", toolCallIds: ["call_1"] }]
      }
    ])
  })

  it("shows a mode change as a small line and keeps the session's current mode", () => {
    const e = recorder()
    const state = replay([
      e("session.mode_changed", { mode: "plan", by: "acp" }, undefined),
      e("user.message", { content: "look around", mode: "queue" }),
      e("session.mode_changed", { mode: "accept-edits", by: "rpc" }, undefined)
    ])
    expect(state.mode).toBe("accept-edits")
    expect(state.blocks.flatMap((b) => (b._tag === "note" ? [{ topic: b.topic, text: b.text }] : []))).toEqual([
      { topic: "mode", text: "mode: plan (set by acp)" },
      { topic: "mode", text: "mode: accept-edits (set by rpc)" }
    ])
    expect(replay([]).mode).toBeUndefined()
  })

  it("survives the JSON round trip a reload goes through", () => {
    const codec = Schema.parseJson(TimelineState)
    for (let cut = 0; cut <= 17; cut++) {
      const state = replay(fullSession().slice(0, cut))
      expect(Schema.decodeUnknownSync(codec)(Schema.encodeSync(codec)(state))).toEqual(state)
    }
  })

  it("keeps a proposed memory reviewable until its approval or rejection is in the log", () => {
    const e = recorder()
    const evidence = { sessionId: "ses_1", fromSequence: 1, toSequence: 3 }
    const events = [
      e("user.message", { content: "we release on fridays", mode: "queue" }),
      e("memory.candidate_proposed", { candidateId: "mem_a", text: "Releases are cut on Fridays.", scope: "project", evidence }),
      e("memory.candidate_proposed", { candidateId: "mem_b", text: "Use tabs.", scope: "user", evidence }),
      e("memory.approved", { candidateId: "mem_a", memoryId: "mem_1", text: "Releases are cut on Fridays.", scope: "project", by: "web" }),
      e("memory.rejected", { candidateId: "mem_b", by: "cli", reason: "not true" }),
      e("memory.deleted", { memoryId: "mem_1", by: "web" })
    ]
    const proposed = replay(events.slice(0, 3))
    expect(proposed.blocks.slice(1)).toEqual([
      {
        _tag: "note",
        sequence: 2,
        turnId: "turn_1",
        topic: "memory",
        tone: "info",
        text: "Memory proposed (project): Releases are cut on Fridays.",
        candidate: { id: "mem_a", text: "Releases are cut on Fridays.", status: "pending" }
      },
      {
        _tag: "note",
        sequence: 3,
        turnId: "turn_1",
        topic: "memory",
        tone: "info",
        text: "Memory proposed (user): Use tabs.",
        candidate: { id: "mem_b", text: "Use tabs.", status: "pending" }
      }
    ])
    const approved = replay(events.slice(0, 4))
    expect(approved.blocks.map((b) => (b._tag === "note" ? b.candidate?.status : undefined))).toEqual([undefined, "approved", "pending", undefined])
    const state = replay(events)
    expect(state.blocks.map((b) => (b._tag === "note" ? b.candidate?.status : undefined))).toEqual([
      undefined,
      "approved",
      "rejected",
      undefined,
      undefined,
      undefined
    ])
    expect(state.blocks.slice(3).map((b) => (b._tag === "note" ? b.text : b._tag))).toEqual([
      "Memory approved by web: Releases are cut on Fridays.",
      "Memory candidate rejected by cli: Use tabs. (not true)",
      "Memory deleted by web"
    ])
    const codec = Schema.parseJson(TimelineState)
    expect(Schema.decodeUnknownSync(codec)(Schema.encodeSync(codec)(state))).toEqual(state)
    expect(lastMemoryNote(proposed)).toBe(3)
    expect(lastMemoryNote(state)).toBe(6)
    expect(lastMemoryNote(replay(fullSession()))).toBe(0)
  })

  it("says a rejection happened even when its proposal is not in view, and never settles another candidate", () => {
    const e = recorder()
    const evidence = { sessionId: "ses_1", fromSequence: 1, toSequence: 1 }
    const state = replay([
      e("memory.candidate_proposed", { candidateId: "mem_a", text: "A", scope: "project", evidence }),
      e("memory.rejected", { candidateId: "mem_gone", by: "web" })
    ])
    expect(state.blocks).toMatchObject([{ candidate: { id: "mem_a", status: "pending" } }, { text: "Memory candidate rejected by web" }])
  })

  it("keeps a compaction's summary with its note (a log from before structured summaries)", () => {
    const e = recorder()
    const state = replay([
      e("context.compacted", {
        summary: "Earlier: the notes were fixed.",
        throughSequence: 17,
        tokensBefore: 900,
        tokensAfter: 40,
        turns: ["turn_1", "turn_2"],
        trigger: "request"
      })
    ])
    expect(state.blocks).toEqual([
      {
        _tag: "note",
        sequence: 1,
        turnId: "turn_1",
        topic: "compaction",
        tone: "info",
        text: "Compacted 2 earlier turn(s) into a summary: events #1–#17, 900 → 40 tokens",
        detail: "Earlier: the notes were fixed.",
        compaction: { from: 1, through: 17, tokensBefore: 900, tokensAfter: 40, replaced: [] }
      }
    ])
  })

  it("a structured compaction: its range, sections, changed files and one line per block it replaced; it survives a reload", () => {
    const events = fullSession()
    const e = recorder()
    for (let i = 0; i < events.length; i++) e("model.delta", { text: "" })
    const sections = { goal: "Fix the notes.", decisions: "Keep the format.", progress: "Edited notes.txt.", nextStep: "Check it.", openQuestions: "none" }
    const compacted = e(
      "context.compacted",
      { summary: "## Goal\nFix the notes.", fromSequence: 1, throughSequence: 17, sections, changedFiles: ["notes.txt"], pieces: 2, tokensBefore: 900, tokensAfter: 60, turns: ["turn_1"], trigger: "budget" },
      undefined
    )
    const state = replay([...events, compacted])
    const note = state.blocks.at(-1)
    expect(note?._tag === "note" && note.compaction).toMatchObject({ from: 1, through: 17, sections, changedFiles: ["notes.txt"], pieces: 2 })
    const replaced = note?._tag === "note" ? (note.compaction?.replaced ?? []) : []
    expect(replaced).toHaveLength(6)
    expect(replaced[0]).toBe("#3 you: fix the notes")
    expect(replaced.some((line) => line.startsWith("#9 edit_file"))).toBe(true)
    const codec = Schema.parseJson(TimelineState)
    expect(Schema.decodeUnknownSync(codec)(Schema.encodeSync(codec)(state))).toEqual(state)
  })

  it("the task list: the last task.updated is pinned; a rewind before it brings back the one in force there", () => {
    const e = recorder()
    const first = [{ content: "Read", status: "in_progress" }]
    const second = [{ content: "Read", status: "completed" }, { content: "Write `x`", status: "in_progress" }]
    const events = [
      e("session.created", { cwd: "/w", client: "test" }, undefined),
      e("turn.started", { promptPreview: "go" }),
      e("task.updated", { toolCallId: "t1", todos: first }),
      e("turn.completed", { stopReason: "final" }),
      e("turn.started", { promptPreview: "more" }, "turn_2"),
      e("task.updated", { toolCallId: "t2", todos: second }, "turn_2"),
      e("turn.completed", { stopReason: "final" }, "turn_2")
    ]
    const state = replay(events)
    expect(currentTasks(state)).toEqual({ sequence: 6, todos: second })
    expect(currentTasks(replay([]))).toBeUndefined()
    const rewound = applyEvent(state, e("conversation.rewound", { toSequence: 4, by: "web", redo: false }, undefined))
    expect(currentTasks(rewound)).toEqual({ sequence: 3, todos: first })
  })

  it("marks the blocks that show a range of events, counting each block up to the next one", () => {
    // Blocks start at 3 (user), 4 (thinking 4-5), 6 (text 6-8), 9 (tool 9-14), 15 (text 15-16), 17 (turn end).
    const state = replay(fullSession())
    expect(state.blocks.map((b) => b.sequence)).toEqual([3, 4, 6, 9, 15, 17])
    expect([...blocksInRange(state, { from: 1, to: 3 })]).toEqual([3])
    expect([...blocksInRange(state, { from: 5, to: 7 })]).toEqual([4, 6])
    expect([...blocksInRange(state, { from: 12, to: 12 })]).toEqual([9])
    expect([...blocksInRange(state, { from: 17, to: 40 })]).toEqual([17])
    expect([...blocksInRange(state, { from: 18, to: 40 })]).toEqual([])
    // Not replayed that far yet: the last block only stands for the events applied so far.
    const partial = replay(fullSession().slice(0, 8))
    expect([...blocksInRange(partial, { from: 9, to: 12 })]).toEqual([])
  })
})

describe("hook runs in the timeline", () => {
  it("a hook run is a note with what it decided; one that denied a call names the hook on the call's permission", () => {
    const e = recorder()
    const state = replay([
      e("session.created", { cwd: "/work", client: "web" }, undefined),
      e("turn.started", { promptPreview: "clean" }),
      e("user.message", { content: "clean", mode: "queue" }),
      e("hook.ran", { event: "UserPromptSubmit", command: "ctx.sh", source: "user", exitCode: 0, timedOut: false, context: "[UserPromptSubmit hook `ctx.sh`]\nbranch main", output: "branch main", durationMs: 4 }),
      e("model.tool_call_requested", { toolCallId: "call_1", name: "shell", input: { command: "rm -rf build" } }),
      e("model.completed", { stopReason: "tool_calls", usage }),
      e("hook.ran", { event: "PreToolUse", matcher: "Bash", command: "guard.sh", source: "project", toolCallId: "call_1", exitCode: 2, timedOut: false, decision: "deny", reason: "no rm", output: "[stderr]\nno rm", durationMs: 3 }),
      e("permission.resolved", { toolCallId: "call_1", decision: "deny", scope: "once", by: "hook", reason: "the PreToolUse hook `guard.sh`: no rm", hook: "guard.sh" }),
      e("hook.ran", { event: "Stop", command: "slow.sh", source: "user", exitCode: null, timedOut: true, output: "[timed out after 1 s]", durationMs: 1000 }),
      e("turn.completed", { stopReason: "final" })
    ])
    const notes = state.blocks.flatMap((b) => (b._tag === "note" && b.topic === "hook" ? [b] : []))
    expect(notes.map((n) => [n.tone, n.text])).toEqual([
      ["info", "hook UserPromptSubmit `ctx.sh` (user): exit 0 · added to the conversation"],
      ["warning", "hook PreToolUse [Bash] `guard.sh` (project): exit 2 · deny: no rm"],
      ["warning", "hook Stop `slow.sh` (user): timed out, killed"]
    ])
    expect(notes[0]?.detail).toBe("Told the model:\n[UserPromptSubmit hook `ctx.sh`]\nbranch main\n\nOutput:\nbranch main")
    const tool = state.blocks.find((b) => b._tag === "tool")
    expect(tool?._tag === "tool" ? tool.permission : undefined).toMatchObject({ decision: "deny", by: "hook", hook: "guard.sh" })
    // The view survives a reload (it is saved as its Schema's encoding).
    expect(Schema.decodeUnknownSync(TimelineState)(Schema.encodeSync(TimelineState)(state))).toEqual(state)
  })
})

describe("a running command's output in the timeline", () => {
  const running = () => {
    const e = recorder()
    return {
      e,
      events: [
        e("session.created", { cwd: "/work", client: "web" }, undefined),
        e("turn.started", { promptPreview: "test" }),
        e("model.tool_call_requested", { toolCallId: "sh", name: "shell", input: { command: "npm test" } }),
        e("permission.resolved", { toolCallId: "sh", decision: "allow", scope: "once", by: "user" }),
        e("tool.started", { toolCallId: "sh", name: "shell" }),
        e("tool.output", { toolCallId: "sh", text: "PASS a.test.ts\n" }),
        e("tool.output", { toolCallId: "sh", text: "PASS b.test.ts\n" })
      ]
    }
  }
  const toolOf = (state: TimelineState) => state.blocks.find((b): b is Extract<Block, { _tag: "tool" }> => b._tag === "tool")

  it("shows what the command printed so far, with a line where the log skipped bytes, and keeps the view a valid saved state", () => {
    const { e, events } = running()
    const state = replay([...events, e("tool.output", { toolCallId: "sh", text: "FAIL c.test.ts\n", skipped: 9000, capped: true })])
    expect(toolOf(state)?.live).toEqual({ text: "PASS a.test.ts\nPASS b.test.ts\n[… 9000 bytes not shown …]\nFAIL c.test.ts\n", capped: true })
    expect(toolOf(state)?.result).toBeUndefined()
    expect(Schema.decodeUnknownSync(TimelineState)(Schema.encodeSync(TimelineState)(state))).toEqual(state)
  })

  it("the result takes its place when the command ends; a cancel's result keeps what ran before it", () => {
    const { e, events } = running()
    const data = { _tag: "shell", command: "npm test", exitCode: 0, timedOut: false, truncated: false }
    const done = replay([...events, e("tool.completed", { toolCallId: "sh", output: "all\n[exit code 0]", isError: false, durationMs: 900, data })])
    expect(toolOf(done)?.live).toBeUndefined()
    expect(toolOf(done)?.result?.output).toBe("all\n[exit code 0]")
    const cancelled = replay([...running().events, e("tool.completed", { toolCallId: "sh", output: "Cancelled before the tool finished.", isError: true, durationMs: 900 })])
    expect(toolOf(cancelled)?.live?.text).toBe("PASS a.test.ts\nPASS b.test.ts\n")
  })

  it("keeps only the end of a very long output", () => {
    const { e, events } = running()
    const more = Array.from({ length: 100 }, (_, i) => e("tool.output", { toolCallId: "sh", text: `${i} ${"x".repeat(1000)}\n` }))
    const live = toolOf(replay([...events, ...more]))?.live
    expect(live?.text.length).toBe(LIVE_OUTPUT_CHARS)
    expect(live?.text.endsWith(`99 ${"x".repeat(1000)}\n`)).toBe(true)
  })
})
