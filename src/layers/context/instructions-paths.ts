import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/**
 * The nearest ancestor of `cwd` (itself included) that holds a `.git` entry: a folder, or a
 * file in a worktree or submodule. None when `cwd` is not inside a repository.
 */
export const findRepositoryRoot = (cwd: string): Effect.Effect<Option.Option<string>> =>
  Effect.promise(async () => {
    let dir = path.resolve(cwd)
    for (;;) {
      if (await exists(path.join(dir, ".git"))) return Option.some(dir)
      const parent = path.dirname(dir)
      if (parent === dir) return Option.none()
      dir = parent
    }
  })

/** The repository root of `cwd`, or `cwd` itself (resolved) outside a repository: where project files live. */
export const projectRoot = (cwd: string): Effect.Effect<string> =>
  Effect.map(findRepositoryRoot(cwd), Option.getOrElse(() => path.resolve(cwd)))

/** `root`, then every folder below it down to `cwd`, outermost first. Only `cwd` when it is not under `root`. */
export const foldersFromRoot = (root: string, cwd: string): ReadonlyArray<string> => {
  const rel = path.relative(root, cwd)
  if (rel === "") return [root]
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return [cwd]
  const folders = [root]
  let current = root
  for (const part of rel.split(path.sep)) {
    current = path.join(current, part)
    folders.push(current)
  }
  return folders
}

const exists = async (p: string): Promise<boolean> => {
  try {
    await fs.stat(p)
    return true
  } catch {
    // Missing or unreachable: either way not a repository marker we can use.
    return false
  }
}
