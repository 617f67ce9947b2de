import * as Effect from "effect/Effect"
import { CheckpointError } from "../../services/Checkpoints.js"
import { isObjectId, nulFields } from "./git.js"
import type { Repository } from "./repository.js"

/** Paths in one order everywhere (UTF-16 code units, as JavaScript sorts). */
export const sortedPaths = (paths: Iterable<string>): Array<string> => [...new Set(paths)].sort()

/** A caller's tree id, checked before it reaches a command line. */
export const checkedTreeId = (repository: Repository, treeId: string): Effect.Effect<string, CheckpointError> =>
  isObjectId(treeId)
    ? Effect.succeed(treeId)
    : Effect.fail(new CheckpointError({ workspaceRoot: repository.workspaceRoot, message: `not a tree id: ${JSON.stringify(treeId.slice(0, 100))}` }))

/** A path that differs between two trees; `removed` when only the first has it. */
export interface Change {
  readonly path: string
  readonly removed: boolean
}

/** What differs between two trees (added, removed, changed, another mode or type), sorted by path. */
export const changesBetween = (repository: Repository, from: string, to: string): Effect.Effect<Array<Change>, CheckpointError> =>
  from === to
    ? Effect.succeed([])
    : Effect.map(repository.run(["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to]), (out) => {
        // `-z --name-status`: a status letter, then its path, each NUL-terminated.
        const fields = nulFields(out)
        const changes: Array<Change> = []
        for (let i = 0; i + 1 < fields.length; i += 2) changes.push({ path: fields[i + 1] ?? "", removed: fields[i] === "D" })
        return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      })

/** Paths that differ between two trees, sorted. */
export const pathsBetween = (repository: Repository, from: string, to: string): Effect.Effect<Array<string>, CheckpointError> =>
  Effect.map(changesBetween(repository, from, to), (changes) => changes.map((change) => change.path))
