import type { AgentEvent } from "../../../src/domain/events.js"
import type { ModelStreamEvent } from "../../../src/domain/model.js"

/**
 * A tiny event log for tests: records what a turn would commit (the same mapping the
 * engine applies to model events), so conversations can be rebuilt from it.
 */
export const makeEventLog = (sessionId = "session-test") => {
  const events: Array<AgentEvent> = []
  const envelope = () => ({
    id: `evt-${events.length + 1}`,
    schemaVersion: 1 as const,
    sessionId,
    turnId: "turn-1",
    sequence: events.length + 1,
    timestamp: new Date(0).toISOString()
  })

  const userMessage = (content: string) => events.push({ ...envelope(), type: "user.message", payload: { content, mode: "queue" } })

  const model = (event: ModelStreamEvent) => {
    switch (event._tag) {
      case "TextDelta":
        return events.push({ ...envelope(), type: "model.delta", payload: { text: event.text } })
      case "ThinkingDelta":
        return events.push({
          ...envelope(),
          type: "model.thinking_delta",
          payload: {
            text: event.text,
            ...(event.signature === undefined ? {} : { signature: event.signature }),
            ...(event.redacted === undefined ? {} : { redacted: event.redacted }),
            ...(event.encryptedReasoning === undefined ? {} : { encryptedReasoning: event.encryptedReasoning })
          }
        })
      case "ToolCall":
        return events.push({
          ...envelope(),
          type: "model.tool_call_requested",
          payload: { toolCallId: event.toolCallId, name: event.name, input: event.input }
        })
      case "Completed":
        return events.push({ ...envelope(), type: "model.completed", payload: { stopReason: event.stopReason, usage: event.usage } })
    }
  }

  const toolCompleted = (toolCallId: string, output: string, isError = false) =>
    events.push({ ...envelope(), type: "tool.completed", payload: { toolCallId, output, isError, durationMs: 1 } })

  return { events, userMessage, model, toolCompleted }
}
