import * as Effect from "effect/Effect"
import { Hooks, type HooksShape } from "../services/Hooks.js"
import { CurrentSession, type CurrentSessionShape, withSession } from "./current-turn.js"
import { recordRuns, runHooks } from "./hook-runs.js"
import type { SessionActor } from "./session-actor.js"

/** What starts and ends a session's life in this process, and work on it outside a turn. */
export interface SessionLifecycle {
  /** Runs `effect` as work on the actor's session outside a turn (`/compact`, rewind, SessionEnd). */
  readonly outsideTurn: (actor: SessionActor) => <A, E>(effect: Effect.Effect<A, E, CurrentSession | Hooks>) => Effect.Effect<A, E>
  /**
   * Asked by each turn as it starts: the SessionStart hooks' source when this is the actor's
   * first turn in this process (`startup` for the session's first turn, else `resume`), none after.
   */
  readonly sessionStart: (actor: SessionActor) => "startup" | "resume" | undefined
  /**
   * SessionEnd: when a session that ran a turn here leaves memory (idle, or the engine stops),
   * its hooks run and are recorded outside a turn. They cannot keep it.
   */
  readonly sessionEnd: (actor: SessionActor) => Effect.Effect<void>
}

export const makeSessionLifecycle = (hooks: HooksShape): SessionLifecycle => {
  /** The session as work outside a turn sees it: its events are committed in no turn. */
  const sessionOf = (actor: SessionActor): CurrentSessionShape => ({
    sessionId: actor.state.sessionId,
    state: actor.state,
    workspaceRoot: actor.state.header?.cwd ?? ".",
    mode: () => actor.state.mode,
    emit: actor.commit,
    emitAll: (drafts) => (drafts.length === 0 ? Effect.succeed([]) : actor.commitAll(drafts))
  })
  const outsideTurn =
    (actor: SessionActor) =>
    <A, E>(effect: Effect.Effect<A, E, CurrentSession | Hooks>): Effect.Effect<A, E> =>
      effect.pipe(withSession(sessionOf(actor)), Effect.provideService(Hooks, hooks))

  /** Actors whose SessionStart hooks ran (an evicted actor goes from here with it). */
  const started = new WeakSet<SessionActor>()

  return {
    outsideTurn,
    sessionStart: (actor) => {
      const source = started.has(actor) ? undefined : actor.state.turns.length === 1 ? "startup" : "resume"
      started.add(actor)
      return source
    },
    sessionEnd: (actor) =>
      Effect.suspend(() => {
        if (!started.has(actor)) return Effect.void
        return runHooks("SessionEnd", { reason: "other" }, "other").pipe(
          Effect.flatMap((runs) => recordRuns(runs, () => ({}))),
          outsideTurn(actor),
          Effect.catchAll((error) => Effect.logWarning(`could not record the SessionEnd hooks of ${actor.state.sessionId}`, error))
        )
      })
  }
}
