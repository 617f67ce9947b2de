import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { AgentEvent } from "../domain/events.js"

/**
 * Where the engine announces each event right after the store committed it, in sequence
 * order (flush, then publish). Publishing must not block: a slow reader is the bus's problem.
 */
export interface EventBusShape {
  readonly publish: (event: AgentEvent) => Effect.Effect<void>
  /** Announces that a session started (true) or stopped (false) working through its prompts. */
  readonly status: (sessionId: string, running: boolean) => Effect.Effect<void>
}

export class EventBus extends Context.Tag("custom-agent/EventBus")<EventBus, EventBusShape>() {}
