import * as Effect from "effect/Effect"
import { lstatSync, readdirSync, type Stats } from "node:fs"
import { join } from "node:path"
import { isGitMetadataName } from "../../domain/git-names.js"
import { SandboxError } from "../../services/Sandbox.js"
import { readBoundedSync } from "../bounded-file.js"
import { errnoCode } from "../tools/fs-errors.js"
import type { ProtectedPath } from "./protected-paths.js"

/**
 * Git below the workspace's top level: the repositories nested in it (a clone kept inside the
 * project, a checked-out submodule) and the submodules its `.gitmodules` registers. A sandboxed
 * command that rewrote one's `.git` (its config's `core.fsmonitor`, a hook, a `.git` file's
 * `gitdir:`), or made a repository where a registered submodule was not checked out, would
 * have the user's next git run what it planted, on the host: `git status` at the top goes into
 * every checked-out submodule.
 */

/** The most folders the walk reads, breadth first (shallow repositories are found first). */
export const MAX_WALKED_FOLDERS = 10_000

/** The most submodules of the top-level `.gitmodules` held (a real one names far fewer). */
export const MAX_SUBMODULES = 512

/** A package manager's folder: what it installs carries no repository of the user's, and it is the bulk of most trees. */
const NOT_WALKED: ReadonlySet<string> = new Set(["node_modules"])

/**
 * Every `.git` (directory, file or link) and `.gitmodules` in the workspace but its top-level
 * `.git` (protected-paths.ts holds that one): read at most `maxFolders` folders, links not
 * followed, nothing inside a `.git` read (it is held whole).
 */
export const findNestedGit = (workspaceRoot: string, maxFolders: number = MAX_WALKED_FOLDERS): ReadonlyArray<string> => {
  const topLevel = join(workspaceRoot, ".git")
  const found: Array<string> = []
  const pending = [workspaceRoot]
  for (let next = 0; next < pending.length && next < maxFolders; next++) {
    const folder = pending[next] ?? workspaceRoot
    let entries
    try {
      entries = readdirSync(folder, { withFileTypes: true })
    } catch {
      // Gone or unreadable: nothing of it can be held, and git cannot read it either.
      continue
    }
    for (const entry of entries) {
      const path = join(folder, entry.name)
      if (isGitMetadataName(entry.name)) {
        if (path !== topLevel) found.push(path)
      } else if (entry.isDirectory() && !NOT_WALKED.has(entry.name)) {
        pending.push(path)
      }
    }
  }
  return found
}

/** One git config value as written after `=`: quotes, escapes and a trailing comment undone. */
const configValue = (raw: string): string => {
  let value = ""
  let quoted = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c === "\\") {
      const escaped = raw[++i]
      value += escaped === "n" ? "\n" : escaped === "t" ? "\t" : escaped === "b" ? "\b" : (escaped ?? "")
    } else if (c === '"') quoted = !quoted
    else if (!quoted && (c === "#" || c === ";")) break
    else value += c
  }
  return value.trim()
}

/**
 * The `path` of every `[submodule "..."]` section of a `.gitmodules` text, in order. A line git
 * would read otherwise only makes a path held that git does not use.
 */
export const submodulePaths = (text: string): ReadonlyArray<string> => {
  const paths: Array<string> = []
  let inSubmodule = false
  for (const line of text.split("\n")) {
    const section = /^\s*\[\s*([^\]\s"]+)/u.exec(line)
    if (section !== null) {
      inSubmodule = section[1]?.toLowerCase() === "submodule"
      continue
    }
    const key = /^\s*path\s*=(.*)$/iu.exec(line)
    if (inSubmodule && key !== null) {
      const path = configValue(key[1] ?? "")
      if (path !== "") paths.push(path)
    }
  }
  return paths
}

/** Where the top-level `.gitmodules` says its submodules' `.git` are (a file we cannot read says nothing). */
export const submoduleGitDirs = (workspaceRoot: string, max: number = MAX_SUBMODULES): ReadonlyArray<string> => {
  const read = readBoundedSync(join(workspaceRoot, ".gitmodules"))
  return read._tag === "text" ? submodulePaths(read.text).slice(0, max).map((path) => join(workspaceRoot, path, ".git")) : []
}

const lstatOrUndefined = (path: string): Effect.Effect<Stats | undefined, SandboxError> =>
  Effect.try({
    try: () => lstatSync(path, { throwIfNoEntry: false }),
    catch: (error) => error
  }).pipe(
    Effect.catchAll((error) =>
      // Under a file: it does not exist (planMounts says whether what is there can be held).
      errnoCode(error) === "ENOTDIR" ? Effect.succeed(undefined) : Effect.fail(new SandboxError({ message: `cannot inspect ${path}: ${String(error)}`, cause: error }))
    )
  )

/**
 * A nested `.git` directory whole, and its hooks and config by name where they are links: the
 * read-only directory holds a link, not where it leads (as for the top-level `.git`).
 */
const heldDirectory = (path: string): Effect.Effect<ReadonlyArray<ProtectedPath>, SandboxError> =>
  Effect.map(
    Effect.forEach(["hooks", "config"], (name) => Effect.map(lstatOrUndefined(join(path, name)), (stat) => (stat?.isSymbolicLink() === true ? [join(path, name)] : []))),
    (links): ReadonlyArray<ProtectedPath> => [{ path, kind: "directory" }, ...links.flat().map((link): ProtectedPath => ({ path: link, kind: "file" }))]
  )

/**
 * What the sandbox holds read-only for nested git: each of `found` (findNestedGit, possibly
 * from an earlier walk) that still exists, as it is now; and each registered submodule's `.git`,
 * a missing one as an empty directory while commands run, so that none can be made there.
 */
export const nestedGitPaths = (workspaceRoot: string, found: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<ProtectedPath>, SandboxError> =>
  Effect.gen(function* () {
    const held: Array<ProtectedPath> = []
    const seen = new Set<string>()
    const submodules = new Set(submoduleGitDirs(workspaceRoot))
    for (const path of [...found, ...submodules]) {
      if (seen.has(path)) continue
      seen.add(path)
      const stat = yield* lstatOrUndefined(path)
      if (stat === undefined) {
        if (submodules.has(path)) held.push({ path, kind: "directory" })
      } else if (stat.isDirectory()) {
        held.push(...(yield* heldDirectory(path)))
      } else {
        // A file (a `.git` file's `gitdir:`, a `.gitmodules`) or a link, which planMounts refuses to hold in the workspace.
        held.push({ path, kind: "file" })
      }
    }
    return held
  })
