import type { AgentEvent } from "./events.js"

export interface LogProblem {
  /** 0-based index of the first offending event. */
  readonly index: number
  readonly message: string
}

/**
 * What a whole session log must be to be imported: it starts with `session.created`, every
 * event belongs to that session, and sequences run 1, 2, 3, ... without a gap.
 */
export const sessionLogProblem = (events: ReadonlyArray<AgentEvent>): LogProblem | undefined => {
  const first = events[0]
  if (first === undefined) return { index: 0, message: "the log holds no events" }
  for (let i = 0; i < events.length; i++) {
    const event = events[i]
    if (event === undefined) continue
    if (i === 0 && event.type !== "session.created") {
      return { index: 0, message: `a session log must start with session.created, found ${event.type}` }
    }
    if (event.sessionId !== first.sessionId) {
      return { index: i, message: `event of session ${event.sessionId} in the log of session ${first.sessionId}` }
    }
    if (event.sequence !== i + 1) return { index: i, message: `expected sequence ${i + 1}, found ${event.sequence}` }
  }
  return undefined
}
