import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { EventStoreError, StoreFailure } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { ListingHeader } from "../domain/session-listing.js"

/** One line of a session listing: the session's listing header (see ListingHeader) and its last event's sequence and time. */
export interface SessionSummary extends ListingHeader {
  readonly sessionId: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly lastSequence: number
}

/**
 * Who runs a session's turn, for every process sharing the store: a lease per session, held by
 * the session's actor while its turn runs and kept alive in the background. A holder that dies
 * without releasing it loses it once it expires (the store's expiry, a few seconds), so a log
 * whose turn is open while no lease is live was left open by a dead process. Stores whose data
 * only this process uses (memory, JSONL) keep leases in process memory.
 */
export interface TurnLeases {
  /**
   * Takes the session's lease for as long as the scope lasts: true once held, false when
   * another holder has it. With `waitForExpiry`, another holder is watched: one that renews its
   * lease is live (false, after a renewal interval), one that does not has died and its lease
   * is taken once expired (one expiry at most). Without, it answers at once.
   */
  readonly hold: (sessionId: string, options: { readonly waitForExpiry: boolean }) => Effect.Effect<boolean, StoreFailure, Scope.Scope>
  /** The sessions whose lease is live now. */
  readonly live: Effect.Effect<ReadonlySet<string>, StoreFailure>
}

/**
 * The append-only log, one sequence per session starting at 1, strictly increasing, no gaps.
 * Every layer rejects an event whose sequence is not exactly the next one (SequenceConflict)
 * and never re-reads history to append.
 */
export interface EventStoreShape {
  readonly append: (event: AgentEvent) => Effect.Effect<void, EventStoreError>
  /** All-or-nothing; every event must belong to the same session. */
  readonly appendAll: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<void, EventStoreError>
  /** Streams a session's events after `afterSequence` (default 0) in order, paging through storage. */
  readonly replay: (sessionId: string, afterSequence?: number) => Stream.Stream<AgentEvent, EventStoreError>
  /** The last sequence of a session, or none when it has no events. */
  readonly head: (sessionId: string) => Effect.Effect<Option.Option<number>, EventStoreError>
  /** Newest first. */
  readonly listSessions: Effect.Effect<ReadonlyArray<SessionSummary>, EventStoreError>
  /**
   * Removes the session's whole log and its listing line, all or nothing; one with no events
   * is nothing to do. Its id may be used again, starting at sequence 1. The caller holds the
   * session's turn lease, so no turn appends meanwhile (see the host's deleteSession).
   */
  readonly deleteSession: (sessionId: string) => Effect.Effect<void, EventStoreError>
  readonly leases: TurnLeases
}

export class EventStore extends Context.Tag("custom-agent/EventStore")<EventStore, EventStoreShape>() {}
