import { readBoundedSync } from "../bounded-file.js"
import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { ResolvedPlace } from "../private-places.js"
import { GitignoreRules } from "./gitignore-rules.js"
import { MovedError, readJudgedDirectory } from "./judged-open.js"
import { MOVED_WHILE_WALKED, placesBelow, refusedEntry, refusedLink, type WalkBounds } from "./walk-bounds.js"
import { isWithin } from "./workspace-paths.js"

/** Directory entries a listing or search looks at before giving up, so a huge unignored tree cannot stall a call. */
export const WALK_MAX_ENTRIES = 200_000

/** A file met on a walk. Symlinks are reported, never followed (no loops, no silent escapes). */
export interface WalkedFile {
  readonly absolute: string
  /** Where it really is (its folder as opened, and its name): a reader opens only that file. */
  readonly real: string
  readonly symlink: boolean
}

/** Mutable tallies of one walk, read by the caller once it is done. */
export interface WalkStats {
  /** Directory entries looked at. */
  entries: number
  /** True when the walk stopped at `maxEntries` before seeing everything. */
  truncated: boolean
  unreadableDirectories: number
  /** Entries left out unread (walk-bounds.ts), by why. */
  readonly skipped: Map<string, number>
}

export const newWalkStats = (): WalkStats => ({ entries: 0, truncated: false, unreadableDirectories: 0, skipped: new Map() })

/** Counts one entry left out for `why`. */
export const countSkipped = (stats: WalkStats, why: string): void => {
  stats.skipped.set(why, (stats.skipped.get(why) ?? 0) + 1)
}

interface WalkOptions {
  readonly signal: AbortSignal
  readonly maxEntries: number
  readonly stats: WalkStats
  readonly bounds: WalkBounds
}

interface IgnoreScope {
  readonly dir: string
  readonly rules: GitignoreRules
}

/**
 * The files under `base` in a stable order (entries sorted by name, depth first), skipping
 * `.git` and whatever the `.gitignore` files that apply say: the workspace's, from its root
 * down to `base`, and every nested one met on the way. A `base` that is itself ignored is
 * still walked, since it was asked for by name. What `bounds` refuses (a private place, a
 * link into one or out of the root) is left out and counted in `stats.skipped`.
 */
export async function* walkFiles(workspaceRoot: string, base: string, options: WalkOptions): AsyncGenerator<WalkedFile> {
  // `base` was named in the call and judged against the workspace with its symlinks
  // followed, so a symlink here is followed, unlike the ones met on the walk.
  if (!(await fs.stat(base)).isDirectory()) {
    yield { absolute: base, real: options.bounds.root, symlink: false }
    return
  }
  const inherited = ancestorScopes(workspaceRoot, base)
  const scopes = isIgnored(inherited, base, true) ? [] : inherited
  // The root is opened as judged or not at all: a link swapped in since is a refusal, not a walk elsewhere.
  const entries = await readJudgedDirectory(base, options.bounds.root)
  yield* walkEntries(base, options.bounds.root, entries, scopes, placesBelow(options.bounds.places, options.bounds.root), options)
}

async function* walkDirectory(
  dir: string,
  realDir: string,
  scopes: ReadonlyArray<IgnoreScope>,
  below: ReadonlyArray<ResolvedPlace>,
  options: WalkOptions
): AsyncGenerator<WalkedFile> {
  options.signal.throwIfAborted()
  let entries: Array<Dirent>
  try {
    entries = await readJudgedDirectory(dir, realDir)
  } catch (error) {
    // Neither ends the walk; the caller reports how many there were.
    if (error instanceof MovedError) countSkipped(options.stats, MOVED_WHILE_WALKED)
    else options.stats.unreadableDirectories++
    return
  }
  yield* walkEntries(dir, realDir, entries, scopes, below, options)
}

async function* walkEntries(
  dir: string,
  realDir: string,
  entries: Array<Dirent>,
  scopes: ReadonlyArray<IgnoreScope>,
  below: ReadonlyArray<ResolvedPlace>,
  options: WalkOptions
): AsyncGenerator<WalkedFile> {
  const rules = loadGitignore(realDir)
  const here = rules === undefined ? scopes : [...scopes, { dir, rules }]
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of entries) {
    if (options.stats.truncated) return
    if (entry.name === ".git") continue
    if (++options.stats.entries > options.maxEntries) {
      options.stats.truncated = true
      return
    }
    const absolute = path.join(dir, entry.name)
    const real = path.join(realDir, entry.name)
    const isDirectory = entry.isDirectory()
    if (isIgnored(here, absolute, isDirectory)) continue
    // Judged as a direct call of it would be: a link where it leads, anything else where it is.
    const refused = entry.isSymbolicLink() ? refusedLink(options.bounds, real) : refusedEntry(below, real)
    if (refused !== undefined) {
      countSkipped(options.stats, refused)
      continue
    }
    if (isDirectory) yield* walkDirectory(absolute, real, here, below.length === 0 ? below : placesBelow(below, real), options)
    else if (entry.isFile() || entry.isSymbolicLink()) yield { absolute, real, symlink: entry.isSymbolicLink() }
  }
}

/** The `.gitignore` scopes of the workspace root and each directory below it down to `base`'s parent. */
const ancestorScopes = (workspaceRoot: string, base: string): Array<IgnoreScope> => {
  if (!isWithin(workspaceRoot, base) || base === workspaceRoot) return []
  const dirs = [workspaceRoot]
  for (const step of path.relative(workspaceRoot, path.dirname(base)).split(path.sep)) {
    if (step !== "") dirs.push(path.join(dirs[dirs.length - 1] ?? workspaceRoot, step))
  }
  const scopes: Array<IgnoreScope> = []
  for (const dir of dirs) {
    const rules = loadGitignore(dir)
    if (rules !== undefined) scopes.push({ dir, rules })
  }
  return scopes
}

const loadGitignore = (dir: string): GitignoreRules | undefined => {
  // Bounded: a planted fifo or a link to a device must not hang or flood the walk. Usually there
  // is none; an unreadable one cannot be honoured, and walking on beats refusing the listing.
  const read = readBoundedSync(path.join(dir, ".gitignore"))
  if (read._tag !== "text") return undefined
  const rules = new GitignoreRules(read.text)
  return rules.empty ? undefined : rules
}

/** Git's precedence: the deepest `.gitignore` with a rule for the path decides, its last matching rule wins. */
const isIgnored = (scopes: ReadonlyArray<IgnoreScope>, absolute: string, isDirectory: boolean): boolean => {
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i]
    if (scope === undefined || !isWithin(scope.dir, absolute) || absolute === scope.dir) continue
    const relative = path.relative(scope.dir, absolute).split(path.sep).join("/")
    const verdict = scope.rules.test(relative, isDirectory)
    if (verdict.ignored) return true
    if (verdict.unignored) return false
  }
  return false
}
