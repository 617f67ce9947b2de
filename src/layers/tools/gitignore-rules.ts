import { type GlobSyntax, markDotSegments, translateGlob } from "../patterns/glob.js"
import { compileLinearRegex, type LinearRegex } from "../patterns/linear-regex.js"

/** What one `.gitignore` says of a path: ignored, re-included by a `!` rule, or nothing. */
export interface GitignoreVerdict {
  readonly ignored: boolean
  readonly unignored: boolean
}

interface Rule {
  readonly negated: boolean
  readonly directoryOnly: boolean
  readonly regex: LinearRegex
}

/**
 * The rules of one `.gitignore`, with git's syntax (gitignore(5)), matched in linear time: a
 * cloned repository writes this file, and the backtracking matchers that globs usually
 * compile to take minutes on a line like `**\/a/**\/a/**\/a/**\/a/**\/c` against a deep path.
 * A line that cannot be translated is skipped, as git skips what it cannot use.
 */
export class GitignoreRules {
  private readonly rules: ReadonlyArray<Rule>

  constructor(text: string) {
    this.rules = text.split("\n").flatMap((line) => {
      const rule = parseLine(line)
      return rule === undefined ? [] : [rule]
    })
  }

  get empty(): boolean {
    return this.rules.length === 0
  }

  /**
   * The verdict for `relative` (`/`-separated, relative to the file's folder). Git never
   * looks inside an excluded folder, so a path under one is ignored whatever later rules say.
   */
  test(relative: string, isDirectory: boolean): GitignoreVerdict {
    const segments = relative.split("/")
    for (let end = 1; end < segments.length; end++) {
      if (this.lastMatch(segments.slice(0, end).join("/"), true)?.negated === false) return IGNORED
    }
    const rule = this.lastMatch(relative, isDirectory)
    return rule === undefined ? NEITHER : rule.negated ? UNIGNORED : IGNORED
  }

  private lastMatch(path: string, isDirectory: boolean): Rule | undefined {
    const marked = markDotSegments(path)
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]
      if (rule !== undefined && (isDirectory || !rule.directoryOnly) && rule.regex.test(marked)) return rule
    }
    return undefined
  }
}

const IGNORED: GitignoreVerdict = { ignored: true, unignored: false }
const UNIGNORED: GitignoreVerdict = { ignored: false, unignored: true }
const NEITHER: GitignoreVerdict = { ignored: false, unignored: false }

const GIT_SYNTAX: GlobSyntax = { braces: false, extglobs: false, trailingGlobstarMatchesFolder: false }

const parseLine = (raw: string): Rule | undefined => {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
  line = trimUnescapedTrailingSpaces(line)
  if (line === "" || line.startsWith("#")) return undefined
  const negated = line.startsWith("!")
  if (negated) line = line.slice(1)
  const directoryOnly = line.endsWith("/") && !line.endsWith("\\/")
  if (directoryOnly) line = line.slice(0, -1)
  if (line === "") return undefined
  // A slash at the start or in the middle anchors the pattern to this folder; otherwise it matches at any depth.
  const anchored = line.includes("/")
  if (line.startsWith("/")) line = line.slice(1)
  try {
    const body = translateGlob(line, GIT_SYNTAX)
    const regex = compileLinearRegex(anchored ? `^(?:${body})$` : `(?:^|/)(?:${body})$`, { dotAll: true })
    return { negated, directoryOnly, regex }
  } catch {
    return undefined
  }
}

const trimUnescapedTrailingSpaces = (line: string): string => {
  let end = line.length
  while (end > 0 && line[end - 1] === " " && line[end - 2] !== "\\") end--
  return line.slice(0, end)
}
