import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as RcMap from "effect/RcMap"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { type EngineError, type EventStoreError, SessionNotFound } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { PermissionMode } from "../domain/permissions.js"
import { EventBus } from "../services/EventBus.js"
import { EventStore } from "../services/EventStore.js"
import { Ids } from "../services/Ids.js"
import type { ConversationOptions } from "./conversation.js"
import { type CommitServices, type Draft, loadActor, type SessionActor } from "./session-actor.js"
import type { SessionHeader, SessionState } from "./session-state.js"

export interface SessionInfo {
  readonly header: SessionHeader
  readonly lastSequence: number
  readonly running: boolean
  readonly inbox: SessionState["inbox"]
  readonly mode: PermissionMode
}

export interface SessionRegistryOptions {
  readonly conversation: ConversationOptions
  /** How long a session nobody holds stays in memory. */
  readonly idleMs: number
  /** What leaving memory does (idle, or the engine stops): the SessionEnd hooks, the MCP servers' release. */
  readonly onRelease: (actor: SessionActor) => Effect.Effect<void>
}

/**
 * The live sessions, one actor each. Whoever uses one holds it (a running turn, a prompt's
 * back-to-back turns, a call); once none does for the idle time, it is evicted and the next use
 * loads it again from the log. Its lookup builds the session, as @effect/cluster's entity
 * manager builds an entity in its map's lookup: loaded from the log, or a session just created
 * handed over as it is; and `withRecovered` gives it recovered, so no caller recovers first.
 */
export interface SessionRegistry {
  /** The actor, held for the scope. A failed load is forgotten, so a later call tries again. */
  readonly hold: (sessionId: string) => Effect.Effect<SessionActor, EngineError, Scope.Scope>
  readonly withActor: <A, E>(sessionId: string, use: (actor: SessionActor) => Effect.Effect<A, E>) => Effect.Effect<A, E | EngineError>
  /**
   * The session as an operation on it opens it: held for the call, loaded from the log if it is
   * not live, and recovered (a turn a dead process left open is closed). A session not in the
   * store fails with SessionNotFound.
   */
  readonly withRecovered: <A, E>(
    sessionId: string,
    use: (actor: SessionActor, info: SessionInfo) => Effect.Effect<A, E>
  ) => Effect.Effect<A, E | EngineError>
  /** Runs `use` with a session just created (its first event committed) handed to the map's next lookup of it. */
  readonly adopt: <A, E, R>(actor: SessionActor, use: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** What `getSession` answers of a held actor (SessionNotFound for a log without its `session.created`). */
  readonly info: (actor: SessionActor) => Effect.Effect<SessionInfo, SessionNotFound>
  /** Drops the session's actor now; a holder keeps its own. */
  readonly evict: (sessionId: string) => Effect.Effect<void>
  /** What a new actor commits through: an out-of-sequence refusal drops the actor from the map. */
  readonly services: CommitServices
  /**
   * Closes a turn a dead process (or a failed store) left open. Checked under the commit lock:
   * only the holder of the turn claim, or whoever can take the session's lease while no turn
   * runs here, may close it.
   */
  readonly closeLeftOpen: (actor: SessionActor, holdsClaim: boolean) => Effect.Effect<Option.Option<AgentEvent>, EventStoreError>
  /** The one answer to "is this session working": a turn runs, or its inbox is being worked through. */
  readonly isWorking: (actor: SessionActor) => Effect.Effect<boolean>
  /** Keeps the `working` view true to `isWorking`; called where work starts and ends. */
  readonly noteWork: (actor: SessionActor) => Effect.Effect<void>
  /** The sessions working now, kept as their work starts and ends, so listing them touches (and keeps alive) no actor. */
  readonly working: Effect.Effect<ReadonlySet<string>>
}

export const makeSessionRegistry = (options: SessionRegistryOptions): Effect.Effect<SessionRegistry, never, Scope.Scope | EventStore | Ids | EventBus> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const ids = yield* Ids
    const bus = yield* EventBus
    const services: CommitServices = { store, ids, bus, fenced: (sessionId) => RcMap.invalidate(actors, sessionId) }

