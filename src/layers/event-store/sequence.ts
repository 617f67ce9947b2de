import { Effect } from "effect"
import { SequenceConflict } from "../../domain/errors.js"
import type { AgentEvent } from "../../domain/events.js"

/**
 * The one rule every store enforces: a batch belongs to one session and continues its
 * sequence exactly (`last + 1`, `last + 2`, ...). Mixing sessions in a batch is a caller bug.
 */
export const checkSequence = (
  last: number,
  events: ReadonlyArray<AgentEvent>
): Effect.Effect<void, SequenceConflict> =>
  Effect.suspend(() => {
    const first = events[0]
    if (first === undefined) return Effect.void
    let expected = last + 1
    for (const event of events) {
      if (event.sessionId !== first.sessionId) {
        return Effect.dieMessage(`appendAll mixes sessions ${first.sessionId} and ${event.sessionId}`)
      }
      if (event.sequence !== expected) {
        return Effect.fail(new SequenceConflict({ sessionId: event.sessionId, expected, actual: event.sequence }))
      }
      expected++
    }
    return Effect.void
  })

/** The header a listing shows, taken from a session's first event when it is `session.created`. */
export const headerOf = (event: AgentEvent) =>
  event.type === "session.created"
    ? {
        cwd: event.payload.cwd,
        client: event.payload.client,
        ...(event.payload.title === undefined ? {} : { title: event.payload.title }),
        ...(event.payload.model === undefined ? {} : { model: event.payload.model })
      }
    : {}
