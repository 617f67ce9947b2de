import * as Clock from "effect/Clock"
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type EngineError, type EventStoreError, SessionNotFound } from "../domain/errors.js"
import { type AgentEvent, SCHEMA_VERSION } from "../domain/events.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { EventBusShape } from "../services/EventBus.js"
import type { EventStoreShape } from "../services/EventStore.js"
import type { IdsShape } from "../services/Ids.js"
import { type CommitLock, makeCommitLock } from "./commit-lock.js"
import type { ConversationOptions } from "./conversation.js"
import { applyEvent, emptySessionState, type SessionState } from "./session-state.js"

/** An event before the engine gives it an id, a sequence and a time. */
export type Draft = AgentEvent extends infer E
  ? E extends AgentEvent
    ? { readonly type: E["type"]; readonly payload: E["payload"]; readonly turnId?: string }
    : never
  : never

export interface RunningTurn {
  readonly cancel: Deferred.Deferred<void>
  readonly done: Deferred.Deferred<void>
  /** Holds the session's turn lease in the store (other processes see the turn runs); closed with the claim. */
  readonly lease: Scope.CloseableScope
}

/**
 * One live session, the only owner of what the session holds in memory: its state (a fold of
 * its log), the one path its events are committed by, the claim of the turn that runs, and
 * the guard of its inbox. Actors live in the engine's keyed map and go when idle; whatever
 * they hold is rebuilt from the log when the session is next used.
 */
export interface SessionActor {
  readonly state: SessionState
  /** Commits one event under the commit lock, uninterruptibly: appended, applied, published. */
  readonly commit: (draft: Draft) => Effect.Effect<AgentEvent, EventStoreError>
  /** Drafts that are ready together (a model answer's chunk) as one append, all or none. */
  readonly commitAll: (drafts: ReadonlyArray<Draft>) => Effect.Effect<ReadonlyArray<AgentEvent>, EventStoreError>
  /** Runs `effect` holding the commit lock; inside it, commit with `commitLocked`. */
  readonly withCommitLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly commitLocked: (draft: Draft) => Effect.Effect<AgentEvent, EventStoreError>
  /** The turn (or compaction) that holds the session, if any: at most one at a time. */
  readonly turn: Ref.Ref<Option.Option<RunningTurn>>
  /** Guards the inbox and the hand-over from one turn to the next: prompts, queue edits, steering. */
  readonly inboxLock: Effect.Semaphore
  /** Working through its prompts: a turn runs, or the next is about to start. */
  driving: boolean
}

export interface CommitServices {
  readonly store: EventStoreShape
  readonly ids: IdsShape
  readonly bus: EventBusShape
  /**
   * Told when the store refused an append as out of sequence: someone else (another process
   * on the same store) wrote to the session, so this state is stale and must not be used again.
   */
  readonly fenced: (sessionId: string) => Effect.Effect<void>
}

export const makeActor = (services: CommitServices, state: SessionState): Effect.Effect<SessionActor> =>
  Effect.map(Ref.make(Option.none<RunningTurn>()), (turn): SessionActor => {
    const { store, ids, bus } = services
    const lock: CommitLock = makeCommitLock()

    /**
     * Built in the catalogue's field order (turnId keeps its place when the draft's spread
     * repeats it), so what is written is byte for byte what a reader decodes. Not decoded
     * here: drafts are typed, and decoding each event cost about a tenth of a CLI step's CPU
     * (docs/performance.md); the test harnesses check every committed event instead.
     */
    const eventOf = (draft: Draft, id: string, sequence: number, timestamp: string): AgentEvent => ({
      id,
      schemaVersion: SCHEMA_VERSION,
      sessionId: state.sessionId,
      ...(draft.turnId === undefined ? {} : { turnId: draft.turnId }),
      sequence,
      timestamp,
      ...draft
    })

    /**
     * Reserve the next sequences, append, and advance the state only when the append
     * succeeded: a failed append leaves the numbers free for the retry. Then publish in order,
     * so no one hears of an event the store does not hold. Callers hold the lock.
     */
    const commitAllLocked = (drafts: ReadonlyArray<Draft>): Effect.Effect<ReadonlyArray<AgentEvent>, EventStoreError> =>
      Effect.gen(function* () {
        const timestamp = new Date(yield* Clock.currentTimeMillis).toISOString()
        const events: Array<AgentEvent> = []
        for (const draft of drafts) {
          events.push(eventOf(draft, yield* ids.make("evt"), state.lastSequence + 1 + events.length, timestamp))
        }
        yield* store.appendAll(events).pipe(Effect.tapErrorTag("SequenceConflict", () => services.fenced(state.sessionId)))
        for (const event of events) {
          applyEvent(state, event)
          yield* bus.publish(event)
        }
        return events
      })

    const commitLocked = (draft: Draft): Effect.Effect<AgentEvent, EventStoreError> =>
      Effect.flatMap(commitAllLocked([draft]), ([event]) =>
        event === undefined ? Effect.dieMessage("committing one draft gave no event") : Effect.succeed(event)
      )

    return {
      state,
      commit: (draft) => lock.withLock(commitLocked(draft)),
      commitAll: (drafts) => lock.withLock(commitAllLocked(drafts)),
      withCommitLock: lock.withLock,
      commitLocked,
      turn,
      inboxLock: Effect.unsafeMakeSemaphore(1),
      driving: false
    }
  })

/** Cold start: the session's state rebuilt from its log. */
export const loadActor = (
  services: CommitServices,
  sessionId: string,
  conversation: ConversationOptions
): Effect.Effect<SessionActor, EngineError> =>
  Effect.gen(function* () {
    const state = emptySessionState(sessionId, conversation)
    // A page of events at a time: an effect per event costs more than the fold itself on a long log.
    yield* services.store.replay(sessionId).pipe(
      Stream.runForEachChunk((events) =>
        Effect.sync(() => {
          for (const event of events) applyEvent(state, event)
        })
      )
    )
    if (state.lastSequence === 0) return yield* new SessionNotFound({ sessionId })
    return yield* makeActor(services, state)
  })

/** Records `mode` as the session's mode, compared under the lock so two clients setting it record it once. */
export const changeMode = (actor: SessionActor, mode: PermissionMode, by: string): Effect.Effect<Option.Option<AgentEvent>, EventStoreError> =>
  actor.withCommitLock(
    Effect.suspend(() =>
      actor.state.mode === mode ? Effect.succeedNone : Effect.asSome(actor.commitLocked({ type: "session.mode_changed", payload: { mode, by } }))
    )
  )

/** Makes `model` the one the session's turns ask, recorded as `session.model_changed` by `by`; none when it already is. */
export const changeModel = (actor: SessionActor, model: string, by: string): Effect.Effect<Option.Option<AgentEvent>, EventStoreError> =>
  actor.withCommitLock(
    Effect.suspend(() =>
      actor.state.header?.model === model ? Effect.succeedNone : Effect.asSome(actor.commitLocked({ type: "session.model_changed", payload: { model, by } }))
    )
  )

/** Takes the turn claim; false when a turn (or compaction) holds it already. */
export const claimTurn = (actor: SessionActor, running: RunningTurn): Effect.Effect<boolean> =>
  Ref.modify(actor.turn, (current) => (Option.isSome(current) ? [false, current] : [true, Option.some(running)]))
