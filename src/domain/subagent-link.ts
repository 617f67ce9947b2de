import type { AgentEvent } from "./events.js"

/** Where a parent's log says it started a subagent: its session and the `task` call (`subagent.started`). */
export interface StartedChild {
  readonly parentSessionId: string
  readonly toolCallId: string
}

/**
 * Whether a session is the subagent a parent's `subagent.started` names: both sides must say
 * so, the child's first event (`session.created` with `parent`) naming that session and that
 * call. A log's claim alone is not enough: an imported log whose `subagent.started` names any
 * session's id would otherwise carry that session into its export and its timeline.
 */
export const isStartedChild = (first: AgentEvent | undefined, started: StartedChild): boolean =>
  first?.type === "session.created" &&
  first.payload.parent?.sessionId === started.parentSessionId &&
  first.payload.parent.toolCallId === started.toolCallId
