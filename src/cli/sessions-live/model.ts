import type { PendingPermission, SessionListFrame, SessionListItem } from "../../domain/host.js"

/** What a session is doing, as the live view names it. */
export type LiveStatus = "waiting" | "running" | "failed" | "interrupted" | "done"

export const liveStatus = (item: SessionListItem): LiveStatus => {
  if (item.status === "running") return (item.waitingQuestions ?? 0) > 0 ? "waiting" : "running"
  if (item.status === "interrupted") return "interrupted"
  return item.lastStopReason === "error" ? "failed" : "done"
}

/** Those that need someone first, then those at work, then the rest. */
const rank: Readonly<Record<LiveStatus, number>> = { waiting: 0, running: 1, failed: 2, interrupted: 2, done: 2 }

/** A question the view shows for the selected session, to answer with one key. */
export interface Asking {
  readonly sessionId: string
  readonly question: PendingPermission
}

export interface LiveState {
  readonly sessions: ReadonlyMap<string, SessionListItem>
  /** The selected session's id; it stays selected as the list moves around it. */
  readonly selected: string | undefined
  readonly asking: Asking | undefined
  /** One line under the list: what the last key did, or why it did nothing. */
  readonly note: string | undefined
  /** Whether questions can be answered here (the view follows a local host, not the store). */
  readonly answerable: boolean
  /** Whether the first list came: what waits in it already is not news. */
  readonly loaded: boolean
}

export const initialState = (answerable: boolean): LiveState => ({
  sessions: new Map(),
  selected: undefined,
  asking: undefined,
  note: undefined,
  answerable,
  loaded: false
})

/**
 * The sessions the view lists, in its order: waiting for an answer, running, then those done,
 * failed or interrupted, each group newest activity first; at most `limit` of the last group.
 * Archived sessions are left out, and a subagent's session unless it runs (its parent's line
 * says the rest).
 */
export const listedSessions = (state: LiveState, limit: number): ReadonlyArray<SessionListItem> => {
  const shown = [...state.sessions.values()].filter((item) => !item.archived && (item.parentSessionId === undefined || item.status === "running"))
  const ordered = shown.sort((a, b) => rank[liveStatus(a)] - rank[liveStatus(b)] || b.updatedAt.localeCompare(a.updatedAt))
  const active = ordered.filter((item) => rank[liveStatus(item)] < 2)
  return [...active, ...ordered.filter((item) => rank[liveStatus(item)] === 2).slice(0, limit)]
}

/** The sessions that started waiting for an answer between two states (none on the first list): what a notification names. */
export const newlyWaiting = (before: LiveState, after: LiveState): ReadonlyArray<SessionListItem> => {
  if (!before.loaded) return []
  return [...after.sessions.values()].filter((item) => {
    const earlier = before.sessions.get(item.sessionId)
    return liveStatus(item) === "waiting" && (earlier === undefined || liveStatus(earlier) !== "waiting")
  })
}

/** Keeps the selection on a listed session: the one it was on, else the first. */
const keepSelection = (state: LiveState, limit: number): LiveState => {
  const listed = listedSessions(state, limit)
  const selected = listed.some((item) => item.sessionId === state.selected) ? state.selected : listed[0]?.sessionId
  // A question answered elsewhere is withdrawn here too.
  const asked = state.asking === undefined ? undefined : state.sessions.get(state.asking.sessionId)
  const stillAsking = asked !== undefined && liveStatus(asked) === "waiting"
  return { ...state, selected, asking: stillAsking ? state.asking : undefined }
}

/** A frame of the host's `WatchSessions` (the store's reading makes a `Snapshot` each time). */
export const applyFrame = (state: LiveState, frame: SessionListFrame, limit: number): LiveState => {
  switch (frame._tag) {
    case "KeepAlive":
      return state
    case "Snapshot":
      return keepSelection({ ...state, loaded: true, sessions: new Map(frame.sessions.map((item) => [item.sessionId, item])) }, limit)
    case "Updated":
      return keepSelection({ ...state, loaded: true, sessions: new Map(state.sessions).set(frame.session.sessionId, frame.session) }, limit)
    case "Removed": {
      const sessions = new Map(state.sessions)
      sessions.delete(frame.sessionId)
      return keepSelection({ ...state, sessions }, limit)
    }
  }
}

/** A key as the terminal sends it, named. */
export type Key = "up" | "down" | "enter" | "answer" | "yes" | "no" | "back" | "quit" | "other"

