import picomatch from "picomatch"
import type { PermissionRule } from "../../domain/permissions.js"
import { isWithin } from "../tools/workspace-paths.js"

/** A rule and where it came from, so a decision can name it. */
export interface IndexedRule {
  readonly source: string
  readonly index: number
  readonly rule: PermissionRule
}

const globCache = new Map<string, (s: string) => boolean>()
/** Compiled globs, one per distinct pattern in the rules files and remembered answers (a bounded set). */
export const glob = (pattern: string) => {
  let matcher = globCache.get(pattern)
  if (matcher === undefined) {
    matcher = picomatch(pattern, { dot: true })
    globCache.set(pattern, matcher)
  }
  return matcher
}

/** A path as rules see it: relative to the workspace when inside it, absolute otherwise. */
export const rulePath = (root: string, p: string) => (isWithin(root, p) ? p.slice(root.length + 1) || "." : p)
