import * as Effect from "effect/Effect"
import type { EngineError } from "../domain/errors.js"
import type { SessionListItem, SessionStatus } from "../domain/host.js"
import type { EventStoreShape, SessionSummary } from "../services/EventStore.js"

/**
 * A session's line in the list. `running`: a turn runs (in this process, or in any process
 * sharing the store: its lease is live) or its inbox is being worked through here. A log with
 * an open turn that nobody runs was left by a process that died: `interrupted`.
 */
export const listItemOf = (summary: SessionSummary, running: boolean): SessionListItem => {
  const { openTurnId, archived, ...line } = summary
  const status: SessionStatus = running ? "running" : openTurnId === undefined ? "idle" : "interrupted"
  return { ...line, running, status, archived: archived ?? false }
}

/** Who is running now: this process's working sessions and every live turn lease of the store. */
export const runningNow = (store: EventStoreShape, working: Effect.Effect<ReadonlySet<string>>): Effect.Effect<(sessionId: string) => boolean, EngineError> =>
  Effect.map(Effect.zip(working, store.leases.live), ([here, leased]) => (sessionId: string) => here.has(sessionId) || leased.has(sessionId))

/** The store's listing (newest activity first, archived ones too: clients filter) with each session's status. */
export const listSessionItems = (store: EventStoreShape, working: Effect.Effect<ReadonlySet<string>>): Effect.Effect<ReadonlyArray<SessionListItem>, EngineError> =>
  Effect.map(Effect.zip(store.listSessions, runningNow(store, working)), ([summaries, running]) =>
    summaries.map((summary) => listItemOf(summary, running(summary.sessionId)))
  )
