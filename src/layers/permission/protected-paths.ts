import { lstatSync } from "node:fs"
import { join } from "node:path"
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
 * Paths no rule or remembered answer may open: the agent's own configuration in the
 * workspace (`.custom-agent/`), Claude Code's project folder (its settings' hooks run, once
 * trusted, with the scripts beside them, and an edit would switch a trusted guard hook off) and the repository's `.git/` (hooks and
 * config run code later) for anything but reads, and the private places (the user's config and
 * data directories, the secret stores, what the user hides: private-places.ts) for any access.
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
  }
  return undefined
}
