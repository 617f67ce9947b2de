import * as Effect from "effect/Effect"
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

/**
 * Records the workspace's kept files as they are now. Unchanged since the last checkpoint: one
 * `git status`. Changed: that, `update-index`, `write-tree`, `commit-tree` and `update-ref`
 * (plus `diff-tree` when the index had been staged by a drift or restore, to name the changes).
 * The first snapshot of a workspace has no parent and names no changes.
 */
export const snapshot = (workspace: Workspace): Effect.Effect<Snapshot, CheckpointError> =>
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
