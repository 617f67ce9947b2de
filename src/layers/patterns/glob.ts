import { messageOf } from "../../domain/cause-message.js"
import { compileLinearRegex, MAX_PATTERN_CHARS } from "./linear-regex.js"

/**
 * Globs of permission rules, tool names and search filters, matched in linear time: the glob
 * is translated to an RE2 expression (see linear-regex.ts). A glob library that compiles to
 * JavaScript's backtracking engine takes minutes on `*a*a*a*a*a*a*a*c` against a long name,
 * and rules come from files a cloned repository may hold.
 *
 * The syntax is picomatch's with `dot: true` (what the rules were written for): `*` and `?`
 * within a segment, `**` as a whole segment for any depth, `[...]` classes (`!` or `^`
 * negates, POSIX classes), `{a,b}` alternatives and `{1..3}` ranges, `@(a|b)`, `?(…)`,
 * `+(…)`, `*(…)`, `\` escapes, a leading `!` negating the whole glob. Negated groups
 * (`!(…)`) need backtracking and are refused. Wildcards never match a `.` or `..` segment.
 */
export type GlobMatcher = (path: string) => boolean

/** Throws an Error naming what is wrong with the glob. */
export const compileGlob = (pattern: string): GlobMatcher => {
  if (pattern.length > MAX_PATTERN_CHARS) throw new Error(`longer than ${MAX_PATTERN_CHARS} characters`)
  const negated = pattern.startsWith("!") && !pattern.startsWith("!(")
  const body = stripDotSlash(negated ? pattern.slice(1) : pattern)
  const regex = compileLinearRegex(`^(?:${translateGlob(body, PICOMATCH_SYNTAX)})$`, { dotAll: true })
  return (path) => regex.test(markDotSegments(path)) !== negated
}

/** Why a glob cannot be used, or undefined when it can. */
export const globProblem = (pattern: string): string | undefined => {
  try {
    compileGlob(pattern)
    return undefined
  } catch (error) {
    return messageOf(error)
  }
}

const PICOMATCH_SYNTAX: GlobSyntax = { braces: true, extglobs: true, trailingGlobstarMatchesFolder: true }

const stripDotSlash = (pattern: string) => {
  let rest = pattern
  while (rest.startsWith("./")) rest = rest.slice(2)
  return rest
}

/** Stands for a `.` segment of a path; no wildcard matches it (nor a NUL, which no path holds). */
const DOT = "\u0000"

/** `.` and `..` segments of a path become DOT and DOT DOT, so only a literal `.` or `..` segment in a glob matches them. */
export const markDotSegments = (path: string): string =>
  path.includes(".")
    ? path
        .split("/")
        .map((segment) => (segment === "." ? DOT : segment === ".." ? DOT + DOT : segment))
        .join("/")
    : path

export interface GlobSyntax {
  /** `{a,b}` alternatives and `{1..3}` ranges (not in `.gitignore`). */
  readonly braces: boolean
  /** `@(…)`, `?(…)`, `+(…)`, `*(…)` groups (not in `.gitignore`). */
  readonly extglobs: boolean
  /** Whether `a/**` matches `a` itself (picomatch: yes; git: only what is inside). */
  readonly trailingGlobstarMatchesFolder: boolean
}

const ANY_CHAR = "[^/\\x00]"
/** A RANGE expansion bigger than this is refused rather than compiled. */
const MAX_RANGE = 1000

/**
 * The RE2 expression (unanchored) for a glob: `**` segments, `*`, `?`, classes, and, as
 * `syntax` allows, braces and extglob groups. Throws on what cannot be matched in linear time.
 */
export const translateGlob = (pattern: string, syntax: GlobSyntax): string =>
  // `**/**` means what one `**` means.
  new Translator(pattern.replace(/(^|\/)\*\*(?:\/\*\*)+(?=\/|$)/g, "$1**"), syntax).run()

class Translator {
  private i = 0
  constructor(
    private readonly pattern: string,
    private readonly syntax: GlobSyntax
  ) {}

  run(): string {
    const out = this.sequence(new Set())
    if (this.i < this.pattern.length) throw new Error(`unexpected "${this.pattern[this.i]}" at ${this.i + 1}`)
    return out
  }

  /** Translates until one of `stops` (unconsumed) at this nesting level, or the end. */
  private sequence(stops: ReadonlySet<string>): string {
    const p = this.pattern
    let out = ""
    while (this.i < p.length) {
      const c = p[this.i] ?? ""
      if (stops.has(c)) return out
      if (c === "\\") {
        const next = p[this.i + 1]
        this.i += next === undefined ? 1 : 2
        out += literal(next ?? "\\")
      } else if (c === "/" && p.startsWith("**", this.i + 1) && this.globstarEnds(this.i + 3) && p[this.i + 3] !== "/") {
        this.i += 3
        const inside = `/${ANY_SEGMENT}(?:/${ANY_SEGMENT})*`
        // As in picomatch, not right after a star: a star then a trailing globstar needs something inside.
        const folderToo = this.syntax.trailingGlobstarMatchesFolder && !out.endsWith(`${ANY_CHAR}*`)
        out += folderToo ? `(?:${inside})?` : inside
      } else if (c === "*" && p[this.i + 1] === "*" && this.atSegmentStart() && this.globstarEnds(this.i + 2)) {
        out += this.globstar()
      } else if (this.syntax.extglobs && "@?+*!".includes(c) && p[this.i + 1] === "(") {
        out += this.extglob(c)
      } else if (c === "*") {
        while (p[this.i] === "*") this.i++
        out += `${ANY_CHAR}*`
      } else if (c === "?") {
        this.i++
        out += ANY_CHAR
      } else if (c === "[") {
        out += this.bracket()
      } else if (c === "{" && this.syntax.braces) {
        out += this.brace()
      } else {
        this.i++
        out += literal(c)
      }
    }
    return out
  }

