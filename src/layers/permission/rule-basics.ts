import { compileGlob, type GlobMatcher } from "../patterns/glob.js"
import type { PermissionRule } from "../../domain/permissions.js"
import { isWithin } from "../tools/workspace-paths.js"

/** A rule and where it came from, so a decision can name it. */
export interface IndexedRule {
  readonly source: string
  readonly index: number
  readonly rule: PermissionRule
}

const globCache = new Map<string, GlobMatcher>()
/**
 * Compiled globs, one per distinct pattern in the rules files and remembered answers (a bounded
 * set). Rules files are checked for usable globs when read; a pattern that still cannot be
 * compiled (a remembered answer's) matches nothing, so it neither allows nor denies.
 */
export const glob = (pattern: string): GlobMatcher => {
  let matcher = globCache.get(pattern)
  if (matcher === undefined) {
    matcher = compileOrNothing(pattern)
    globCache.set(pattern, matcher)
  }
  return matcher
}

const compileOrNothing = (pattern: string): GlobMatcher => {
  try {
    return compileGlob(pattern)
  } catch {
    return () => false
  }
}

/** A path as rules see it: relative to the workspace when inside it, absolute otherwise. */
export const rulePath = (root: string, p: string) => (isWithin(root, p) ? p.slice(root.length + 1) || "." : p)
