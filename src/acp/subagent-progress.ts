import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk/unstable"
import type { AgentEvent } from "../domain/events.js"

/** How much of a child's streamed text the task call shows: its end, where the work is. */
const TAIL_CHARS = 2_000

/**
 * A subagent's progress as the content of its parent's `task` tool call: one line per tool
 * call it makes (marked when it ends) and the tail of its current text. Each event that
 * changes it gives the whole content again, as ACP's tool call updates replace content.
 */
export const makeSubagentProgress = (toolCallId: string, agent: string) => {
  const lines: Array<string> = []
  const calls = new Map<string, number>()
  let streamed = ""

  const update = (): SessionUpdate => {
    const tail = streamed.length > TAIL_CHARS ? `…${streamed.slice(-TAIL_CHARS)}` : streamed
    const body = [`${agent} is working:`, ...lines, ...(tail.trim() === "" ? [] : ["", tail])].join("\n")
    const content: ToolCallContent = { type: "content", content: { type: "text", text: body } }
    return { sessionUpdate: "tool_call_update", toolCallId, status: "in_progress", content: [content] }
  }

  /** The update one of the child's events makes, if it changes anything. */
  const add = (event: AgentEvent): SessionUpdate | undefined => {
    switch (event.type) {
      case "model.delta":
        if (event.payload.text === "") return undefined
        streamed += event.payload.text
        return update()
      case "context.built":
        // A new model step: its text replaces the last one's.
        if (streamed === "") return undefined
        streamed = ""
        return update()
      case "model.tool_call_requested":
        calls.set(event.payload.toolCallId, lines.length)
        lines.push(`- ${event.payload.name} ${JSON.stringify(event.payload.input).slice(0, 120)}`)
        return update()
      case "tool.completed": {
        const at = calls.get(event.payload.toolCallId)
        if (at === undefined) return undefined
        lines[at] = `${lines[at] ?? ""} ${event.payload.isError ? "✗" : "✓"}`
        return update()
      }
      case "subagent.started":
        lines.push(`- delegated to ${event.payload.agent}`)
        return update()
      default:
        return undefined
    }
  }
  return { add }
}
