import * as Effect from "effect/Effect"
import type { CheckpointError } from "../../services/Checkpoints.js"
import { stage } from "./stage.js"
import { pathsBetween } from "./trees.js"
import type { Workspace } from "./workspace.js"

/**
 * Kept paths where the workspace differs from `treeId`: the work tree is staged into our index
 * (as a snapshot would, without recording a checkpoint) and its tree compared with `treeId`.
 * Files left out now (over a cap) are not judged. Unchanged and equal to the last checkpoint:
 * one `git status`.
 */
export const drift = (workspace: Workspace, treeId: string): Effect.Effect<ReadonlyArray<string>, CheckpointError> =>
  Effect.gen(function* () {
    const staged = yield* stage(workspace)
    if (staged.tree === treeId) return []
    const leftOut = new Set(staged.notKept.map((file) => file.path))
    return (yield* pathsBetween(workspace.repository, treeId, staged.tree)).filter((path) => !leftOut.has(path))
  })
