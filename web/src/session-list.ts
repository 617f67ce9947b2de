import { showInvisible } from "../../src/domain/visible-text.js"
import type { SessionListFrame, SessionListItem, SessionStatus } from "../../src/domain/host.js"

/**
 * A session's name as a page shows it: its title (a model or a person chose it, an imported
 * file carries one), else its id, with every invisible character shown as `<U+XXXX>` so a
 * title cannot read as another session's.
 */
export const sessionTitle = (sessions: ReadonlyArray<SessionListItem> | undefined, sessionId: string): string =>
  showInvisible(sessions?.find((s) => s.sessionId === sessionId)?.title ?? sessionId)

/** Newest activity first. */
const byUpdated = (a: SessionListItem, b: SessionListItem) => b.updatedAt.localeCompare(a.updatedAt)

/**
 * The session list after one frame of the server's WatchSessions stream: a snapshot is the
 * whole list, an update replaces (or adds) one session, a removal drops one, a keep-alive
 * changes nothing.
 */
export const applyListFrame = (
  sessions: ReadonlyArray<SessionListItem> | undefined,
  frame: SessionListFrame
): ReadonlyArray<SessionListItem> | undefined => {
  switch (frame._tag) {
    case "Snapshot":
      return [...frame.sessions].sort(byUpdated)
    case "Updated": {
      const others = (sessions ?? []).filter((s) => s.sessionId !== frame.session.sessionId)
      return [...others, frame.session].sort(byUpdated)
    }
    case "Removed":
      return sessions?.filter((s) => s.sessionId !== frame.sessionId)
    case "KeepAlive":
      return sessions
  }
}

/**
 * The sessions the list shows: archived ones only when asked for, and those whose title,
 * working directory or id contain every word of the search (in any case).
 */
export const visibleSessions = (
  sessions: ReadonlyArray<SessionListItem>,
  search: string,
  showArchived: boolean
): ReadonlyArray<SessionListItem> => {
  const words = search.toLowerCase().split(/\s+/).filter((word) => word !== "")
  return sessions.filter((s) => {
    if (s.archived && !showArchived) return false
    const haystack = [s.title ?? "", s.cwd ?? "", s.sessionId].join("\n").toLowerCase()
    return words.every((word) => haystack.includes(word))
  })
}

/**
 * What a session is doing, as the page shows it: a running turn that waits on a permission
 * question is `waiting` (for you); one whose last turn failed is `failed` rather than idle.
 */
export type ShownStatus = "waiting" | "running" | "interrupted" | "failed" | "idle"

export const statusLabels: Readonly<Record<ShownStatus, string>> = {
  waiting: "waiting for you",
  running: "running",
  interrupted: "interrupted",
  failed: "failed",
  idle: "idle"
}

/** A session's status in the list, from its line (the fields a server before them leaves out read as none). */
export const rowStatus = (item: SessionListItem): ShownStatus => {
  if (item.status === "running") return (item.waitingQuestions ?? 0) > 0 ? "waiting" : "running"
  if (item.status === "interrupted") return "interrupted"
  return item.lastStopReason === "error" ? "failed" : "idle"
}

/**
 * What the session pane says it is doing: its own stream knows whether a turn runs, whether a
 * question waits and how the last turn ended; only the list knows a turn a dead process left open.
 */
export const paneStatus = (
  view: { readonly running: boolean; readonly questionsOpen: number; readonly lastTurnFailed: boolean },
  listed: SessionStatus | undefined
): ShownStatus => {
  if (view.running) return view.questionsOpen > 0 ? "waiting" : "running"
  if (listed === "interrupted") return "interrupted"
  return view.lastTurnFailed ? "failed" : "idle"
}
