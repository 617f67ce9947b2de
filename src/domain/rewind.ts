import * as Schema from "effect/Schema"

/** Where a rewind goes: before a turn (1-based, in the order the session's turns started), or to an event's sequence. */
export const RewindTarget = Schema.Union(
  Schema.TaggedStruct("Turn", { turn: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)) }),
  Schema.TaggedStruct("Sequence", { sequence: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)) })
)
export type RewindTarget = typeof RewindTarget.Type

/** What a rewind restores: the workspace's files, the conversation the model sees, or both. */
export const RewindWhat = Schema.Literal("files", "conversation", "both")
export type RewindWhat = typeof RewindWhat.Type

/** What a rewind or redo did. */
export const RewindResult = Schema.Struct({
  /** Workspace-relative paths written or removed, sorted. */
  restoredPaths: Schema.Array(Schema.String),
  /** Paths changed by something other than the agent that were overwritten (only with `force`). */
  drift: Schema.Array(Schema.String),
  /** The conversation now continues from this sequence, when it was rewound. */
  conversationTo: Schema.optional(Schema.Int),
  /** The `checkpoint.recorded` the files came from, when files were restored. */
  checkpointSequence: Schema.optional(Schema.Int)
})
export type RewindResult = typeof RewindResult.Type

/**
 * Files changed since the session's last checkpoint by something other than the agent: a
 * restore would overwrite them, so nothing was changed. Asked again with `force`, it does.
 */
export class RewindDrift extends Schema.TaggedError<RewindDrift>()("RewindDrift", {
  paths: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.paths.length} file(s) changed since the session's last checkpoint by something other than the agent: ${this.paths.join(", ")}`
  }
}

/**
 * The rewind, redo or fork cannot be done: no checkpoint before that point, no such turn or
 * event, nothing to redo, no checkpoint store, ... `message` says which.
 */
export class RewindUnavailable extends Schema.TaggedError<RewindUnavailable>()("RewindUnavailable", {
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}
