import type { AgentEvent } from "../domain/events.js"

export interface Said {
  readonly who: "you" | "agent"
  readonly text: string
}

/**
 * The conversation in a stretch of a session's log, as messages: each prompt, and what the
 * agent answered (its streamed text joined, the tools it called noted), in order.
 */
export const exchangeOf = (events: ReadonlyArray<AgentEvent>): ReadonlyArray<Said> => {
  const said: Array<Said> = []
  // Streamed text continues the agent's message; a tool call, or text after one, starts a new line of it.
  let previous: "text" | "tool" | undefined
  const agent = (text: string, kind: "text" | "tool") => {
    const last = said.at(-1)
    if (last?.who === "agent") said[said.length - 1] = { who: "agent", text: last.text + (kind === "text" && previous === "text" ? "" : "\n") + text }
    else said.push({ who: "agent", text })
    previous = kind
  }
  for (const event of events) {
    if (event.type === "user.message") {
      said.push({ who: "you", text: event.payload.content })
      previous = undefined
    } else if (event.type === "model.delta") agent(event.payload.text, "text")
    else if (event.type === "model.tool_call_requested") agent(`[called ${event.payload.name}]`, "tool")
  }
  return said.map(({ who, text }) => ({ who, text: text.trim() })).filter(({ text }) => text !== "")
}

const MAX_MESSAGE = 600

/** Messages under each other, the speaker before the first line and the rest indented under it; long ones cut. */
export const formatExchange = (said: ReadonlyArray<Said>, indent: string): string =>
  said
    .map(({ who, text }) => {
      const cut = text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text
      const label = `${who}:`.padEnd(7)
      return cut
        .split("\n")
        .map((line, i) => `${indent}${i === 0 ? label : " ".repeat(label.length)}${line}`.trimEnd())
        .join("\n")
    })
    .join("\n")
