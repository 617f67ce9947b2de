import { describe, expect, it } from "@effect/vitest"
import type { AgentEvent } from "../../src/domain/events.js"
import { canonicalProblem } from "../support/canonical-store.js"

const resolved: AgentEvent = {
  id: "evt_1",
  schemaVersion: 1,
  sessionId: "ses_1",
  turnId: "turn_1",
  sequence: 3,
  timestamp: "2026-11-30T00:00:00.000Z",
  type: "permission.resolved",
  payload: { toolCallId: "call_1", decision: "allow", scope: "session", by: "remembered", rule: { source: "session", index: 0, tool: "edit_file" }, reason: "allowed earlier" }
}

describe("the harnesses' check of committed events (the engine does not decode them)", () => {
  it("passes an event in the catalogue's field order", () => {
    expect(canonicalProblem(resolved)).toBeUndefined()
  })

  it("names an event whose fields are out of the catalogue's order, in the envelope or the payload", () => {
    const { reason, rule, ...rest } = resolved.payload
    const swapped: AgentEvent = { ...resolved, payload: { ...rest, reason, rule } }
    expect(canonicalProblem(swapped)).toContain("permission.resolved event out of the catalogue's order")
    const { turnId, ...envelope } = resolved
    expect(canonicalProblem({ ...envelope, turnId })).toContain("out of the catalogue's order")
  })

  it("names an event the catalogue would not read back", () => {
    expect(canonicalProblem({ ...resolved, sequence: 0 })).toContain("invalid permission.resolved event")
    expect(canonicalProblem({ ...resolved, type: "tool.started", payload: { toolCallId: "call_1", name: "" } })).toBeUndefined()
    expect(canonicalProblem({ ...resolved, type: "model.completed", payload: { stopReason: "final", usage: { inputTokens: Number.NaN, outputTokens: 0 } } })).toContain("invalid")
  })
})
