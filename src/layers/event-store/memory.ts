import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { AgentEvent } from "../../domain/events.js"
import { applyListingChange, headerOf, type ListingHeader, listingChange } from "../../domain/session-listing.js"
import { EventStore, type EventStoreShape, type SessionSummary } from "../../services/EventStore.js"
import { checkedIds } from "./checked-ids.js"
import { makeLocalLeases } from "./local-leases.js"
import { checkSequence } from "./sequence.js"

interface MemorySession {
  readonly events: Array<AgentEvent>
  readonly createdAt: string
  /** Kept current with each append (title, archived, open turn), so a listing reads no events. */
  header: ListingHeader
}

/** Keeps every session in process memory: for tests and embedding without persistence. */
export const make = Effect.sync((): EventStoreShape => {
  const sessions = new Map<string, MemorySession>()

  const appendAll = (events: ReadonlyArray<AgentEvent>) =>
    Effect.suspend(() => {
      const first = events[0]
      if (first === undefined) return Effect.void
      const session = sessions.get(first.sessionId)
      return checkSequence(session?.events.length ?? 0, events).pipe(
        Effect.tap(() =>
          Effect.sync(() => {
            const change = listingChange(events)
            if (session === undefined) {
              const header = applyListingChange(headerOf(first), change)
              sessions.set(first.sessionId, { events: [...events], createdAt: first.timestamp, header })
            } else {
              session.events.push(...events)
              session.header = applyListingChange(session.header, change)
            }
          })
        )
      )
    })

  const replay = (sessionId: string, afterSequence = 0) =>
    Stream.suspend(() => {
      const events = sessions.get(sessionId)?.events ?? []
      // Sequences are 1..n, so the event after `afterSequence` sits at that index.
      return Stream.fromIterable(events.slice(Math.max(0, afterSequence), events.length))
    })

  const summaryOf = (sessionId: string, session: MemorySession): SessionSummary => {
    const last = session.events[session.events.length - 1]
    return {
      sessionId,
      createdAt: session.createdAt,
      updatedAt: last?.timestamp ?? session.createdAt,
      lastSequence: session.events.length,
      ...session.header
    }
  }

  return checkedIds({
    append: (event) => appendAll([event]),
    appendAll,
    replay,
    head: (sessionId) =>
      Effect.sync(() => {
        const n = sessions.get(sessionId)?.events.length ?? 0
        return n === 0 ? Option.none() : Option.some(n)
      }),
    listSessions: Effect.sync(() =>
      [...sessions].map(([id, s]) => summaryOf(id, s)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    ),
    deleteSession: (sessionId) =>
      Effect.sync(() => {
        sessions.delete(sessionId)
      }),
    leases: makeLocalLeases()
  })
})

export const layer = Layer.effect(EventStore, make)
