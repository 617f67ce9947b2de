import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type EngineError, type EventStoreError, TurnInProgress } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { RewindResult } from "../domain/rewind.js"
import { Checkpoints } from "../services/Checkpoints.js"
import { EventStore } from "../services/EventStore.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { compactHistory } from "./compaction.js"
import { type RedoRequest, redo, rewind, type RewindBasis, type RewindError, type RewindRequest } from "./rewind.js"
import { addEvent, emptyRewindHistory } from "./rewind-history.js"
import type { SessionActor } from "./session-actor.js"
import type { SessionLifecycle } from "./session-lifecycle.js"
import type { SessionRegistry } from "./session-registry.js"
import type { TurnClaims } from "./turn-claims.js"

/** A person's operations on a session that change its history, each only while no turn runs. */
export interface IdleOperations {
  /** `/compact`: the completed turns compacted now; none when there was nothing (new) to compact. */
  readonly compact: (sessionId: string) => Effect.Effect<Option.Option<AgentEvent>, EngineError>
  readonly rewind: (sessionId: string, request: RewindRequest) => Effect.Effect<RewindResult, EngineError | RewindError>
  readonly redo: (sessionId: string, request: RedoRequest) => Effect.Effect<RewindResult, EngineError | RewindError>
}

export interface IdleOperationsDeps {
  readonly registry: SessionRegistry
  readonly claims: TurnClaims
  readonly lifecycle: SessionLifecycle
}

export const makeIdleOperations = ({ registry, claims, lifecycle }: IdleOperationsDeps) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const gateway = yield* ModelGateway
    // Optional: without a checkpoint store only the conversation of a session that never recorded one can go back.
    const checkpoints = yield* Effect.serviceOption(Checkpoints)
    const { outsideTurn } = lifecycle

    /** Runs `use` on the session, recovered, holding its turn claim: refused with TurnInProgress while it works. */
    const whileIdle = <A, E>(sessionId: string, use: (actor: SessionActor) => Effect.Effect<A, E>): Effect.Effect<A, E | EngineError> =>
      registry.withRecovered(sessionId, (actor) =>
        Effect.gen(function* () {
          // Between two of a prompt's turns the claim is free, but the session still works.
          if (actor.driving) return yield* new TurnInProgress({ sessionId })
          const running = yield* claims.claim(actor)
          return yield* use(actor).pipe(Effect.ensuring(claims.release(actor, running)))
        })
      )

    /** What a rewind or redo works from: the session's log folded while the claim is held, so nothing is added meanwhile. */
    const rewindBasis = (actor: SessionActor): Effect.Effect<RewindBasis, EventStoreError> =>
      Effect.map(Stream.runFold(store.replay(actor.state.sessionId), emptyRewindHistory(), addEvent), (history) => ({ checkpoints, history }))

    const operations: IdleOperations = {
      compact: (sessionId) => whileIdle(sessionId, (actor) => compactHistory(gateway, "request").pipe(outsideTurn(actor))),
      rewind: (sessionId, request) =>
        whileIdle(sessionId, (actor) => Effect.flatMap(rewindBasis(actor), (basis) => rewind(basis, request)).pipe(outsideTurn(actor))),
      redo: (sessionId, request) =>
        whileIdle(sessionId, (actor) => Effect.flatMap(rewindBasis(actor), (basis) => redo(basis, request)).pipe(outsideTurn(actor)))
    }
    return operations
  })
