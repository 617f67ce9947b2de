import { describe, expect, it } from "@effect/vitest"
import type { AgentEvent } from "../../src/domain/events.js"
import { exchangeOf, formatExchange } from "../../src/cli/memory-evidence.js"

let sequence = 0
const envelope = () => ({ schemaVersion: 1 as const, id: `evt_${++sequence}`, sessionId: "ses_1", turnId: "turn_1", sequence, timestamp: "2026-01-01T00:00:00.000Z" })

describe("memory review's evidence: who said what", () => {
  it("the prompt, then the agent's streamed text as one message, with its tool calls noted, line breaks kept", () => {
    const events: ReadonlyArray<AgentEvent> = [
      { ...envelope(), type: "user.message", payload: { content: "remember our release day:\nFridays", mode: "queue" } },
      { ...envelope(), type: "model.delta", payload: { text: "Sure, " } },
      { ...envelope(), type: "model.delta", payload: { text: "noting it." } },
      { ...envelope(), type: "model.tool_call_requested", payload: { toolCallId: "c1", name: "remember", input: {} } },
      { ...envelope(), type: "model.thinking_delta", payload: { text: "(not shown)" } },
      { ...envelope(), type: "model.delta", payload: { text: "Noted." } }
    ]
    const said = exchangeOf(events)
    expect(said).toEqual([
      { who: "you", text: "remember our release day:\nFridays" },
      { who: "agent", text: "Sure, noting it.\n[called remember]\nNoted." }
    ])
    expect(formatExchange(said, "    ")).toBe(
      ["    you:   remember our release day:", "           Fridays", "    agent: Sure, noting it.", "           [called remember]", "           Noted."].join("\n")
    )
  })
})
