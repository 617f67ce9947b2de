import { join } from "node:path"
import type { RiskClass } from "../../domain/tools.js"
import { isWithin, realLocation } from "../tools/workspace-paths.js"
import type { CallPaths } from "./rule-set.js"

/**
 * Paths no rule or remembered answer may open: the agent's own configuration in the
 * workspace (`.custom-agent/`), Claude Code's project folder (its settings' hooks run, once
 * trusted, with the scripts beside them, and an edit would switch a trusted guard hook off) and the repository's `.git/` (hooks and
 * config run code later) for anything but reads, and the user's config and data directories
 * for any access.
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
    ...(risk === "read" ? [] : [".custom-agent", ".claude", ".git"].flatMap((name) => [join(workspaceRoot, name), realLocation(join(workspaceRoot, name))])),
    ...privateDirectories.flatMap((dir) => [dir, realLocation(dir)])
  ]
  for (const p of [...paths.lexical, ...paths.real]) {
    if (guarded.some((dir) => isWithin(dir, p))) return p
  }
  return undefined
}
