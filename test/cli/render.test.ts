import { describe, expect, it } from "@effect/vitest"
import type { AgentEvent } from "../../src/domain/events.js"
import { makeRenderer } from "../../src/cli/render.js"

const resolved = (payload: Extract<AgentEvent, { type: "permission.resolved" }>["payload"]): AgentEvent => ({
  type: "permission.resolved",
  schemaVersion: 1,
  id: "evt_1",
  sessionId: "ses_1",
  turnId: "turn_1",
  sequence: 9,
  timestamp: "2026-12-01T10:00:00.000Z",
  payload
})

const shown = (event: AgentEvent) =>
  makeRenderer({ color: false, live: true })
    .render(event)
    .map((segment) => segment.text)
    .join("")

describe("how a decision reads at the terminal", () => {
  it("a remembered answer says it was an earlier answer and for how long, once", () => {
    const text = shown(
      resolved({
        toolCallId: "call_1",
        decision: "allow",
        scope: "always",
        by: "remembered",
        rule: { source: "always", index: 0, tool: "write_file", pattern: "src/**" },
        reason: "an earlier answer, always (src/**)"
      })
    )
    expect(text).toBe("  allowed by an earlier answer, always (src/**)\n")
  })

  it("a rule names its file and number; a person's lasting answer says for how long", () => {
    expect(
      shown(resolved({ toolCallId: "c", decision: "deny", scope: "once", by: "rule", rule: { source: "user", index: 1, tool: "shell" }, reason: "shell rm denied" }))
    ).toBe("  denied by rule user#2: shell rm denied\n")
    expect(shown(resolved({ toolCallId: "c", decision: "allow", scope: "session", by: "user" }))).toBe("  allowed by user for the session\n")
  })
})

describe("cost, budgets and structured output in a timeline", () => {
  let sequence = 0
  const event = (type: AgentEvent["type"], payload: unknown): AgentEvent =>
    ({ type, schemaVersion: 1, id: `evt_${++sequence}`, sessionId: "ses_1", turnId: "turn_1", sequence, timestamp: "2026-12-01T10:00:00.000Z", payload }) as AgentEvent
  const timeline = (events: ReadonlyArray<AgentEvent>, live: boolean) => {
    const renderer = makeRenderer({ color: false, live })
    return events.flatMap((e) => renderer.render(e)).map((s) => s.text).join("")
  }
  const usage = { inputTokens: 100, outputTokens: 10 }

  it("sessions show gives each request's cost and the turn's; a budget stop says what was spent", () => {
    const text = timeline(
      [
        event("turn.started", { promptPreview: "go" }),
        event("model.completed", { stopReason: "tool_calls", usage, costUsd: 0.25 }),
        event("model.completed", { stopReason: "tool_calls", usage }),
        event("turn.completed", { stopReason: "budget", message: "the turn cost $0.2500, its limit is $0.2000" })
      ],
      false
    )
    expect(text).toContain("· tool_calls · 100 in / 10 out tokens · $0.2500\n")
    expect(text).toContain("· tool_calls · 100 in / 10 out tokens\n")
    expect(text).toContain("── budget: the turn cost $0.2500, its limit is $0.2000 · cost ≥ $0.2500\n")
  })

  it("a turn of an unpriced model shows no cost; a validated output shows its value when read back, nothing live", () => {
    const events = [
      event("turn.started", { promptPreview: "go" }),
      event("model.completed", { stopReason: "final", usage }),
      event("output.structured", { value: { status: "ok" }, attempts: 1 }),
      event("turn.completed", { stopReason: "final" })
    ]
    const read = timeline(events, false)
    expect(read).toContain('{} structured output validated (1 attempt): {"status":"ok"}\n')
    expect(read).toContain("── done\n")
    expect(read).not.toContain("cost")
    expect(timeline(events, true)).not.toContain("structured output")
  })
})
