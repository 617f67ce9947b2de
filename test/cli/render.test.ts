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
