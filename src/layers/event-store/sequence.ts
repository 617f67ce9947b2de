import * as Effect from "effect/Effect"
import { SequenceConflict } from "../../domain/errors.js"
import type { AgentEvent } from "../../domain/events.js"

/** A batch that mixes sessions: a caller bug, so stores turn it into a defect. */
export interface MixedSessions {
  readonly _tag: "MixedSessions"
  readonly message: string
}

/**
 * The one rule every store enforces: a batch belongs to one session and continues its
 * sequence exactly (`last + 1`, `last + 2`, ...). Returns the first violation, or undefined.
 * Plain (no Effect) so a store's hot path can call it without allocating an effect per append.
 */
export const findSequenceProblem = (
  last: number,
  events: ReadonlyArray<AgentEvent>
): SequenceConflict | MixedSessions | undefined => {
  const first = events[0]
  if (first === undefined) return undefined
  let expected = last + 1
  for (const event of events) {
    if (event.sessionId !== first.sessionId) {
      return { _tag: "MixedSessions", message: `appendAll mixes sessions ${first.sessionId} and ${event.sessionId}` }
    }
    if (event.sequence !== expected) {
      return new SequenceConflict({ sessionId: event.sessionId, expected, actual: event.sequence })
    }
    expected++
  }
  return undefined
}

/** `findSequenceProblem` as an effect: a conflict fails, mixed sessions die. */
export const checkSequence = (
  last: number,
  events: ReadonlyArray<AgentEvent>
): Effect.Effect<void, SequenceConflict> =>
  Effect.suspend(() => {
    const problem = findSequenceProblem(last, events)
    if (problem === undefined) return Effect.void
    return problem._tag === "MixedSessions" ? Effect.dieMessage(problem.message) : Effect.fail(problem)
  })
