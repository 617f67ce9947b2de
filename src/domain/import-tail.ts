import type { AgentEvent } from "./events.js"

/** Who an import's own events name as their author (`by`). */
export const IMPORT_AUTHOR = "import"

export interface ImportTailRequest {
  /** ISO-8601 UTC: when the import happened. */
  readonly timestamp: string
  /** The importing host's own model (its engine's): the session goes on with it, whatever the file chose. */
  readonly model: string
}

/**
 * What an import writes after the imported events, so that history is not authority: the
 * file's events are kept exactly as they are (replay and export stay exact, the log stays
 * append-only), and the host's own events then reset what a log could grant. A mode the file
 * recorded (`bypass`, `accept-edits`) ends at a `session.mode_changed` to `default` by
 * `import` (the mode is the last such event, so every projection agrees without a special
 * case), and messages waiting in the file's inbox are dropped (nobody here queued them, so
 * they never start a turn). The model the file named (its provider, where the user's key goes)
 * is replaced by the importing host's own, by a `session.model_changed` by `import`, unless it
 * is that one already (a file naming none goes on with it anyway); a person picks another with `--model` or the page's picker. Remembered answers are not in the log at all: the permission
 * engine keeps them by session id in memory and by workspace in the user's approvals file,
 * so an imported `permission.resolved` "for the session" or "always" grants nothing.
 */
export const importTail = (events: ReadonlyArray<AgentEvent>, request: ImportTailRequest): ReadonlyArray<AgentEvent> => {
  const last = events.at(-1)
  if (last === undefined) return []
  let waiting = false
  let model: string | undefined
  for (const event of events) {
    if (event.type === "inbox.updated") waiting = event.payload.nextTurn.length + event.payload.nextStep.length > 0
    if (event.type === "session.created") model = event.payload.model
    if (event.type === "session.model_changed") model = event.payload.model
  }
  const own = (offset: number) => ({
    // The caller gives each its own id, making only as many as the tail needs.
    id: "",
    schemaVersion: last.schemaVersion,
    sessionId: last.sessionId,
    sequence: last.sequence + offset,
    timestamp: request.timestamp
  })
  const tail: Array<AgentEvent> = []
  if (waiting) tail.push({ ...own(tail.length + 1), type: "inbox.updated", payload: { nextTurn: [], nextStep: [] } })
  tail.push({ ...own(tail.length + 1), type: "session.mode_changed", payload: { mode: "default", by: IMPORT_AUTHOR } })
  if (model !== undefined && model !== request.model) tail.push({ ...own(tail.length + 1), type: "session.model_changed", payload: { model: request.model, by: IMPORT_AUTHOR } })
  return tail
}
