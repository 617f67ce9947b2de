import * as Schema from "effect/Schema"

/** A file a snapshot left out, and why: it is over the size cap, the snapshot's total is, or we may not read it. */
export const NotKept = Schema.Struct({
  path: Schema.String,
  reason: Schema.Literal("file_too_large", "snapshot_too_large", "unreadable"),
  bytes: Schema.NonNegativeInt
})
export type NotKept = typeof NotKept.Type

/**
 * When a checkpoint was taken: before a step's first tool that may change the workspace runs
 * (the baseline a rewind returns to), or after the step's tools completed.
 */
export const CheckpointTrigger = Schema.Literal("before_tools", "after_tools")
export type CheckpointTrigger = typeof CheckpointTrigger.Type
