import type { AgentEvent } from "./events.js"
import { sessionIdProblem } from "./ids.js"
import { invariantProblem, type LogProblem } from "./log-invariants.js"

export type { LogProblem } from "./log-invariants.js"

/**
 * What a whole session log must be for any store to hold it: it starts with `session.created`,
 * its session id follows the rule, every event belongs to that session, and sequences run 1,
 * 2, 3, ... without a gap.
 */
export const sessionLogProblem = (events: ReadonlyArray<AgentEvent>): LogProblem | undefined => {
  const first = events[0]
  if (first === undefined) return { index: 0, message: "the log holds no events" }
  const invalid = sessionIdProblem(first.sessionId)
  if (invalid !== undefined) return { index: 0, message: invalid.message }
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

/** What an import does with a log: refuse it, or write these events. */
export type ImportPlan =
  | { readonly _tag: "Refused"; readonly problem: LogProblem }
  | {
      readonly _tag: "Write"
      readonly events: ReadonlyArray<AgentEvent>
      /** The invariant the log breaks, when it was imported unverified (recorded in its header). */
      readonly unverified: LogProblem | undefined
    }

/** A problem as one line: which event, and what is wrong there. */
export const describeProblem = (problem: LogProblem) => `event ${problem.index + 1}: ${problem.message}`

/**
 * The one check every import makes (CLI and `ImportSession`): a log no store can hold is
 * refused; one that breaks the engine's invariants (`invariantProblem`) too, unless
 * `unverified`: then it is written with its first violation in `session.created`'s
 * `unverifiedImport`, so an audit can tell. A log that holds is written as it is.
 */
export const planImport = (events: ReadonlyArray<AgentEvent>, options: { readonly unverified: boolean }): ImportPlan => {
  const structural = sessionLogProblem(events)
  if (structural !== undefined) return { _tag: "Refused", problem: structural }
  const broken = invariantProblem(events)
  if (broken === undefined) return { _tag: "Write", events, unverified: undefined }
  if (!options.unverified) return { _tag: "Refused", problem: broken }
  const marked = events.map((event) =>
    event.type === "session.created" && event.sequence === 1
      ? { ...event, payload: { ...event.payload, unverifiedImport: { problem: describeProblem(broken) } } }
      : event
  )
  return { _tag: "Write", events: marked, unverified: broken }
}
