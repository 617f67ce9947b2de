import type { AgentEvent, TurnStopReason } from "../domain/events.js"
import type { Usage } from "../domain/model.js"
import type { ChildResult } from "./subagents.js"
import { addSpend, noSpend } from "../domain/spend.js"

/**
 * Follows a child's turn as its events commit: its final answer (the text of its last model
 * step), the tokens it and its own children used, what their requests spent, and how it stopped.
 */
export const childTally = () => {
  let answer = ""
  let stopReason: TurnStopReason = "cancelled"
  let message: string | undefined
  let inputTokens = 0
  let outputTokens = 0
  let spend = noSpend
  const add = (usage: Usage) => {
    inputTokens += usage.inputTokens
    outputTokens += usage.outputTokens
  }
  const offer = (event: AgentEvent) => {
    spend = addSpend(spend, event)
    switch (event.type) {
      case "context.built":
        answer = ""
        break
      case "model.delta":
        answer += event.payload.text
        break
      case "model.completed":
        add(event.payload.usage)
        break
      case "subagent.completed":
        add(event.payload.usage)
        break
      case "turn.completed":
        stopReason = event.payload.stopReason
        message = event.payload.message
        break
    }
  }
  return {
    offer,
    result: (childSessionId: string): ChildResult => ({
      childSessionId,
      stopReason,
      answer: answer.trim(),
      usage: { inputTokens, outputTokens },
      ...(spend.requests === 0 ? {} : { spend }),
      ...(message === undefined ? {} : { message })
    })
  }
}
