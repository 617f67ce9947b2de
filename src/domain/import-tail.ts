import type { AgentEvent } from "./events.js"

/** Who an import's own events name as their author (`by`). */
export const IMPORT_AUTHOR = "import"

export interface ImportTailRequest {
  /** A fresh event id for each event the tail adds. */
  readonly newId: () => string
  /** ISO-8601 UTC: when the import happened. */
  readonly timestamp: string
}

/**
 * What an import writes after the imported events, so that history is not authority: the
 * file's events are kept exactly as they are (replay and export stay exact, the log stays
 * append-only), and the host's own events then reset what a log could grant. A mode the file
 * recorded (`bypass`, `accept-edits`) ends at a `session.mode_changed` to `default` by
 * `import` (the mode is the last such event, so every projection agrees without a special
 * case), and messages waiting in the file's inbox are dropped (nobody here queued them, so
 * they never start a turn). Remembered answers are not in the log at all: the permission
 * engine keeps them by session id in memory and by workspace in the user's approvals file,
 * so an imported `permission.resolved` "for the session" or "always" grants nothing.
 */
export const importTail = (events: ReadonlyArray<AgentEvent>, request: ImportTailRequest): ReadonlyArray<AgentEvent> => {
  const last = events.at(-1)
  if (last === undefined) return []
  let waiting = false
  for (const event of events) {
    if (event.type === "inbox.updated") waiting = event.payload.nextTurn.length + event.payload.nextStep.length > 0
  }
  const own = (offset: number) => ({
    id: request.newId(),
    schemaVersion: last.schemaVersion,
    sessionId: last.sessionId,
    sequence: last.sequence + offset,
    timestamp: request.timestamp
  })
  const tail: Array<AgentEvent> = []
  if (waiting) tail.push({ ...own(tail.length + 1), type: "inbox.updated", payload: { nextTurn: [], nextStep: [] } })
  tail.push({ ...own(tail.length + 1), type: "session.mode_changed", payload: { mode: "default", by: IMPORT_AUTHOR } })
  return tail
}
