import * as Effect from "effect/Effect"
import { posix } from "node:path"
import { CheckpointError, type Restored } from "../../services/Checkpoints.js"
import { nulInput } from "./git.js"
import { snapshot } from "./snapshot.js"
import { type Change, changesBetween } from "./trees.js"
import type { Workspace } from "./workspace.js"

/**
 * A caller's path as a workspace-relative name ("" for the whole workspace), or undefined when
 * it is absolute or has a `..` segment: a restore never reaches outside the workspace.
 */
export const workspacePath = (path: string): string | undefined => {
  if (path === "" || path.includes("\0") || posix.isAbsolute(path) || path.split("/").includes("..")) return undefined
  const normal = posix.normalize(path).replace(/\/+$/, "")
  return normal === "." ? "" : normal
}

const within = (scope: ReadonlyArray<string>) => (path: string) =>
  scope.some((prefix) => prefix === "" || path === prefix || path.startsWith(`${prefix}/`))

/** The folders above each path ("a/b/c" -> "a", "a/b"). */
const foldersAbove = (paths: ReadonlyArray<string>): Set<string> => {
  const folders = new Set<string>()
  for (const path of paths) {
    for (let at = path.indexOf("/"); at !== -1; at = path.indexOf("/", at + 1)) folders.add(path.slice(0, at))
  }
  return folders
}

/**
 * What a restore of `scope` does with the changes: it checks out those in the scope, and names
 * too a file outside it that stands where one of them needs a folder (git replaces it with the
 * folder; passing it to checkout would also check out the rest of that folder).
 */
const plan = (changes: ReadonlyArray<Change>, scope: ReadonlyArray<string>) => {
  const inScope = changes.filter((change) => within(scope)(change.path))
  const inTheWay = foldersAbove(inScope.map((change) => change.path))
  return {
    remove: inScope.filter((change) => change.removed).map((change) => change.path),
    write: inScope.filter((change) => !change.removed).map((change) => change.path),
    touched: changes.filter((change) => inTheWay.has(change.path) || within(scope)(change.path)).map((change) => change.path)
  }
}

/**
 * Checks `paths` out of `treeId`; with `--no-overlay`, those the tree lacks are removed, with the
 * folders that leaves empty. Git writes files with their mode and symlinks as symlinks, and
 * replaces a symlinked folder on the way instead of writing through it.
 */
const checkout = (workspace: Workspace, treeId: string, paths: ReadonlyArray<string>) =>
  paths.length === 0
    ? Effect.void
    : Effect.asVoid(
        workspace.repository.run(["checkout", "--quiet", "--no-overlay", treeId, "--pathspec-from-file=-", "--pathspec-file-nul"], nulInput(paths))
      )

/**
 * Makes the workspace's kept files match `treeId`, or only those at or under `paths`. First the
 * workspace as it is is recorded as a checkpoint (so nothing kept is lost and our index matches
 * the disk), then what differs from `treeId` is checked out of it: removals first, then writes,
 * in two calls, because one call that writes `d` as a file drops the index entry `d/f` it was
 * also asked to remove, and then fails on it. Ignored and not-kept files are not in our index,
 * so they are never removed; one standing where the tree has a file is overwritten.
 */
export const restore = (workspace: Workspace, treeId: string, paths: ReadonlyArray<string> | undefined): Effect.Effect<Restored, CheckpointError> =>
  Effect.gen(function* () {
    const { repository } = workspace
    const scope: Array<string> = []
    for (const path of paths ?? ["."]) {
      const name = workspacePath(path)
      if (name === undefined) {
        return yield* new CheckpointError({ workspaceRoot: repository.workspaceRoot, message: `not a path inside the workspace: ${JSON.stringify(path)}` })
      }
      scope.push(name)
    }
    const now = yield* snapshot(workspace)
    const { remove, write, touched } = plan(yield* changesBetween(repository, now.treeId, treeId), scope)
    yield* checkout(workspace, treeId, remove)
    yield* checkout(workspace, treeId, write)
    return { treeId, paths: touched }
  })
