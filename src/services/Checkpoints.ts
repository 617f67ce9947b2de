import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { NotKept } from "../domain/checkpoints.js"

// The schema lives in the domain (the event catalogue names what a snapshot left out).
export { NotKept } from "../domain/checkpoints.js"

/** One snapshot of a workspace's files: its tree id in the private store, and what changed since `parent`. */
export interface Snapshot {
  readonly treeId: string
  /** The tree it was compared with (the workspace's previous snapshot), if any. */
  readonly parent?: string
  /**
   * Workspace-relative paths added, changed, removed or whose mode changed since `parent`,
   * sorted; empty for a workspace's first snapshot (no parent).
   */
  readonly changed: ReadonlyArray<string>
  /** Every file this snapshot left out, named again by each snapshot while it stays out. */
  readonly notKept: ReadonlyArray<NotKept>
}

/** What a restore did: the paths it wrote or removed, relative to the workspace, sorted. */
export interface Restored {
  readonly treeId: string
  readonly paths: ReadonlyArray<string>
}

export class CheckpointError extends Schema.TaggedError<CheckpointError>()("CheckpointError", {
  workspaceRoot: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * Snapshots of workspaces' files in a private object store under the data directory (never the
 * user's `.git`). `.gitignore` is respected; files over the per-file cap, and files past the
 * per-snapshot cap, are left out and named. Paths are workspace-relative with `/` separators.
 * A workspace whose files make the store wait past its time limit may be turned off for the
 * rest of the process: then `snapshot`, `drift` and `restore` fail at once, saying why.
 */
export interface CheckpointsShape {
  /** Records the workspace as it is now; `changed` is empty when nothing changed since the last snapshot. */
  readonly snapshot: (workspaceRoot: string) => Effect.Effect<Snapshot, CheckpointError>
  /**
   * Paths whose content or mode in the workspace now differs from `treeId` (kept files only:
   * ignored and not-kept files are not judged). Empty when the workspace matches it.
   */
  readonly drift: (workspaceRoot: string, treeId: string) => Effect.Effect<ReadonlyArray<string>, CheckpointError>
  /**
   * Makes the workspace's files match `treeId` (all of them, or only those at or under `paths`,
   * workspace-relative, never absolute or with `..`): files in the tree are written with their
   * mode, kept files not in it are removed. Ignored and not-kept files are never removed. The
   * workspace as it was is recorded as a snapshot first, so the next snapshot's `parent` is that.
   */
  readonly restore: (
    workspaceRoot: string,
    treeId: string,
    paths?: ReadonlyArray<string>
  ) => Effect.Effect<Restored, CheckpointError>
  /** Paths that differ between two trees, sorted. */
  readonly changedBetween: (workspaceRoot: string, from: string, to: string) => Effect.Effect<ReadonlyArray<string>, CheckpointError>
}

export class Checkpoints extends Context.Tag("custom-agent/Checkpoints")<Checkpoints, CheckpointsShape>() {}
