import { describe, expect, it } from "@effect/vitest"
import type { AgentEvent } from "../../../src/domain/events.js"
import { emptyTally, tallyEvent, turnSummary } from "../../../src/cli/view/turn-summary.js"
import { textWidth } from "../../../src/cli/view/width.js"

let sequence = 0
const event = (type: AgentEvent["type"], payload: unknown, timestamp = "2026-12-01T10:00:00.000Z"): AgentEvent =>
  ({ type, schemaVersion: 1, id: `evt_${++sequence}`, sessionId: "ses_1", turnId: "turn_1", sequence, timestamp, payload }) as AgentEvent

const turn = (events: ReadonlyArray<AgentEvent>) => events.reduce(tallyEvent, emptyTally)

const priced = turn([
  event("turn.started", { promptPreview: "go" }, "2026-12-01T10:00:00.000Z"),
  event("model.completed", { stopReason: "tool_calls", usage: { inputTokens: 12_000, outputTokens: 300, cacheReadTokens: 10_000, cacheWriteTokens: 500 }, costUsd: 0.02 }),
  event("subagent.completed", { toolCallId: "c", agent: "reviewer", childSessionId: "ses_2", stopReason: "final", answer: "ok", usage: { inputTokens: 1000, outputTokens: 100 }, spend: { requests: 2, tokens: 1100, costUsd: 0.005, unpriced: 0 } }),
  event("model.completed", { stopReason: "final", usage: { inputTokens: 13_000, outputTokens: 156 }, costUsd: 0.0034 }),
  event("turn.completed", { stopReason: "final" }, "2026-12-01T10:00:12.400Z")
])

describe("the turn's summary line", () => {
  it("says how the turn ended, how long it took, its steps, tokens, the cache's and its cost, its subagents' included", () => {
    expect(priced.steps).toBe(2)
    expect(turnSummary(priced, { width: 120, color: false }).text).toBe("── done · 12.4 s · 2 steps · 26k in / 556 out tokens · 10k cached · $0.0284")
  })

  it("leaves out the cache when no provider reported one, and the cost when no request had a price", () => {
    const unpriced = turn([
      event("turn.started", {}, "2026-12-01T10:00:00.000Z"),
      event("model.completed", { stopReason: "final", usage: { inputTokens: 100, outputTokens: 10 } }),
      event("turn.completed", { stopReason: "max_steps" }, "2026-12-01T10:00:00.250Z")
    ])
    expect(turnSummary(unpriced, { width: 120, color: false }).text).toBe("── max steps · 250 ms · 1 step · 100 in / 10 out tokens")
  })

  it("a turn still running counts its time to now", () => {
    const running = turn([event("turn.started", {}, "2026-12-01T10:00:00.000Z")])
    expect(turnSummary(running, { width: 80, color: false, now: Date.parse("2026-12-01T10:01:05.000Z") }).text).toBe("── running · 1m 05s · 0 steps · 0 in / 0 out tokens")
  })

  it("in a narrow terminal the cache gives way first, then the steps, then the duration; tokens and cost stay", () => {
    const at = (width: number) => turnSummary(priced, { width, color: false }).text
    expect(at(70)).toBe("── done · 12.4 s · 2 steps · 26k in / 556 out tokens · $0.0284")
    expect(at(60)).toBe("── done · 12.4 s · 26k in / 556 out tokens · $0.0284")
    expect(at(50)).toBe("── done · 26k in / 556 out tokens · $0.0284")
    for (const width of [40, 80, 120, 20, 5]) for (const color of [false, true]) expect(textWidth(turnSummary(priced, { width, color }).text)).toBeLessThanOrEqual(width)
  })

  it("colours an error red, and writes no escape without colour", () => {
    const failed = turn([event("turn.started", {}), event("turn.completed", { stopReason: "error", errorCode: "network" })])
    expect(turnSummary(failed, { width: 80, color: true }).text).toContain("\x1b[31m── error\x1b[0m")
    expect(turnSummary(failed, { width: 80, color: false }).text).not.toContain("\x1b")
  })
})
