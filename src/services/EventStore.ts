import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { EventStoreError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"

/** One line of a session listing; header fields come from the session's `session.created`. */
export interface SessionSummary {
  readonly sessionId: string
  readonly createdAt: string
  readonly updatedAt: string
  readonly lastSequence: number
  readonly cwd?: string
  readonly client?: string
  readonly title?: string
  readonly model?: string
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
}

export class EventStore extends Context.Tag("custom-agent/EventStore")<EventStore, EventStoreShape>() {}