/** Reads one chunk of terminal input (arrows, vi keys, Enter, Esc, Ctrl-C) as the keys it holds. */
export const keysOf = (input: string): ReadonlyArray<Key> => {
  const keys: Array<Key> = []
  let rest = input
  while (rest.length > 0) {
    const arrow = /^\x1b(?:\[|O)([AB])/.exec(rest)
    if (arrow !== null) {
      keys.push(arrow[1] === "A" ? "up" : "down")
      rest = rest.slice(arrow[0].length)
      continue
    }
    // Another escape sequence (a function key, a mouse report) is one key that does nothing.
    const sequence = /^\x1b\[[0-9;?]*[ -/]*[@-~]/.exec(rest)
    if (sequence !== null) {
      keys.push("other")
      rest = rest.slice(sequence[0].length)
      continue
    }
    const char = rest[0] ?? ""
    rest = rest.slice(1)
    keys.push(keyOfChar(char))
  }
  return keys
}

const keyOfChar = (char: string): Key => {
  switch (char) {
    case "k":
      return "up"
    case "j":
      return "down"
    case "\r":
    case "\n":
      return "enter"
    case "a":
      return "answer"
    case "y":
      return "yes"
    case "n":
      return "no"
    case "\x1b":
      return "back"
    case "q":
    case "\x03":
    case "\x04":
      return "quit"
    default:
      return "other"
  }
}

/** What a key asks of the program beyond the new state. */
export type Action =
  | { readonly _tag: "None" }
  | { readonly _tag: "Quit" }
  | { readonly _tag: "Attach"; readonly sessionId: string }
  /** Fetch the selected session's question (`asked` then shows it). */
  | { readonly _tag: "Ask"; readonly sessionId: string }
  | { readonly _tag: "Respond"; readonly sessionId: string; readonly toolCallId: string; readonly decision: "allow" | "deny" }

const none: Action = { _tag: "None" }

const move = (state: LiveState, by: number, limit: number): LiveState => {
  const listed = listedSessions(state, limit)
  const at = listed.findIndex((item) => item.sessionId === state.selected)
  const next = listed[Math.min(listed.length - 1, Math.max(0, at + by))]
  return { ...state, selected: next?.sessionId ?? state.selected, note: undefined }
}

/** One key: the new state and what to do. While a question shows, y and n answer it and Esc goes back. */
export const pressKey = (state: LiveState, key: Key, limit: number): { readonly state: LiveState; readonly action: Action } => {
  if (key === "quit") return { state, action: { _tag: "Quit" } }
  if (state.asking !== undefined) {
    const { sessionId, question } = state.asking
    if (key === "yes" || key === "no") {
      const decision = key === "yes" ? "allow" : "deny"
      return {
        state: { ...state, asking: undefined, note: `${decision === "allow" ? "allowed" : "denied"} ${question.tool} in ${sessionId}` },
        action: { _tag: "Respond", sessionId, toolCallId: question.toolCallId, decision }
      }
    }
    if (key === "back") return { state: { ...state, asking: undefined, note: undefined }, action: none }
    if (key === "enter") return { state: { ...state, asking: undefined }, action: { _tag: "Attach", sessionId } }
    return { state, action: none }
  }
  switch (key) {
    case "up":
      return { state: move(state, -1, limit), action: none }
    case "down":
      return { state: move(state, 1, limit), action: none }
    case "enter":
      return state.selected === undefined ? { state, action: none } : { state, action: { _tag: "Attach", sessionId: state.selected } }
    case "answer": {
      const item = state.selected === undefined ? undefined : state.sessions.get(state.selected)
      if (item === undefined) return { state, action: none }
      if (liveStatus(item) !== "waiting") return { state: { ...state, note: `${item.sessionId} waits for no answer` }, action: none }
      if (!state.answerable) return { state: { ...state, note: "no local host runs: answer in the terminal that runs the session" }, action: none }
      return { state: { ...state, note: undefined }, action: { _tag: "Ask", sessionId: item.sessionId } }
    }
    case "back":
      return { state: { ...state, note: undefined }, action: none }
    default:
      return { state, action: none }
  }
}

/**
 * The question fetched for `sessionId`: shown, unless the view moved on meanwhile. A plan is not
 * answered from the list: it is read whole in the session (Enter attaches).
 */
export const asked = (state: LiveState, sessionId: string, question: PendingPermission | undefined): LiveState => {
  if (question === undefined) return { ...state, note: `no question waits in ${sessionId} now` }
  if (question.plan !== undefined) return { ...state, note: `${sessionId} waits on a plan: Enter attaches to read and answer it` }
  return { ...state, asking: { sessionId, question }, note: undefined }
}
