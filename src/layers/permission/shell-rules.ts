import { isAbsolute } from "node:path"
import type { ShellAnalysis, ShellRedirect, SimpleCommand } from "../../domain/shell.js"
import { isWithin } from "../tools/workspace-paths.js"
import { glob, type IndexedRule, rulePath } from "./rule-basics.js"
import { commandReadings, GLOBAL_OPTIONS, programName } from "./shell-commands.js"
import { optionEnds } from "./shell-options.js"
import { type CommandPattern, formatPattern, parsePattern } from "./shell-pattern.js"
import { isSpecialTarget } from "./shell-targets.js"

/**
 * How `command` rules judge an analysed shell line (docs/shell-rules.md has the whole story).
 * Deny and ask rules apply when their words begin any reading of any simple command (wrappers
 * and global options seen through). Allow rules apply only when the line is fully understood
 * and every simple command, with its assignments and redirections, is covered exactly.
 */

export interface ShellRuleVerdict {
  readonly decision: "allow" | "deny" | "ask"
  /** The rule that decided. For "ask" it may be a deny rule that could apply but cannot be read statically. */
  readonly rule: IndexedRule
}

type Match = "yes" | "no" | "maybe"

/** A pattern's words against one reading: a word only known at run time may expand to anything, even several words. */
const readingMatches = (words: ReadonlyArray<string>, reading: ReadonlyArray<string | undefined>): Match => {
  for (let i = 0; i < words.length; i++) {
    if (i >= reading.length) return "no"
    const word = reading[i]
    if (word === undefined) return "maybe"
    const expected = i === 0 ? programName(words[0] ?? "") : words[i]
    if (word !== expected) return "no"
  }
  return "yes"
}

const readingsCache = new WeakMap<SimpleCommand, ReadonlyArray<ReadonlyArray<string | undefined>>>()
const readingsOf = (command: SimpleCommand) => {
  let readings = readingsCache.get(command)
  if (readings === undefined) {
    readings = commandReadings(command.words.map((w) => w.value))
    readingsCache.set(command, readings)
  }
  return readings
}

const targetMatches = (path: string, redirects: ReadonlyArray<ShellRedirect>, root: string) =>
  redirects.some((r) => [r.target, r.real].some((p) => p !== undefined && glob(path)(rulePath(root, p))))

/** Whether a deny or ask rule applies to a command. */
const restrictionMatches = (rule: IndexedRule["rule"], pattern: CommandPattern, command: SimpleCommand, root: string): Match => {
  if (rule.path !== undefined && !targetMatches(rule.path, command.redirects, root)) return "no"
  let assignments: Match = "yes"
  if (pattern.assignments.length > 0) {
    if (command.staticAssignments === undefined) assignments = "maybe"
    else if (!pattern.assignments.every((a) => command.staticAssignments?.includes(a) === true)) return "no"
  }
  let best: Match = "no"
  for (const reading of readingsOf(command)) {
    const match = readingMatches(pattern.words, reading)
    if (match === "yes") return assignments
    if (match === "maybe") best = "maybe"
  }
  return best
}

/** A redirection an allow rule (with this `path`, when it has one) covers. */
const redirectCovered = (redirect: ShellRedirect, path: string | undefined, root: string): boolean => {
  if (redirect.kind === "dup" || redirect.kind === "input") return true
  if (redirect.target === undefined) return false
  if (isSpecialTarget(redirect.target)) return true
  const real = redirect.real ?? redirect.target
  if (redirect.kind === "read" && isWithin(root, real)) return true
  if (path === undefined) return false
  return (isWithin(root, real) || isAbsolute(path)) && glob(path)(rulePath(root, real))
}

const sameList = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((x, i) => x === b[i])

/** Whether an allow pattern covers a command exactly: its words, its assignments, its redirections. */
const allowCovers = (pattern: CommandPattern, path: string | undefined, command: SimpleCommand, root: string): boolean => {
  const argv = command.argv
  if (argv === undefined || argv.length === 0) return false
  const assignments = command.assignments.length === 0 ? [] : command.staticAssignments
  if (assignments === undefined || !sameList(assignments, pattern.assignments)) return false
  const words = pattern.words
  const wordsMatch = pattern.rest ? argv.length >= words.length && words.every((w, i) => argv[i] === w) : sameList(argv, words)
  return wordsMatch && command.redirects.every((r) => redirectCovered(r, path, root))
}

/**
 * The `command` rules' answer for a line (rules already filtered to the call's tool, in
 * order): a deny rule matching any command denies; else an ask rule asks; else a deny or ask
 * rule that might match a word only known at run time asks; else allow when the line is fully
 * resolved and every command is covered by an allow rule; else undefined.
 */
export const shellRuleVerdict = (rules: ReadonlyArray<IndexedRule>, analysis: ShellAnalysis, workspaceRoot: string): ShellRuleVerdict | undefined => {
  const withPatterns = rules.flatMap((r) => (r.rule.command === undefined ? [] : [{ indexed: r, pattern: parsePattern(r.rule.command) }]))
  const restrictions = withPatterns.filter(({ indexed }) => indexed.rule.decision !== "allow")
  const found = (match: Match, decisions: ReadonlyArray<string>) =>
    restrictions.find(
      ({ indexed, pattern }) =>
        decisions.includes(indexed.rule.decision) &&
        analysis.commands.some((command) => restrictionMatches(indexed.rule, pattern, command, workspaceRoot) === match)
    )?.indexed
  const denied = found("yes", ["deny"])
  if (denied !== undefined) return { decision: "deny", rule: denied }
  const asked = found("yes", ["ask"]) ?? found("maybe", ["deny", "ask"])
  if (asked !== undefined) return { decision: "ask", rule: asked }

  if (analysis.unresolved.length > 0 || analysis.commands.length === 0) return undefined
  const allows = withPatterns.filter(({ indexed }) => indexed.rule.decision === "allow")
  let first: IndexedRule | undefined
  for (const command of analysis.commands) {
    const covering = allows.find(({ indexed, pattern }) => allowCovers(pattern, indexed.rule.path, command, workspaceRoot))
    if (covering === undefined) return undefined
    if (first === undefined || rules.indexOf(covering.indexed) < rules.indexOf(first)) first = covering.indexed
  }
  return first === undefined ? undefined : { decision: "allow", rule: first }
}