    /** Sessions just created, handed to the map's lookup (see `adopt`). */
    const created = new Map<string, SessionActor>()
    const lookup = (sessionId: string): Effect.Effect<SessionActor, EngineError> =>
      Effect.suspend(() => {
        const fresh = created.get(sessionId)
        created.delete(sessionId)
        return fresh === undefined ? loadActor(services, sessionId, options.conversation) : Effect.succeed(fresh)
      })

    const actors = yield* RcMap.make({
      lookup: (sessionId: string) => Effect.tap(lookup(sessionId), (actor) => Effect.addFinalizer(() => options.onRelease(actor))),
      idleTimeToLive: Duration.millis(options.idleMs)
    })

    const hold = (sessionId: string): Effect.Effect<SessionActor, EngineError, Scope.Scope> =>
      Effect.tapError(RcMap.get(actors, sessionId), () => RcMap.invalidate(actors, sessionId))

    const withActor = <A, E>(sessionId: string, use: (actor: SessionActor) => Effect.Effect<A, E>): Effect.Effect<A, E | EngineError> =>
      Effect.scoped(Effect.flatMap(hold(sessionId), use))

    const isWorking = (actor: SessionActor) => Effect.map(Ref.get(actor.turn), (turn) => actor.driving || Option.isSome(turn))

    const working = new Set<string>()
    const noteWork = (actor: SessionActor) =>
      Effect.flatMap(isWorking(actor), (running) =>
        Effect.sync(() => {
          if (running) working.add(actor.state.sessionId)
          else working.delete(actor.state.sessionId)
        })
      )

    const interrupted = (turnId: string): Draft => ({
      type: "turn.completed",
      turnId,
      payload: { stopReason: "error", errorCode: "interrupted", message: "the process stopped before this turn ended" }
    })

    const closeLeftOpen = (actor: SessionActor, holdsClaim: boolean): Effect.Effect<Option.Option<AgentEvent>, EventStoreError> =>
      actor.withCommitLock(
        Effect.gen(function* () {
          const leftOpen = actor.state.openTurnId
          if (leftOpen === undefined) return Option.none()
          if (holdsClaim) return Option.some(yield* actor.commitLocked(interrupted(leftOpen)))
          if (Option.isSome(yield* Ref.get(actor.turn))) return Option.none()
          // A turn another process runs holds the session's lease: only a turn nobody holds was left open.
          const close = (held: boolean) => (held ? Effect.asSome(actor.commitLocked(interrupted(leftOpen))) : Effect.succeedNone)
          return yield* Effect.scoped(Effect.flatMap(store.leases.hold(actor.state.sessionId, { waitForExpiry: false }), close))
        })
      )

    const infoOf = (actor: SessionActor): Effect.Effect<SessionInfo, SessionNotFound> =>
      Effect.gen(function* () {
        const header = actor.state.header
        if (header === undefined) return yield* new SessionNotFound({ sessionId: actor.state.sessionId })
        return { header, lastSequence: actor.state.lastSequence, running: yield* isWorking(actor), inbox: actor.state.inbox, mode: actor.state.mode }
      })

    return {
      hold,
      withActor,
      withRecovered: (sessionId, use) =>
        withActor(sessionId, (actor) => Effect.flatMap(Effect.zipRight(closeLeftOpen(actor, false), infoOf(actor)), (info) => use(actor, info))),
      adopt: (actor, use) =>
        Effect.suspend(() => {
          const sessionId = actor.state.sessionId
          created.set(sessionId, actor)
          // Taken by the map's lookup within `use`, so nothing stays behind here.
          return Effect.ensuring(use, Effect.sync(() => created.delete(sessionId)))
        }),
      info: infoOf,
      evict: (sessionId) => RcMap.invalidate(actors, sessionId),
      services,
      closeLeftOpen,
      isWorking,
      noteWork,
      working: Effect.sync(() => new Set(working))
    }
  })
