import { readBoundedSync } from "../bounded-file.js"
import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { GitignoreRules } from "./gitignore-rules.js"
import { isWithin } from "./workspace-paths.js"

/** Directory entries a listing or search looks at before giving up, so a huge unignored tree cannot stall a call. */
export const WALK_MAX_ENTRIES = 200_000

/** A file met on a walk. Symlinks are reported, never followed (no loops, no silent escapes). */
export interface WalkedFile {
  readonly absolute: string
  readonly symlink: boolean
}

/** Mutable tallies of one walk, read by the caller once it is done. */
export interface WalkStats {
  /** Directory entries looked at. */
  entries: number
  /** True when the walk stopped at `maxEntries` before seeing everything. */
  truncated: boolean
  unreadableDirectories: number
}

export const newWalkStats = (): WalkStats => ({ entries: 0, truncated: false, unreadableDirectories: 0 })

interface IgnoreScope {
  readonly dir: string
  readonly rules: GitignoreRules
}

/**
 * The files under `base` in a stable order (entries sorted by name, depth first), skipping
 * `.git` and whatever the `.gitignore` files that apply say: the workspace's, from its root
 * down to `base`, and every nested one met on the way. A `base` that is itself ignored is
 * still walked, since it was asked for by name.
 */
export async function* walkFiles(
  workspaceRoot: string,
  base: string,
  options: { readonly signal: AbortSignal; readonly maxEntries: number; readonly stats: WalkStats }
): AsyncGenerator<WalkedFile> {
  // `base` was named in the call and judged against the workspace with its symlinks
  // followed, so a symlink here is followed, unlike the ones met on the walk.
  if (!(await fs.stat(base)).isDirectory()) {
    yield { absolute: base, symlink: false }
    return
  }
  const inherited = await ancestorScopes(workspaceRoot, base)
  const scopes = isIgnored(inherited, base, true) ? [] : inherited
  yield* walkDirectory(base, scopes, options)
}

async function* walkDirectory(
  dir: string,
  scopes: ReadonlyArray<IgnoreScope>,
  options: { readonly signal: AbortSignal; readonly maxEntries: number; readonly stats: WalkStats }
): AsyncGenerator<WalkedFile> {
  options.signal.throwIfAborted()
  let entries: Array<Dirent>
  try {
    entries = await fs.readdir(dir, { withFileTypes: true })
  } catch {
    // An unreadable directory does not end the walk; the caller reports how many there were.
    options.stats.unreadableDirectories++
    return
  }
  const rules = await loadGitignore(dir)
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
    const isDirectory = entry.isDirectory()
    if (isIgnored(here, absolute, isDirectory)) continue
    if (isDirectory) yield* walkDirectory(absolute, here, options)
    else if (entry.isFile() || entry.isSymbolicLink()) yield { absolute, symlink: entry.isSymbolicLink() }
  }
}

/** The `.gitignore` scopes of the workspace root and each directory below it down to `base`'s parent. */
const ancestorScopes = async (workspaceRoot: string, base: string): Promise<Array<IgnoreScope>> => {
  if (!isWithin(workspaceRoot, base) || base === workspaceRoot) return []
  const dirs = [workspaceRoot]
  for (const step of path.relative(workspaceRoot, path.dirname(base)).split(path.sep)) {
    if (step !== "") dirs.push(path.join(dirs[dirs.length - 1] ?? workspaceRoot, step))
  }
  const scopes: Array<IgnoreScope> = []
  for (const dir of dirs) {
    const rules = await loadGitignore(dir)
    if (rules !== undefined) scopes.push({ dir, rules })
  }
  return scopes
}

const loadGitignore = async (dir: string): Promise<GitignoreRules | undefined> => {
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
