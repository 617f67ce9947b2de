import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { makeConversation } from "../../src/core/conversation.js"
import { AgentEvent } from "../../src/domain/events.js"
import { forkLog } from "../../src/domain/fork.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import { conversationSpans, rewindsOf, rewoundSpans } from "../../src/domain/rewound.js"

type Draft = { readonly type: string; readonly turnId?: string; readonly payload: unknown }

const logOf = (drafts: ReadonlyArray<Draft>) =>
  drafts.map((draft, i) =>
    Schema.decodeUnknownSync(AgentEvent)({ id: `evt_${i + 1}`, schemaVersion: 1, sessionId: "ses_1", sequence: i + 1, timestamp: "2026-01-01T00:00:00.000Z", ...draft })
  )

const turnOf = (turnId: string, prompt: string, answer: string): ReadonlyArray<Draft> => [
  { type: "turn.started", turnId, payload: { promptPreview: prompt } },
  { type: "user.message", turnId, payload: { content: prompt, mode: "queue" } },
  { type: "model.delta", turnId, payload: { text: answer } },
  { type: "turn.completed", turnId, payload: { stopReason: "final" } }
]

const rewound = (toSequence: number, redo = false): Draft => ({ type: "conversation.rewound", payload: { toSequence, by: "test", redo } })

const textsAfter = (log: ReadonlyArray<AgentEvent>) => {
  const conversation = makeConversation()
  for (const event of log) conversation.apply(event)
  return conversation.snapshot().flatMap((m) => m.content.flatMap((p) => (p._tag === "text" ? [`${m.role}: ${p.text}`] : [])))
}

describe("conversation.rewound", () => {
  // 1 created, 2-5 turn a, 6-9 turn b, 10 rewind to 5, 11-14 turn c, 15 rewind to 8 (inside turn b).
  const log = logOf([
    { type: "session.created", payload: { cwd: "/w", client: "test" } },
    ...turnOf("t_a", "a", "ra"),
    ...turnOf("t_b", "b", "rb"),
    rewound(5),
    ...turnOf("t_c", "c", "rc"),
    rewound(8)
  ])

  it("the conversation goes back to how it was at the target, and what follows the rewind is added to it", () => {
    expect(textsAfter(log.slice(0, 10))).toEqual(["user: a", "assistant: ra"])
    expect(textsAfter(log.slice(0, 14))).toEqual(["user: a", "assistant: ra", "user: c", "assistant: rc"])
  })

  it("a target before an earlier rewind brings back what that rewind had left out (as it was then)", () => {
    expect(textsAfter(log)).toEqual(["user: a", "assistant: ra", "user: b", "assistant: rb"])
    expect(conversationSpans(rewindsOf(log), 15)).toEqual([
      { from: 1, to: 8 },
      { from: 15, to: 15 }
    ])
    expect(rewoundSpans(rewindsOf(log), 15)).toEqual([{ from: 9, to: 14 }])
  })

  it("a redo (back to just before the rewind it undoes) restores the conversation, and the next turn follows it", () => {
    const redone = logOf([
      { type: "session.created", payload: { cwd: "/w", client: "test" } },
      ...turnOf("t_a", "a", "ra"),
      ...turnOf("t_b", "b", "rb"),
      rewound(5),
      rewound(9, true),
      ...turnOf("t_c", "c", "rc")
    ])
    expect(textsAfter(redone)).toEqual(["user: a", "assistant: ra", "user: b", "assistant: rb", "user: c", "assistant: rc"])
    // The undone rewind is itself what no longer holds.
    expect(rewoundSpans(rewindsOf(redone), redone.length)).toEqual([{ from: 10, to: 10 }])
  })

  it("a target inside a turn closes its unanswered tool calls, so the next request is well formed", () => {
    const midTool = logOf([
      { type: "session.created", payload: { cwd: "/w", client: "test" } },
      { type: "turn.started", turnId: "t_a", payload: { promptPreview: "a" } },
      { type: "user.message", turnId: "t_a", payload: { content: "a", mode: "queue" } },
      { type: "model.tool_call_requested", turnId: "t_a", payload: { toolCallId: "c1", name: "shell", input: {} } },
      { type: "tool.completed", turnId: "t_a", payload: { toolCallId: "c1", output: "done", isError: false, durationMs: 1 } },
      { type: "model.delta", turnId: "t_a", payload: { text: "ok" } },
      { type: "turn.completed", turnId: "t_a", payload: { stopReason: "final" } },
      rewound(4)
    ])
    const conversation = makeConversation()
    for (const event of midTool) conversation.apply(event)
    expect(conversation.pendingToolCalls()).toEqual([])
    expect(conversation.snapshot().at(-1)).toEqual({
      role: "user",
      content: [{ _tag: "tool_result", toolCallId: "c1", output: expect.stringContaining("turn ended before this tool call completed"), isError: true }]
    })
    expect(conversation.holds(5)).toBe(false)
    expect(conversation.holds(4)).toBe(true)
  })

  it("a fork holds the same conversation: the sequences its copies refer to move with them", () => {
    let id = 0
    const fork = forkLog(log, { sessionId: "ses_fork", atSequence: log.length, by: "test", timestamp: "2026-01-02T00:00:00.000Z", newId: () => `evt_f${++id}` })
    expect(fork.map((e) => e.sequence)).toEqual(fork.map((_, i) => i + 1))
    expect(invariantProblem(fork)).toBeUndefined()
    expect(fork.filter((e) => e.type === "conversation.rewound").map((e) => e.type === "conversation.rewound" && e.payload.toSequence)).toEqual([6, 9])
    expect(textsAfter(fork)).toEqual(textsAfter(log))
  })
})
