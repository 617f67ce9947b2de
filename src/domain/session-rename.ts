import type { AgentEvent } from "./events.js"

/**
 * Events of one or more sessions with their session ids replaced, for an import under new ids
 * (`sessions import --as-new`): each event's own session, and every reference to a session the
 * mapping names (a subagent's parent, a parent's child, a fork's source, a memory's evidence).
 * A reference to a session the mapping does not name is kept as it is.
 */
export const renameSessions = (events: ReadonlyArray<AgentEvent>, mapping: ReadonlyMap<string, string>): ReadonlyArray<AgentEvent> => {
  const renamed = (id: string) => mapping.get(id) ?? id
  return events.map((event): AgentEvent => {
    const sessionId = renamed(event.sessionId)
    switch (event.type) {
      case "session.created":
        return event.payload.parent === undefined
          ? { ...event, sessionId }
          : { ...event, sessionId, payload: { ...event.payload, parent: { ...event.payload.parent, sessionId: renamed(event.payload.parent.sessionId) } } }
      case "subagent.started":
        return { ...event, sessionId, payload: { ...event.payload, childSessionId: renamed(event.payload.childSessionId) } }
      case "subagent.completed":
        return { ...event, sessionId, payload: { ...event.payload, childSessionId: renamed(event.payload.childSessionId) } }
      case "session.forked":
        return { ...event, sessionId, payload: { ...event.payload, sourceSessionId: renamed(event.payload.sourceSessionId) } }
      case "memory.candidate_proposed":
        return { ...event, sessionId, payload: { ...event.payload, evidence: { ...event.payload.evidence, sessionId: renamed(event.payload.evidence.sessionId) } } }
      default:
        return { ...event, sessionId }
    }
  })
}

/** The sessions of an export in the order they first appear (a session, then its subagents'), each with its events. */
export const sessionsOf = (events: ReadonlyArray<AgentEvent>): ReadonlyArray<{ readonly sessionId: string; readonly events: ReadonlyArray<AgentEvent> }> => {
  const groups = new Map<string, Array<AgentEvent>>()
  for (const event of events) {
    const group = groups.get(event.sessionId)
    if (group === undefined) groups.set(event.sessionId, [event])
    else group.push(event)
  }
  return [...groups].map(([sessionId, grouped]) => ({ sessionId, events: grouped }))
}
