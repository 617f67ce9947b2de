import { RE2JS } from "re2js"
import { messageOf } from "../../domain/cause-message.js"

/**
 * Regular expressions that arrive from outside the agent (a model's grep pattern, a hook's
 * matcher, a glob or a `.gitignore` line turned into one) run on an RE2 engine: time linear
 * in the input whatever the pattern, so no pattern can stall the agent's one thread.
 * JavaScript's own engine backtracks: `^(a+)+$` on forty `a`s and a `b` takes minutes.
 */
export interface LinearRegex {
  readonly source: string
  /** Whether the pattern matches somewhere in `text`. */
  readonly test: (text: string) => boolean
}

/** Far above any real search pattern; compiling is not free either. */
export const MAX_PATTERN_CHARS = 8192

export interface RegexOptions {
  readonly ignoreCase?: boolean
  /** `.` matches a newline too (paths may hold one). */
  readonly dotAll?: boolean
}

/**
 * Compiles JavaScript regular-expression syntax (translated where RE2 spells it differently,
 * such as `\u00e9` and `(?<name>…)`). Throws an Error naming what is wrong, including the
 * features RE2 leaves out because they need backtracking: lookaround and backreferences.
 */
export const compileLinearRegex = (source: string, options: RegexOptions = {}): LinearRegex => {
  if (source.length > MAX_PATTERN_CHARS) throw new Error(`longer than ${MAX_PATTERN_CHARS} characters`)
  // The translation would turn a named backreference into literal text; refuse it instead.
  if (/(?:^|[^\\])(?:\\\\)*\\k</.test(source)) throw new Error(unsupported("backreferences (\\k<name>)"))
  let translated: string
  let compiled: RE2JS
  try {
    translated = RE2JS.translateRegExp(source)
    compiled = RE2JS.compile(translated, (options.ignoreCase === true ? RE2JS.CASE_INSENSITIVE : 0) | (options.dotAll === true ? RE2JS.DOTALL : 0))
  } catch (error) {
    throw new Error(explain(messageOf(error)), { cause: error })
  }
  return { source, test: (text) => compiled.test(text) }
}

const unsupported = (what: string) =>
  `${what} are not supported: patterns run on a linear-time engine (RE2 syntax, like ripgrep's), which has no lookaround or backreferences`

const explain = (message: string): string => {
  const detail = message.replace(/^error parsing regexp: /, "")
  if (/\(\?[=!<]/.test(detail)) return unsupported("lookarounds ((?=…), (?!…), (?<=…), (?<!…))")
  if (/invalid escape sequence: `\\[1-9]/.test(detail)) return unsupported("backreferences (\\1)")
  return detail
}
