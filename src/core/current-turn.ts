import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { EventStoreError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { Hooks } from "../services/Hooks.js"
import type { Draft } from "./session-actor.js"
import type { SessionState } from "./session-state.js"
import type { Delegation } from "./subagents.js"

/**
 * The session some work is on: a turn, or work outside any (a person's `/compact`, rewind or
 * redo; the SessionEnd hooks). Provided once where that work starts, read where it is needed.
 */
export interface CurrentSessionShape {
  readonly sessionId: string
  /** The session's state, kept up to date by its actor as events commit. */
  readonly state: SessionState
  readonly workspaceRoot: string
  /** The session's mode now, read live (Claude Code's `permission_mode` for hooks). */
  readonly mode: () => PermissionMode
  /** Commits one event (inside a turn, its budget and its listeners hear of it too). */
  readonly emit: (draft: Draft) => Effect.Effect<AgentEvent, EventStoreError>
  /** Commits events that are ready together in one append; none costs nothing. */
  readonly emitAll: (drafts: ReadonlyArray<Draft>) => Effect.Effect<ReadonlyArray<AgentEvent>, EventStoreError>
}

export class CurrentSession extends Context.Tag("custom-agent/CurrentSession")<CurrentSession, CurrentSessionShape>() {}

/** One running turn: everything its steps, tools, hooks, checkpoints and compaction share. */
export interface CurrentTurnShape extends CurrentSessionShape {
  readonly turnId: string
  /** The sequence of its `turn.started`: the default evidence of a memory it proposes. */
  readonly turnStart: number
  /**
   * Where the turn stands in a delegation tree (depth 0 and its own session for a top-level
   * turn): its tool calls are judged under `delegation.mode()` and `rootSessionId`'s permissions.
   */
  readonly delegation: Delegation
  /** The `traceparent` of a call's span (or the turn's, without a call), when tracing is on. */
  readonly traceparent?: (toolCallId?: string) => string | undefined
}

export class CurrentTurn extends Context.Tag("custom-agent/CurrentTurn")<CurrentTurn, CurrentTurnShape>() {}

/** What code that runs within a turn reads: the turn, which is also its session's current work. */
export type InTurn = CurrentTurn | CurrentSession

/** Runs `effect` as the turn's work: the turn is also its session's current work. */
export const withTurn =
  (turn: CurrentTurnShape) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, CurrentTurn | CurrentSession>> =>
    Effect.provide(effect, Context.make(CurrentTurn, turn).pipe(Context.add(CurrentSession, turn)))

/**
 * Runs `effect` as work on the session outside any turn: a turn it may be called from (a
 * session leaving memory as a turn lets go of it) is not its turn.
 */
export const withSession =
  (session: CurrentSessionShape) =>
  <A, E>(effect: Effect.Effect<A, E, CurrentSession | Hooks>): Effect.Effect<A, E, Hooks> =>
    Effect.mapInputContext(effect, (context: Context.Context<Hooks>) => Context.add(Context.omit(CurrentTurn)(context), CurrentSession, session))
