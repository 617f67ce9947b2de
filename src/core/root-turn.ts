import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { EventStoreError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { Draft } from "./session-actor.js"

/**
 * The top-level turn of a delegation tree, where its clients look for questions: a child's
 * permission questions are mirrored there. Provided by every turn a `task` call did not start
 * (a session's own, or a subagent's session prompted on its own); a child's turn runs in its
 * parent's scope, so it and its own children inherit it.
 */
export interface RootTurnShape {
  /** Commits an event in the top-level session's running turn. */
  readonly record: (draft: Draft) => Effect.Effect<AgentEvent, EventStoreError>
}

export class RootTurn extends Context.Tag("custom-agent/RootTurn")<RootTurn, RootTurnShape>() {}
