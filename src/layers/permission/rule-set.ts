import { isAbsolute } from "node:path"
import type { PermissionRule } from "../../domain/permissions.js"
import type { PreparedCall } from "../../services/ToolRouter.js"
import { isWithin, realLocation } from "../tools/workspace-paths.js"
import { glob, type IndexedRule, rulePath } from "./rule-basics.js"
import { shellRuleVerdict } from "./shell-rules.js"


/** A call's paths, each as written and as it really lands (symlinks followed). */
export interface CallPaths {
  readonly lexical: ReadonlyArray<string>
  readonly real: ReadonlyArray<string>
}

export const callPaths = (call: PreparedCall): CallPaths => ({ lexical: call.paths, real: call.paths.map(realLocation) })

/**
 * A rule without `command`: a path glob or the whole tool. Allow needs every path, judged
 * where it really lands, and a path outside the workspace only ever by an absolute pattern.
 * Deny and ask need one path, as written or as resolved, so a link cannot hide a denied file.
 */
const otherRuleMatches = (rule: PermissionRule, call: PreparedCall, root: string, paths: CallPaths): boolean => {
  const allow = rule.decision === "allow"
  // A shell line the analysis could not read is never allowed, even by a tool-wide rule.
  if (allow && call.shell !== undefined && call.shell.unresolved.length > 0) return false
  if (allow && call.command !== undefined && call.shell === undefined) return false
  if (rule.path === undefined) return !allow || !call.outsideWorkspace
  if (call.paths.length === 0) return false
  const matches = glob(rule.path)
  if (allow) {
    const absolutePattern = isAbsolute(rule.path)
    return paths.real.every((p) => (isWithin(root, p) || absolutePattern) && matches(rulePath(root, p)))
  }
  return [...paths.lexical, ...paths.real].some((p) => matches(rulePath(root, p)))
}

const rank = { deny: 0, ask: 1, allow: 2 } as const

/**
 * The rules' answer for a call: deny before ask before allow, whatever their order, so an
 * allow rule listed first cannot shadow a deny. Within one decision the first rule counts
 * (user rules come before the project's). Undefined when no rule applies.
 */
export const ruleVerdict = (
  rules: ReadonlyArray<IndexedRule>,
  tool: string,
  call: PreparedCall,
  root: string,
  paths: CallPaths
): IndexedRule | undefined => {
  const applicable = rules.filter((r) => glob(r.rule.tool)(tool))
  const commandRules = applicable.filter((r) => r.rule.command !== undefined)
  const found: Array<IndexedRule> = applicable.filter((r) => r.rule.command === undefined && otherRuleMatches(r.rule, call, root, paths))
  if (commandRules.length > 0 && call.shell !== undefined) {
    const shell = shellRuleVerdict(commandRules, call.shell, root)
    // The shell verdict may differ from its rule's own decision: a deny rule that might match a
    // word only known at run time makes the call ask, naming that rule.
    if (shell !== undefined) found.push({ ...shell.rule, rule: { ...shell.rule.rule, decision: shell.decision } })
  }
  const position = (r: IndexedRule) => rules.findIndex((other) => other.source === r.source && other.index === r.index)
  let best: IndexedRule | undefined
  for (const candidate of found) {
    const better =
      best === undefined ||
      rank[candidate.rule.decision] < rank[best.rule.decision] ||
      (rank[candidate.rule.decision] === rank[best.rule.decision] && position(candidate) < position(best))
    if (better) best = candidate
  }
  return best
}
