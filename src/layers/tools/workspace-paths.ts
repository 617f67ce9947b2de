import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"

/** A path a tool was given, resolved against the workspace. */
export interface WorkspacePath {
  /** Absolute and normalized (`..` folded), symlinks not followed: what the tool operates on. */
  readonly absolute: string
  /** Relative to the workspace root when inside it, else absolute: for people and models. */
  readonly display: string
  /** True when the path, with every symlink on it followed, lands outside the workspace root. */
  readonly outsideWorkspace: boolean
  /** Where the kernel resolves it (every link followed), as judged: file access opens only this file. */
  readonly real: string
}

/** Shown instead of a diff for a file outside the workspace, which is not read before the call is allowed. */
export const OUTSIDE_NOTE = "(outside the workspace, or reached through a link that leaves it: its current content is not shown before approval)"

/** How many symlinks to follow before giving up on a chain (the same bound as Linux's ELOOP). */
const MAX_LINK_HOPS = 40

/**
 * Resolves `input` (relative to the root, or absolute) and judges it against the root. The
 * judgement follows symlinks on the existing part of the path, including a dangling link
 * whose target does not exist yet, so a link inside the workspace that points out is caught.
 * Synchronous system calls: a few microseconds each, against a thread-pool trip apiece.
 */
export const resolveWorkspacePath = (workspaceRoot: string, input: string): Effect.Effect<WorkspacePath> =>
  Effect.sync(() => {
    const absolute = path.resolve(workspaceRoot, input)
    const realRoot = realpathOrSelf(workspaceRoot)
    const real = resolveExisting(absolute)
    const outsideWorkspace = !isWithin(realRoot, real) || !isWithin(workspaceRoot, absolute)
    return { absolute, display: displayPath(workspaceRoot, absolute), outsideWorkspace, real }
  })

/** `p` relative to the root when it lies inside, else `p` itself. */
export const displayPath = (workspaceRoot: string, p: string): string =>
  isWithin(workspaceRoot, p) ? path.relative(workspaceRoot, p) || "." : p

export const isWithin = (root: string, p: string): boolean => {
  const rel = path.relative(root, p)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

const realpathOrSelf = (p: string): string => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    // A root that cannot be resolved is judged as given; every path under it then compares lexically.
    return p
  }
}

/**
 * Where `p` really lands, judged as the kernel would: components from left to right, each
 * symlink followed where it stands (dangling ones too) before a later `..` applies, and a part
 * that does not exist yet judged by its nearest existing parent. `p` may hold `..` and `.`: a
 * shell passes `src/link/../x` to the kernel unfolded, and folding it first would judge
 * another file. A relative `p` is taken from the process's directory.
 */
export const realLocation = (p: string): string => {
  const absolute = path.isAbsolute(p) ? p : `${process.cwd()}${path.sep}${p}`
  try {
    // The whole path exists: the kernel resolves it in one call.
    return fs.realpathSync.native(absolute)
  } catch {
    // It, or a part of it, does not exist (or is a dangling link): walk it.
  }
  return walk(absolute, { hops: 0 })
}

const walk = (absolute: string, budget: { hops: number }): string => {
  let current = path.parse(absolute).root
  // Past a missing component nothing can be a link: the rest lands where it says.
  let missing = false
  for (const part of absolute.split(path.sep)) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      current = path.dirname(current)
      continue
    }
    const next = path.join(current, part)
    if (!missing) {
      const target = readLinkOrNull(next)
      if (target !== null && budget.hops < MAX_LINK_HOPS) {
        budget.hops++
        current = walk(path.isAbsolute(target) ? target : `${current}${path.sep}${target}`, budget)
        continue
      }
      if (!fs.existsSync(next)) missing = true
    }
    current = next
  }
  return current
}

/** The real location `p` would have: realpath of its longest existing prefix, dangling links followed. */
const resolveExisting = (p: string): string => realLocation(p)

const readLinkOrNull = (p: string): string | null => {
  try {
    return fs.readlinkSync(p)
  } catch {
    // Missing or not a symlink: the name stands for itself.
    return null
  }
}

/** `to` relative to `from`, with `/` separators whatever the platform: globs and output use them. */
export const relativePosix = (from: string, to: string): string => path.relative(from, to).split(path.sep).join("/")