/** Tools remembered by subcommand (`git status *`) rather than by their exact words. */
const SUBCOMMAND_TOOLS = new Set([
  ...Object.keys(GLOBAL_OPTIONS),
  "npx",
  "bunx",
  "pnpx",
  "pip3",
  "poetry",
  "pdm",
  "dotnet",
  "deno",
  "tofu",
  "mvn",
  "gradle",
  "rustup",
  "conda",
  "brew"
])

/** Subcommands that name what they run in the next word (`npm run build`, `docker compose up`). */
const SECOND_LEVEL: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set(["run", "run-script", "exec", "x"]),
  pnpm: new Set(["run", "exec", "dlx"]),
  yarn: new Set(["run", "exec", "dlx"]),
  bun: new Set(["run", "x"]),
  docker: new Set(["compose", "container", "image", "network", "volume", "system", "buildx", "builder", "context", "plugin", "manifest"]),
  podman: new Set(["compose", "container", "image", "network", "volume", "system", "pod", "machine", "manifest"]),
  uv: new Set(["run", "tool", "pip"]),
  poetry: new Set(["run"]),
  pdm: new Set(["run"]),
  go: new Set(["mod", "tool", "work"])
}

const isOperand = (word: string | undefined): word is string => word !== undefined && !word.startsWith("-")

/** The prefix a person's answer stands for: a known tool's subcommand and anything after it, or the exact words. */
const prefixOf = (argv: ReadonlyArray<string>): string => {
  const name = argv[0] ?? ""
  if (!SUBCOMMAND_TOOLS.has(name)) return formatPattern(argv, false)
  const options = GLOBAL_OPTIONS[name]
  const ends = options === undefined ? [{ index: 1, unknown: false }] : optionEnds(argv, 1, options)
  const end = ends.length === 1 ? ends[0] : undefined
  if (end === undefined || end.unknown || !isOperand(argv[end.index])) return formatPattern(argv, false)
  const subcommand = argv[end.index] ?? ""
  const deeper = name === "gh" || SECOND_LEVEL[name]?.has(subcommand) === true
  if (deeper && !isOperand(argv[end.index + 1])) return formatPattern(argv, false)
  return formatPattern(argv.slice(0, end.index + (deeper ? 2 : 1)), true)
}

/**
 * Patterns to remember a person's answer by, one per simple command (`git status *`, or the
 * exact words for other programs). Undefined when nothing can be named safely: the line is
 * unresolved, or a command sets variables or writes to a file.
 */
export const shellPrefixes = (analysis: ShellAnalysis): ReadonlyArray<string> | undefined => {
  if (analysis.unresolved.length > 0 || analysis.commands.length === 0) return undefined
  const prefixes: Array<string> = []
  for (const command of analysis.commands) {
    const argv = command.argv
    if (argv === undefined || argv.length === 0 || command.assignments.length > 0) return undefined
    const writesFile = command.redirects.some((r) => r.kind === "write" && (r.target === undefined || !isSpecialTarget(r.target)))
    if (writesFile || command.redirects.some((r) => r.kind === "read" && r.target === undefined)) return undefined
    prefixes.push(prefixOf(argv))
  }
  return [...new Set(prefixes)]
}

/** Whether remembered prefixes cover a line: every command, as an allow rule without `path` would. */
export const prefixesCover = (prefixes: ReadonlyArray<string>, analysis: ShellAnalysis, workspaceRoot: string): boolean => {
  if (analysis.unresolved.length > 0 || analysis.commands.length === 0) return false
  const patterns = prefixes.map(parsePattern)
  return analysis.commands.every((command) => patterns.some((pattern) => allowCovers(pattern, undefined, command, workspaceRoot)))
}

/**
 * Whether remembered deny prefixes apply to a line: one of its commands, through wrappers and
 * global options as a deny rule sees it, but with the pattern's own end (`npm test` is that
 * command exactly, `npm test *` any further arguments), so a deny covers what was shown.
 * "maybe" when a word only known at run time could make a command one of them.
 */
export const prefixesDeny = (prefixes: ReadonlyArray<string>, analysis: ShellAnalysis): "yes" | "maybe" | "no" => {
  const patterns = prefixes.map(parsePattern)
  let best: "yes" | "maybe" | "no" = "no"
  for (const command of analysis.commands) {
    for (const reading of readingsOf(command)) {
      for (const pattern of patterns) {
        const match = readingMatches(pattern.words, reading)
        if (match === "maybe") best = "maybe"
        // An exact pattern needs the reading to end where it ends; a word only known at run time may be several words or none.
        else if (match === "yes") {
          if (pattern.rest || reading.length === pattern.words.length) return "yes"
          if (reading.slice(pattern.words.length).some((w) => w === undefined)) best = "maybe"
        }
      }
    }
  }
  return best
}
