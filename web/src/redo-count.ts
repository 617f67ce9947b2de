import { Schema } from "effect"
import type { AgentEvent } from "../../src/domain/events.js"
import { sameRewindAction } from "../../src/domain/rewound.js"

const ActionMark = Schema.Struct({ sequence: Schema.Int, timestamp: Schema.String, by: Schema.String, redo: Schema.Boolean })
type ActionMark = typeof ActionMark.Type

/**
 * How many rewinds a Redo can still undo: each rewind adds one, each redo undoes the newest.
 * One person's rewind or redo is committed as one append (a restore per checkpoint it used,
 * then the conversation's), so adjacent rewind events with the same time, client and redo flag
 * are one action (`sameRewindAction`, the engine's rule).
 */
export const RedoCount = Schema.Struct({ redoable: Schema.NonNegativeInt, last: Schema.optional(ActionMark) })
export type RedoCount = typeof RedoCount.Type

export const noRedo: RedoCount = { redoable: 0 }

export const redoAfter = (count: RedoCount, event: AgentEvent): RedoCount => {
  if (event.type !== "checkpoint.restored" && event.type !== "conversation.rewound") return count.last === undefined ? count : { redoable: count.redoable }
  const mark: ActionMark = { sequence: event.sequence, timestamp: event.timestamp, by: event.payload.by, redo: event.payload.redo }
  if (sameRewindAction(count.last, mark)) return { ...count, last: mark }
  return { redoable: Math.max(0, count.redoable + (mark.redo ? -1 : 1)), last: mark }
}
