import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { type StoreFailure, TurnInProgress } from "../domain/errors.js"
import type { EventStoreShape } from "../services/EventStore.js"
import { claimTurn, type RunningTurn, type SessionActor } from "./session-actor.js"

/** At most one turn per session: its claim here, and its lease in the store. */
export interface TurnClaims {
  /**
   * Claims the turn here, then the session's lease in the store (a process sharing the store
   * may run a turn on it); fails with TurnInProgress when either is taken. A lease whose
   * holder may have died is waited for until it would have expired.
   */
  readonly claim: (actor: SessionActor) => Effect.Effect<RunningTurn, TurnInProgress | StoreFailure>
  /** Lets the claim go (the lease first) and tells whoever waits for the turn's end. */
  readonly release: (actor: SessionActor, running: RunningTurn) => Effect.Effect<void>
}

export const makeTurnClaims = (store: EventStoreShape, noteWork: (actor: SessionActor) => Effect.Effect<void>): TurnClaims => {
  const newRunningTurn = Effect.map(
    Effect.all([Deferred.make<void>(), Deferred.make<void>(), Scope.make()]),
    ([cancel, done, lease]): RunningTurn => ({ cancel, done, lease })
  )

  // The lease goes first: once the session is noted idle here, no other process sees it running either.
  const release = (actor: SessionActor, running: RunningTurn) =>
    Scope.close(running.lease, Exit.void).pipe(
      Effect.zipRight(Ref.set(actor.turn, Option.none())),
      Effect.zipRight(noteWork(actor)),
      Effect.zipRight(Deferred.succeed(running.done, undefined))
    )

  const claim = (actor: SessionActor): Effect.Effect<RunningTurn, TurnInProgress | StoreFailure> =>
    Effect.flatMap(newRunningTurn, (running) =>
      Effect.flatMap(claimTurn(actor, running), (claimed) => {
        const sessionId = actor.state.sessionId
        if (!claimed) return Effect.zipRight(Scope.close(running.lease, Exit.void), Effect.fail(new TurnInProgress({ sessionId })))
        return Effect.zipRight(noteWork(actor), Scope.extend(store.leases.hold(sessionId, { waitForExpiry: true }), running.lease)).pipe(
          Effect.flatMap((held) => (held ? Effect.succeed(running) : Effect.fail(new TurnInProgress({ sessionId, elsewhere: true })))),
          Effect.onError(() => release(actor, running))
        )
      })
    )

  return { claim, release }
}
