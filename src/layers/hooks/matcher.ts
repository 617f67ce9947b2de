import { CLAUDE_TOOL_NAMES } from "../../domain/claude-tool-names.js"
import { compileLinearRegex } from "../patterns/linear-regex.js"

/** A tool's names a matcher may use: ours, and every Claude Code name read as it (`Bash` for `shell`, `Glob` and `LS` for `list_files`). */
const namesOf = (target: string): ReadonlyArray<string> => [
  target,
  ...Object.entries(CLAUDE_TOOL_NAMES).flatMap(([claude, ours]) => (ours === target ? [claude] : []))
]

const simpleMatcher = /^[A-Za-z0-9_|-]*$/

/**
 * Whether a matcher selects `target` (a tool name, or a start, compaction or end reason).
 * Absent, empty or `*`: everything. Letters, digits, `_`, `-` and `|` only: exact names
 * (`Edit|Write`). Anything else: a regular expression the whole name must match
 * (`mcp__github__.*`), on the linear-time engine (RE2 syntax). Tool names match under our name or Claude Code's. An invalid regular
 * expression matches nothing.
 */
export const matcherSelects = (matcher: string | undefined, target: string | undefined): boolean => {
  if (matcher === undefined || matcher === "" || matcher === "*") return true
  if (target === undefined) return false
  const names = namesOf(target)
  if (simpleMatcher.test(matcher)) {
    const wanted = matcher.split("|")
    return names.some((name) => wanted.includes(name))
  }
  try {
    const pattern = compileLinearRegex(`^(?:${matcher})$`)
    return names.some((name) => pattern.test(name))
  } catch {
    return false
  }
}
