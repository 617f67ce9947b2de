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
}

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
    const real = resolveExisting(absolute, 0)
    const outsideWorkspace = !isWithin(realRoot, real) || !isWithin(workspaceRoot, absolute)
    return { absolute, display: displayPath(workspaceRoot, absolute), outsideWorkspace }
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

/** The real location `p` would have: realpath of its longest existing prefix, dangling links followed. */
const resolveExisting = (p: string, hops: number): string => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    // Not resolvable as a whole: it or a parent is missing, or it is a dangling symlink.
  }
  const parent = path.dirname(p)
  if (parent === p) return p
  const realParent = resolveExisting(parent, hops)
  const target = readLinkOrNull(p)
  if (target !== null && hops < MAX_LINK_HOPS) return resolveExisting(path.resolve(realParent, target), hops + 1)
  return path.join(realParent, path.basename(p))
}

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
