import { lstatSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { isGitMetadataName } from "../../domain/git-names.js"
import type { RiskClass } from "../../domain/tools.js"
import { isWithin, realLocation } from "../tools/workspace-paths.js"
import type { CallPaths } from "./rule-set.js"

/** The files that hold a project's rules, settings, hooks and servers. */
export const PROJECT_CONFIG_FILES: ReadonlyArray<string> = [
  ".custom-agent/permissions.json",
  ".custom-agent/settings.json",
  ".custom-agent/mcp.json",
  ".claude/settings.json"
]

/**
 * Where a project's configuration files that are links lead: the rules are read from there, so
 * that file is protected too (a link to `rules.json` in the workspace must not make
 * `rules.json` writable in accept-edits).
 */
export const linkedConfigTargets = (workspaceRoot: string): ReadonlyArray<string> =>
  PROJECT_CONFIG_FILES.flatMap((name) => {
    const file = join(workspaceRoot, name)
    try {
      return lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true ? [realLocation(file)] : []
    } catch {
      return []
    }
  })

/**
 * Whether `p` is, or lies in, a `.git` or a `.gitmodules` at any depth (see git-names.ts): a
 * nested repository's config or hooks run code on the host as surely as the top-level one's,
 * once anyone runs git there. Inside the workspace only its own part of the path counts, so a
 * workspace kept under such a name is not protected as a whole.
 */
export const isGitMetadataPath = (workspaceRoot: string, p: string): boolean => {
  const inside = isWithin(workspaceRoot, p)
  return (inside ? relative(workspaceRoot, p) : p).split(sep).some(isGitMetadataName)
}

/**
 * Paths no rule or remembered answer may open: the agent's own configuration in the
 * workspace (`.custom-agent/`), Claude Code's project folder (its settings' hooks run, once
 * trusted, with the scripts beside them, and an edit would switch a trusted guard hook off) and
 * every `.git` and `.gitmodules`, the top-level ones and those at any depth (hooks and config
 * run code later) for anything but reads, and the private places (the user's config and data
 * directories, the secret stores, what the user hides: private-places.ts) for any access.
 * Returns the first protected path a call touches, as the person will see it.
 */
export const protectedPathOf = (
  workspaceRoot: string,
  risk: RiskClass,
  paths: CallPaths,
  privateDirectories: ReadonlyArray<string>
): string | undefined => {
  const guarded = [
    // Judged where the kernel resolves them too: a `.claude` or `.custom-agent` that is a link
    // protects its target, so a write through another name for it is still refused.
    ...(risk === "read"
      ? []
      : [
          ...[".custom-agent", ".claude", ".git"].flatMap((name) => [join(workspaceRoot, name), realLocation(join(workspaceRoot, name))]),
          ...linkedConfigTargets(workspaceRoot)
        ]),
    ...privateDirectories.flatMap((dir) => [dir, realLocation(dir)])
  ]
  for (const p of [...paths.lexical, ...paths.real]) {
    if (guarded.some((dir) => isWithin(dir, p))) return p
    // Judged as written and where it really lands: a link to a nested `.git` is that `.git`.
    if (risk !== "read" && isGitMetadataPath(workspaceRoot, p)) return p
  }
  return undefined
}
