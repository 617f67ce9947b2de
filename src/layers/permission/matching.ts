import picomatch from "picomatch"
import { isAbsolute, relative, sep } from "node:path"
import type { PermissionRule } from "../../domain/permissions.js"
import type { PreparedCall } from "../../services/ToolRouter.js"
import { hasWordPrefix, splitCommand } from "./shell-words.js"

const globCache = new Map<string, (s: string) => boolean>()
const glob = (pattern: string) => {
  let matcher = globCache.get(pattern)
  if (matcher === undefined) {
    matcher = picomatch(pattern, { dot: true })
    globCache.set(pattern, matcher)
  }
  return matcher
}

export const insideRoot = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel))
}

/** Paths as rules see them: relative to the workspace when inside it, absolute otherwise. */
const rulePath = (root: string, path: string) => (insideRoot(root, path) ? relative(root, path) || "." : path)

/**
 * Whether a rule applies to a call. Allow rules must cover the whole call (every simple
 * command, every path, and never an outside path unless their path pattern names it);
 * deny and ask rules apply when any part matches.
 */
export const ruleMatches = (rule: PermissionRule, tool: string, call: PreparedCall, workspaceRoot: string): boolean => {
  if (!glob(rule.tool)(tool)) return false
  const every = rule.decision === "allow"
  if (rule.command !== undefined) {
    if (call.command === undefined) return false
    const { parts, substitution } = splitCommand(call.command)
    const prefix = rule.command
    if (every) {
      if (substitution || parts.length === 0 || !parts.every((p) => hasWordPrefix(p, prefix))) return false
    } else if (!parts.some((p) => hasWordPrefix(p, prefix))) {
      return false
    }
  }
  if (rule.path !== undefined) {
    if (call.paths.length === 0) return false
    const matcher = glob(rule.path)
    const matches = (p: string) => matcher(rulePath(workspaceRoot, p))
    if (every ? !call.paths.every(matches) : !call.paths.some(matches)) return false
  } else if (every && call.outsideWorkspace) {
    // A broad allow never reaches outside the workspace: that takes a rule naming the path.
    return false
  }
  return true
}