  private atSegmentStart(): boolean {
    return this.i === 0 || this.pattern[this.i - 1] === "/"
  }

  /** `**` is a globstar only as a whole segment: followed by `/` or the end of the glob or group. */
  private globstarEnds(at: number): boolean {
    const next = this.pattern[at]
    return next === undefined || next === "/" || next === "}" || next === "," || next === ")" || next === "|"
  }

  private globstar(): string {
    this.i += 2
    if (this.pattern[this.i] === "/") {
      this.i++
      // `**/`: zero or more whole segments.
      return `(?:${ANY_SEGMENT}/)*`
    }
    return `(?:${ANY_SEGMENT}(?:/${ANY_SEGMENT})*)?`
  }

  private extglob(kind: string): string {
    if (kind === "!") throw new Error("negated groups !(…) are not supported")
    const start = this.i
    this.i += 2
    const alternatives: Array<string> = []
    for (;;) {
      alternatives.push(this.sequence(new Set(["|", ")"])))
      const c = this.pattern[this.i]
      if (c === undefined) throw new Error(`unclosed group at ${start + 1}`)
      this.i++
      if (c === ")") break
    }
    const group = `(?:${alternatives.join("|")})`
    return kind === "@" ? group : `${group}${kind}`
  }

  /** `[...]`, or a literal `[` when nothing closes it. */
  private bracket(): string {
    const p = this.pattern
    const start = this.i
    let j = start + 1
    const negate = p[j] === "!" || p[j] === "^"
    if (negate) j++
    let body = ""
    let first = true
    while (j < p.length && (p[j] !== "]" || first)) {
      const c = p[j] ?? ""
      first = false
      if (c === "[" && p[j + 1] === ":") {
        const close = p.indexOf(":]", j + 2)
        if (close !== -1 && /^[a-z]+$/.test(p.slice(j + 2, close))) {
          body += p.slice(j, close + 2)
          j = close + 2
          continue
        }
      }
      if (c === "\\" && j + 1 < p.length) {
        body += classLiteral(p[j + 1] ?? "")
        j += 2
        continue
      }
      if (c === "-" && body !== "" && p[j + 1] !== "]" && j + 1 < p.length) {
        body += "-"
        j++
        continue
      }
      body += classLiteral(c)
      j++
    }
    if (j >= p.length) {
      this.i++
      return literal("[")
    }
    this.i = j + 1
    // A class never matches `/`, negated or not, like a shell's.
    return negate ? `[^/\\x00${body}]` : `(?:[${body}])`
  }

  /** `{a,b}` and `{1..3}`; a brace with neither is literal, as in picomatch. */
  private brace(): string {
    const start = this.i
    const close = this.closingBrace(start)
    if (close === -1) {
      this.i++
      return literal("{")
    }
    const inner = this.pattern.slice(start + 1, close)
    const range = /^(-?\d+)\.\.(-?\d+)$|^([a-zA-Z])\.\.([a-zA-Z])$/.exec(inner)
    if (range !== null) {
      this.i = close + 1
      return `(?:${expandRange(range).map(literal).join("|")}|${literal(`{${inner}}`)})`
    }
    if (!this.hasTopLevelComma(start + 1, close)) {
      this.i++
      return literal("{")
    }
    this.i++
    const alternatives: Array<string> = []
    for (;;) {
      alternatives.push(this.sequence(new Set([",", "}"])))
      const c = this.pattern[this.i]
      this.i++
      if (c === "}") break
    }
    return `(?:${alternatives.join("|")})`
  }

  private closingBrace(open: number): number {
    let depth = 0
    for (let j = open; j < this.pattern.length; j++) {
      const c = this.pattern[j]
      if (c === "\\") j++
      else if (c === "{") depth++
      else if (c === "}" && --depth === 0) return j
    }
    return -1
  }

  private hasTopLevelComma(from: number, to: number): boolean {
    let depth = 0
    for (let j = from; j < to; j++) {
      const c = this.pattern[j]
      if (c === "\\") j++
      else if (c === "{" || c === "(" || c === "[") depth++
      else if (c === "}" || c === ")" || c === "]") depth--
      else if (c === "," && depth === 0) return true
    }
    return false
  }
}

/** One path segment that is not `.` or `..` (those are marked, see markDotSegments). */
const ANY_SEGMENT = `${ANY_CHAR}+`

const expandRange = (range: RegExpExecArray): Array<string> => {
  const [from, to] =
    range[1] !== undefined && range[2] !== undefined
      ? [Number(range[1]), Number(range[2])]
      : [(range[3] ?? "a").charCodeAt(0), (range[4] ?? "a").charCodeAt(0)]
  const numeric = range[1] !== undefined
  const step = from <= to ? 1 : -1
  if (Math.abs(to - from) >= MAX_RANGE) throw new Error(`range {${range[0]}} has more than ${MAX_RANGE} values`)
  const values: Array<string> = []
  for (let v = from; step > 0 ? v <= to : v >= to; v += step) values.push(numeric ? String(v) : String.fromCharCode(v))
  return values
}

const literal = (c: string): string => {
  if (c === ".") return "\\."
  return /[\\^$.|?*+()[\]{}]/.test(c) ? `\\${c}` : c
}

const classLiteral = (c: string): string => (/[\\\]\[^-]/.test(c) ? `\\${c}` : c)
