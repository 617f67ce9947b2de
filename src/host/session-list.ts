import * as Effect from "effect/Effect"
import type { EngineError } from "../domain/errors.js"
import type { SessionListItem, SessionStatus } from "../domain/host.js"
import type { EventStoreShape, SessionSummary } from "../services/EventStore.js"

/** What only the live processes know of a session: whether a turn runs, and how many questions wait on an answer here. */
export interface LiveState {
  readonly running: boolean
  readonly waitingQuestions: number
}

/**
 * A session's line in the list. `running`: a turn runs (in this process, or in any process
 * sharing the store: its lease is live) or its inbox is being worked through here. A log with
 * an open turn that nobody runs was left by a process that died: `interrupted`. The questions
 * waiting on an answer and how the last turn ended are fields of their own, so a client that
 * predates them still reads the line.
 */
export const listItemOf = (summary: SessionSummary, live: LiveState): SessionListItem => {
  const { openTurnId, archived, ...line } = summary
  const { running, waitingQuestions } = live
  const status: SessionStatus = running ? "running" : openTurnId === undefined ? "idle" : "interrupted"
  return { ...line, running, status, archived: archived ?? false, ...(waitingQuestions > 0 ? { waitingQuestions } : {}) }
}

/**
 * Who is running now (this process's working sessions and every live turn lease of the store)
 * and the permission questions this process's turns wait on.
 */
export const liveNow = (
  store: EventStoreShape,
  working: Effect.Effect<ReadonlySet<string>>,
  questions: Effect.Effect<ReadonlyMap<string, number>>
): Effect.Effect<(sessionId: string) => LiveState, EngineError> =>
  Effect.map(Effect.all([working, store.leases.live, questions]), ([here, leased, waiting]) => (sessionId: string) => ({
    running: here.has(sessionId) || leased.has(sessionId),
    waitingQuestions: waiting.get(sessionId) ?? 0
  }))

/** The store's listing (newest activity first, archived ones too: clients filter) with each session's status. */
export const listSessionItems = (
  store: EventStoreShape,
  working: Effect.Effect<ReadonlySet<string>>,
  questions: Effect.Effect<ReadonlyMap<string, number>>
): Effect.Effect<ReadonlyArray<SessionListItem>, EngineError> =>
  Effect.map(Effect.zip(store.listSessions, liveNow(store, working, questions)), ([summaries, live]) =>
    summaries.map((summary) => listItemOf(summary, live(summary.sessionId)))
  )
