import { describe, expect, it } from "@effect/vitest"
import type { AgentEvent } from "../../src/domain/events.js"
import { toOtlpSpan } from "../../src/layers/telemetry/otlp-exporter.js"
import { spanTraceparent } from "../../src/layers/telemetry/span-ids.js"
import { projectLog } from "../../src/layers/telemetry/spans.js"

const SECRET = "sk-live-SECRET-9f8e7d"

let sequence = 0
const event = (type: AgentEvent["type"], payload: unknown, turnId = "turn-1"): AgentEvent =>
  ({
    id: `evt-${++sequence}`,
    schemaVersion: 1,
    sessionId: "ses-1",
    turnId,
    sequence,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
    type,
    payload
  }) as AgentEvent

/** A turn whose every content-bearing field carries the secret. */
const log: ReadonlyArray<AgentEvent> = [
  event("turn.started", { promptPreview: `deploy with ${SECRET}` }),
  event("user.message", { content: `deploy with ${SECRET}`, mode: "queue" }),
  event("context.built", { sources: [], historyTokens: 1, toolsTokens: 1, totalTokens: 2, budget: 10, tools: ["shell"] }),
  event("model.thinking_delta", { text: `thinking about ${SECRET}` }),
  event("model.delta", { text: `I will use ${SECRET}` }),
  event("model.tool_call_requested", { toolCallId: "call-1", name: "shell", input: { command: `curl -H 'auth: ${SECRET}' x` } }),
  event("model.completed", { stopReason: "tool_calls", usage: { inputTokens: 1, outputTokens: 1 }, model: "scripted" }),
  event("permission.requested", { toolCallId: "call-1", tool: "shell", risk: "execute", summary: `shell: curl ${SECRET}`, detail: SECRET }),
  event("permission.resolved", { toolCallId: "call-1", decision: "allow", scope: "once", by: "user", reason: `ok ${SECRET}` }),
  event("tool.started", { toolCallId: "call-1", name: "shell" }),
  event("tool.completed", { toolCallId: "call-1", output: `token=${SECRET}`, isError: false, durationMs: 3 }),
  event("context.built", { sources: [], historyTokens: 1, toolsTokens: 1, totalTokens: 2, budget: 10, tools: ["shell"] }),
  event("model.delta", { text: `done with ${SECRET}` }),
  event("model.completed", { stopReason: "final", usage: { inputTokens: 1, outputTokens: 1 }, model: "scripted" }),
  event("turn.completed", { stopReason: "error", errorCode: "scripted", message: `failed near ${SECRET}` })
]

describe("telemetry: what leaves the machine in spans", () => {
  it("with content capture off, no prompt, answer, thinking, tool input or output, permission text, reason or failure message is in any span", () => {
    const spans = projectLog(log, { captureContent: false })
    expect(spans.map((s) => s.name).sort()).toEqual(["chat scripted", "chat scripted", "execute_tool shell", "invoke_agent custom-agent"])
    const wire = JSON.stringify(spans.map(toOtlpSpan))
    expect(wire).not.toContain(SECRET)
    // A failure is still told, by its code.
    expect(spans.find((s) => s.name.startsWith("invoke_agent"))?.error).toBe("scripted")
  })

  it("with content capture on, the content is there (the switch is the only thing keeping it out)", () => {
    expect(JSON.stringify(projectLog(log, { captureContent: true }).map(toOtlpSpan))).toContain(SECRET)
  })

  it("a tool process's TRACEPARENT is hex ids only, whatever the model named its call", () => {
    for (const id of ["call-1", "$(rm -rf ~)", "a\nTRACEPARENT=evil", "`id`;", "x".repeat(10_000)]) {
      expect(spanTraceparent("ses-1", "turn-1", id)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    }
  })
})
