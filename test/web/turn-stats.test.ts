import { describe, expect, it } from "@effect/vitest"
import type { AgentEvent } from "../../src/domain/events.js"
import { shownCost } from "../../src/domain/spend.js"
import { durationOf, formatDuration, formatUsage, sessionCost, statsAfter, type TurnStats } from "../../web/src/turn-stats.js"
import { recorder } from "./events.js"

const edit = (toolCallId: string, path: string, isError = false) => ({
  toolCallId,
  output: isError ? "no match" : `edited ${path}`,
  isError,
  durationMs: 2,
  ...(isError ? {} : { data: { _tag: "edit", path, before: "a\n", after: "b\n", diff: `--- a/${path}\n+++ b/${path}\n` } })
})

const noTurns: ReadonlyArray<TurnStats> = []
const statsOf = (events: ReadonlyArray<AgentEvent>) => events.reduce(statsAfter, noTurns)

describe("per-turn facts", () => {
  it("sums each turn's cost; a turn with some unpriced requests shows a lower bound, one with none priced shows none", () => {
    const e = recorder()
    const completed = (costUsd?: number) => ({ stopReason: "final", usage: { inputTokens: 1, outputTokens: 1 }, ...(costUsd === undefined ? {} : { costUsd }) })
    const turns = statsOf([
      e("turn.started", { promptPreview: "a" }),
      e("model.completed", completed(0.25)),
      e("model.completed", completed(0.0125)),
      e("turn.started", { promptPreview: "b" }, "turn_2"),
      e("model.completed", completed(0.5), "turn_2"),
      e("model.completed", completed(), "turn_2"),
      e("turn.started", { promptPreview: "c" }, "turn_3"),
      e("model.completed", completed(), "turn_3")
    ])
    expect(turns.map((t) => shownCost(t.cost))).toEqual(["$0.2625", "≥ $0.5000", undefined])
    expect(sessionCost(turns)).toEqual({ requests: 5, tokens: 10, costUsd: 0.7625, unpriced: 2 })
    expect(shownCost(sessionCost(turns))).toBe("≥ $0.7625")
    expect(shownCost(sessionCost([]))).toBeUndefined()
  })

  it("counts a subagent's spend into the turn that delegated it, and a child that made no request adds nothing", () => {
    const e = recorder()
    const child = (toolCallId: string, spend?: object) => ({
      toolCallId,
      agent: "reviewer",
      childSessionId: `ses_${toolCallId}`,
      stopReason: "final",
      answer: "ok",
      usage: { inputTokens: 100, outputTokens: 10 },
      ...(spend === undefined ? {} : { spend })
    })
    const turns = statsOf([
      e("turn.started", { promptPreview: "a" }),
      e("model.completed", { stopReason: "tool_calls", usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.01 }),
      e("subagent.completed", child("call_1", { requests: 3, tokens: 330, costUsd: 0.25, unpriced: 0 })),
      e("subagent.completed", child("call_2", { requests: 1, tokens: 40, costUsd: 0, unpriced: 1 })),
      e("turn.completed", { stopReason: "final" }),
      e("turn.started", { promptPreview: "b" }, "turn_2"),
      // A turn whose only spend is its child's still shows a cost.
      e("subagent.completed", child("call_3", { requests: 2, tokens: 20, costUsd: 0.5, unpriced: 0 }), "turn_2"),
      e("subagent.completed", child("call_4"), "turn_2"),
      e("turn.started", { promptPreview: "c" }, "turn_3"),
      e("subagent.completed", child("call_5"), "turn_3")
    ])
    expect(turns.map((t) => t.cost)).toEqual([
      { requests: 5, tokens: 372, costUsd: 0.26, unpriced: 1 },
      { requests: 2, tokens: 20, costUsd: 0.5, unpriced: 0 },
      undefined
    ])
    expect(turns.map((t) => shownCost(t.cost))).toEqual(["≥ $0.2600", "$0.5000", undefined])
    // Tokens count as before, from the usage each subagent.completed reports.
    expect(turns.map((t) => t.usage.input)).toEqual([201, 200, 100])
    expect(sessionCost(turns)).toEqual({ requests: 7, tokens: 392, costUsd: 0.76, unpriced: 1 })
  })

  it("counts a summary made while a turn ran into that turn; one made between turns (/compact) into none", () => {
    const e = recorder()
    const compacted = (costUsd: number) => ({
      summary: "## Goal\nx",
      throughSequence: 2,
      tokensBefore: 900,
      tokensAfter: 50,
      turns: ["turn_0"],
      trigger: "budget",
      spend: { requests: 1, tokens: 950, costUsd, unpriced: 0 }
    })
    const turns = statsOf([
      e("turn.started", { promptPreview: "a" }),
      e("context.compacted", compacted(0.5), undefined),
      e("model.completed", { stopReason: "final", usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.01 }),
      e("turn.completed", { stopReason: "final" }),
      e("context.compacted", { ...compacted(0.25), trigger: "request" }, undefined)
    ])
    expect(turns.map((t) => t.cost)).toEqual([{ requests: 2, tokens: 952, costUsd: 0.51, unpriced: 0 }])
  })

  it("sums a turn's tokens over its model steps, cache included, and lists the files its edits changed", () => {
    const e = recorder()
    const turns = statsOf([
      e("session.created", { cwd: "/work", client: "web" }, undefined),
      e("turn.started", { promptPreview: "fix" }),
      e("model.completed", { stopReason: "tool_calls", usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 800, cacheWriteTokens: 200 } }),
      e("tool.completed", edit("call_1", "a.ts")),
      e("tool.completed", edit("call_2", "b.ts")),
      e("tool.completed", edit("call_3", "a.ts")),
      e("tool.completed", edit("call_4", "c.ts", true)),
      e("tool.completed", { toolCallId: "call_5", output: "ok", isError: false, durationMs: 1, data: { _tag: "shell", command: "ls", exitCode: 0, timedOut: false, truncated: false } }),
      e("model.completed", { stopReason: "final", usage: { inputTokens: 1200, outputTokens: 70, cacheReadTokens: 1000 } }),
      e("subagent.completed", { toolCallId: "call_6", agent: "reviewer", childSessionId: "ses_9", stopReason: "final", answer: "ok", usage: { inputTokens: 300, outputTokens: 30 } }),
      e("turn.completed", { stopReason: "final" }),
      e("turn.started", { promptPreview: "again" }, "turn_2"),
      e("model.completed", { stopReason: "final", usage: { inputTokens: 10, outputTokens: 1 } }, "turn_2")
    ])
    expect(turns).toEqual([
      {
        turnId: "turn_1",
        startedAt: "2025-01-01T00:00:02.000Z",
        endedAt: "2025-01-01T00:00:11.000Z",
        usage: { input: 2500, output: 150, cacheRead: 1800, cacheWrite: 200 },
        cost: { requests: 2, tokens: 4320, costUsd: 0, unpriced: 2 },
        files: [
          { path: "a.ts", toolCallIds: ["call_1", "call_3"] },
          { path: "b.ts", toolCallIds: ["call_2"] }
        ]
      },
      {
        turnId: "turn_2",
        startedAt: "2025-01-01T00:00:12.000Z",
        usage: { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 },
        cost: { requests: 1, tokens: 11, costUsd: 0, unpriced: 1 },
        files: []
      }
    ])
    const [first, second] = turns
    expect(first === undefined ? undefined : durationOf(first)).toBe(9_000)
    expect(second === undefined ? "none" : durationOf(second)).toBeUndefined()
  })

  it("keeps the identity of turns an event does not touch (their view does not render again)", () => {
    const e = recorder()
    const before = statsOf([e("turn.started", { promptPreview: "one" }), e("turn.completed", { stopReason: "final" }), e("turn.started", { promptPreview: "two" }, "turn_2")])
    const after = statsAfter(before, e("model.completed", { stopReason: "final", usage: { inputTokens: 1, outputTokens: 1 } }, "turn_2"))
    expect(after[0]).toBe(before[0])
    expect(after[1]).not.toBe(before[1])
    expect(statsAfter(after, e("model.delta", { text: "x" }, "turn_2"))).toBe(after)
  })

  it("says durations and token counts briefly", () => {
    expect(formatDuration(850)).toBe("850 ms")
    expect(formatDuration(3_240)).toBe("3.2 s")
    expect(formatDuration(125_000)).toBe("2 min 5 s")
    expect(formatDuration(3_780_000)).toBe("1 h 3 min")
    expect(formatUsage({ input: 12_345, output: 678, cacheRead: 0, cacheWrite: 0 })).toBe("12,345 in · 678 out")
    expect(formatUsage({ input: 1, output: 2, cacheRead: 3_000, cacheWrite: 40 })).toBe("1 in · 2 out · 3,000 cache read · 40 cache write")
  })
})
