import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import type { CheckpointError, Snapshot } from "../../services/Checkpoints.js"
import { objectIdOf } from "./git.js"
import { stage } from "./stage.js"
import { pathsBetween } from "./trees.js"
import { type Head, remember, type Workspace } from "./workspace.js"

/**
 * A commit of the tree on top of the last checkpoint, and HEAD moved to it only if it still
 * points where we found it (another process may share the data directory). The commit chain
 * keeps every snapshot's tree reachable, so a future `git gc` would keep them; we never run one.
 */
const record = (workspace: Workspace, tree: string, parent: Head | undefined) =>
  Effect.gen(function* () {
    const { run } = workspace.repository
    const commit = objectIdOf(yield* run(["commit-tree", tree, ...(parent === undefined ? [] : ["-p", parent.commit]), "-m", "checkpoint"]))
    // An empty old value means "must not exist yet" for the first checkpoint.
    yield* run(["update-ref", "HEAD", commit, parent?.commit ?? ""])
    yield* remember(workspace, { commit, tree })
  })

/** Our index no longer holds what the last read staged (a drift or restore wrote it): the next snapshot reads the workspace. */
export const forgetRead = (workspace: Workspace): Effect.Effect<void> => Effect.zipRight(Ref.set(workspace.lastRead, undefined), workspace.watch.spoil)

/**
 * Reads the workspace and records what it finds. Unchanged since the last checkpoint: one
 * `git status`. Changed: that, `update-index`, `write-tree`, `commit-tree` and `update-ref`
 * (plus `diff-tree` when the index had been staged by a drift or restore, to name the changes).
 * The first snapshot of a workspace has no parent and names no changes.
 */
const read = (workspace: Workspace): Effect.Effect<Snapshot, CheckpointError> =>
  Effect.gen(function* () {
    const staged = yield* stage(workspace)
    const { head, tree, notKept } = staged
    if (head === undefined) {
      yield* record(workspace, tree, head)
      return { treeId: tree, changed: [], notKept }
    }
    if (head.tree === tree) return { treeId: tree, parent: head.tree, changed: [], notKept }
    yield* record(workspace, tree, head)
    const changed = staged.indexMatchedHead ? staged.touched : yield* pathsBetween(workspace.repository, head.tree, tree)
    return { treeId: tree, parent: head.tree, changed, notKept }
  })

/**
 * Records the workspace's kept files as they are now. When the watch proves that nothing
 * changed since the last read, that read is still HEAD's tree and it left nothing out for the
 * next one to take, no git process runs at all; otherwise the workspace is read. A read that does not finish leaves the next one to read too.
 */
export const snapshot = (workspace: Workspace): Effect.Effect<Snapshot, CheckpointError> =>
  Effect.gen(function* () {
    const last = yield* Ref.get(workspace.lastRead)
    const head = yield* Ref.get(workspace.head)
    if (last !== undefined && head?.tree === last.tree && (yield* workspace.watch.quiet)) {
      return { treeId: last.tree, parent: last.tree, changed: [], notKept: last.notKept }
    }
    yield* Ref.set(workspace.lastRead, undefined)
    yield* workspace.watch.arm
    const found = yield* read(workspace).pipe(Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : workspace.watch.spoil)))
    // Files left out by the per-snapshot cap are for the next read to take, changed or not.
    if (found.notKept.every((file) => file.reason !== "snapshot_too_large")) yield* Ref.set(workspace.lastRead, { tree: found.treeId, notKept: found.notKept })
    return found
  })
