import * as Effect from "effect/Effect"
import { isAbsolute, resolve } from "node:path"
import type { Node, Parser } from "web-tree-sitter"
import type { ShellAnalysis, ShellRedirect, ShellWord, SimpleCommand } from "../../domain/shell.js"
import { commandFacts, runsSubstitution } from "./shell-command-facts.js"
import { commandReadings } from "./shell-commands.js"
import { bashParser, type ShellParserError } from "./shell-parser.js"
import { realLocation } from "../tools/workspace-paths.js"
import { isSpecialTarget } from "./shell-targets.js"
import { assignmentValue, decodeAnsiC, wordValue, wordValues } from "./shell-word-value.js"

/**
 * A command line as bash reads it, from the tree-sitter bash grammar: every simple command
 * wherever it stands, with its words, assignments and redirections, and every reason the
 * line cannot be judged statically. Node types are handled from a list: anything else makes
 * the line unresolved, never silently skipped.
 */

export interface AnalyzeOptions {
  /** For `~` in words and redirection targets (default: $HOME). */
  readonly home?: string
}

/** `analyzeShell` with the parser it uses given. */
export const analyzeShellWith =
  (parser: Effect.Effect<Parser, ShellParserError>) =>
  (line: string, cwd: string, options: AnalyzeOptions = {}): Effect.Effect<ShellAnalysis> =>
    parser.pipe(
      Effect.flatMap((loaded) => Effect.sync(() => analyzeWith(loaded, line, cwd, options.home ?? process.env.HOME))),
      Effect.catchTag("ShellParserError", (error) =>
        Effect.as(Effect.logWarning(`the bash parser could not be loaded: ${error.message}`), {
          commands: [],
          unresolved: [`the shell parser could not be loaded: ${error.message}`]
        })
      )
    )

/**
 * Analyses `line` as run by `bash -c` in `cwd`. Never fails: when the parser cannot be
 * loaded the analysis is unresolved, so the call asks.
 */
export const analyzeShell = analyzeShellWith(bashParser)

/** Scripts inside scripts (`bash -c "eval '...'"`) are followed this deep. */
const MAX_DEPTH = 4

/** A command's words after brace expansion are read up to this count, and the rest are only known at run time. */
const MAX_WORDS = 1024

/** Constructs inside constructs (`$($($(...)))`) are followed this deep. */
const MAX_NESTING = 1000

interface State {
  readonly parser: Parser
  readonly cwd: string
  readonly home: string | undefined
  readonly commands: Array<SimpleCommand>
  readonly unresolved: Array<string>
  readonly relativeTargets: Array<string>
  changesDirectory: boolean
}

/** Redirections a `redirected_statement` hands to the command they belong to. */
interface Attached {
  readonly redirects: ReadonlyArray<ShellRedirect>
  /** Words the grammar put after a redirection that are the command's own arguments (`cmd > f arg`). */
  readonly extra: ReadonlyArray<Node>
  /** Where the redirections end in the source: a command's text runs to here. */
  readonly end: number
  /** The static text of its here-documents and here-strings. */
  readonly inputs: ReadonlyArray<string>
}

/** A redirection node read: what it does, the words the grammar hung on it that are the command's, and its static input text. */
interface ParsedRedirect {
  readonly redirects: ReadonlyArray<ShellRedirect>
  readonly extra: ReadonlyArray<Node>
  readonly inputs: ReadonlyArray<string>
}

const analyzeWith = (parser: Parser, line: string, cwd: string, home: string | undefined): ShellAnalysis => {
  const state: State = { parser, cwd, home, commands: [], unresolved: [], relativeTargets: [], changesDirectory: false }
  script(state, line, 0)
  if (state.changesDirectory && state.relativeTargets.length > 0) {
    state.unresolved.push(`the line changes directory, so where ${state.relativeTargets.join(", ")} lands is not known`)
  }
  return { commands: state.commands, unresolved: [...new Set(state.unresolved)] }
}

const script = (state: State, source: string, depth: number): void => {
  const tree = state.parser.parse(source)
  if (tree === null) {
    state.unresolved.push("the line could not be parsed")
    return
  }
  try {
    if (tree.rootNode.hasError) state.unresolved.push(`it does not parse as bash: ${clip(source)}`)
    const walker = new Walker(state, source, depth)
    walker.statement(tree.rootNode, [], undefined)
  } finally {
    tree.delete()
  }
}

const clip = (text: string) => {
  const oneLine = text.replace(/\s+/g, " ").trim()
  return oneLine.length > 80 ? `${oneLine.slice(0, 80)}…` : oneLine
}

const named = (node: Node): ReadonlyArray<Node> => node.namedChildren.filter((c): c is Node => c !== null)
const all = (node: Node): ReadonlyArray<Node> => node.children.filter((c): c is Node => c !== null)

/** Containers whose children are statements (and words, for `for`/`case`). */
const CONTAINERS = new Set(["program", "list", "pipeline", "subshell", "compound_statement", "do_group", "else_clause", "elif_clause", "if_statement", "while_statement", "for_statement", "case_statement", "case_item"])

const STATEMENTS = new Set([
  ...CONTAINERS,
  "command",
  "redirected_statement",
  "negated_command",
  "variable_assignment",
  "variable_assignments",
  "declaration_command",
  "unset_command",
  "test_command",
  "c_style_for_statement",
  "function_definition"
])

/** Word and expression nodes: walked for the substitutions inside them. */
const EXPRESSIONS = new Set([
  "word",
  "raw_string",
  "ansi_c_string",
  "string",
  "string_content",
  "translated_string",
  "concatenation",
  "number",
  "simple_expansion",
  "expansion",
  "variable_name",
  "special_variable_name",
  "array",
  "brace_expression",
  "extglob_pattern",
  "regex",
  "test_operator",
  "file_descriptor"
])

/** Nodes whose contents bash evaluates as arithmetic, where a `$(...)` inside a string runs. */
const ARITHMETIC = new Set(["arithmetic_expansion", "subscript", "binary_expression", "unary_expression", "ternary_expression", "postfix_expression", "parenthesized_expression"])

/** Words bash reads as syntax at the start of a command; the grammar seeing one as a command name has misread the line. */
const RESERVED = new Set(["!", "{", "}", "[[", "]]", "case", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select", "then", "until", "while"])

const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>"])

class Walker {
  constructor(
    readonly state: State,
    readonly source: string,
    readonly depth: number
  ) {}

  /** A command's text with the redirections handed to it, as a person would read it. */
  textOf(node: Node, attached: Attached | undefined) {
    return this.source.slice(node.startIndex, Math.max(node.endIndex, attached?.end ?? 0))
  }

  unresolved(reason: string) {
    this.state.unresolved.push(reason)
  }

  unsupported(node: Node) {
    this.unresolved(`unsupported bash construct (${node.type}): ${clip(node.text)}`)
  }

  /** How deep the walk is: a line nested past MAX_NESTING is unresolved rather than a stack overflow. */
  nesting = 0

  nested(node: Node, walk: () => void) {
    if (this.nesting >= MAX_NESTING) return this.unresolved(`constructs nested deeper than ${MAX_NESTING} levels: ${clip(node.text)}`)
    this.nesting++
    try {
      walk()
    } finally {
      this.nesting--
    }
  }

  statement(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined): void {
    this.nested(node, () => this.statementAt(node, inherited, attached))
  }

  statementAt(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined): void {
    switch (node.type) {
      case "comment":
        return
      case "command":
        return this.command(node, inherited, attached)
      case "redirected_statement":
        return this.redirected(node, inherited, attached)
      case "list":
      case "pipeline":
        return this.sequence(node, inherited, attached)
      case "negated_command": {
        for (const child of named(node)) this.statement(child, inherited, attached)
        return
      }
      case "variable_assignment":
      case "variable_assignments":
        return this.standaloneAssignments(node, inherited, attached)
      case "declaration_command":
      case "unset_command":
        return this.declaration(node, inherited, attached)
      case "test_command":
        return this.harmless(node, inherited, attached)
      case "compound_statement":
        if (node.child(0)?.type === "((") return this.harmless(node, inherited, attached)
        return this.compound(node, inherited, attached)
      case "c_style_for_statement":
        return this.compound(node, inherited, attached)
      case "function_definition":
        this.unresolved(`it defines a function: ${clip(node.text)}`)
        return this.compound(node, inherited, attached)
      case "ERROR":
        // Already unresolved (the tree has an error); what parsed is still read for deny rules.
        return this.broken(node, inherited)
      default:
        if (CONTAINERS.has(node.type)) return this.compound(node, inherited, attached)
        return this.unsupported(node)
    }
  }

  /**
   * What parsed inside an error node. A command word starting with a brace (`{touch,x} y`)
   * leaves its `{` as a token of its own before the command, or before a bare command name
   * and its arguments: joined back to the word, so deny rules see what bash runs.
   */
  broken(node: Node, inherited: ReadonlyArray<ShellRedirect>) {
    const children = named(node)
    children.forEach((child, i) => {
      const brace = this.bracesBefore(node, child)
      if ((child.type === "command" || child.type === "redirected_statement") && brace.length > 0) {
        return this.statement(child, inherited, { redirects: [], extra: brace, end: child.endIndex, inputs: [] })
      }
      if (STATEMENTS.has(child.type)) return this.statement(child, inherited, undefined)
      if (child.type !== "command_name") return
      const following = children.slice(i + 1)
      const stop = following.findIndex((c) => !EXPRESSIONS.has(c.type) || c.type === "variable_name")
      const parts = [...brace, ...all(child), ...(stop === -1 ? following : following.slice(0, stop))]
      this.record(clip(this.source.slice(parts[0]?.startIndex ?? child.startIndex, parts[parts.length - 1]?.endIndex ?? child.endIndex)), this.words(parts), [], inherited)
    })
  }

  /** The `{` tokens right before `child` in `node` (`{{a,b},c}` leaves two), in source order. */
  bracesBefore(node: Node, child: Node): ReadonlyArray<Node> {
    const tokens = all(node)
    const braces: Array<Node> = []
    let at = child.startIndex
    // Nodes are fresh objects on every access: found by position, not identity.
    const own = tokens.findIndex((t) => t.startIndex === child.startIndex && t.endIndex === child.endIndex && t.type === child.type)
    for (let i = own - 1; i >= 0; i--) {
      const token = tokens[i]
      if (token === undefined || token.isNamed || token.type !== "{" || token.endIndex !== at) break
      braces.unshift(token)
      at = token.startIndex
    }
    return braces
  }

  /** A list or pipeline: the grammar hangs `a && b > f` on the list, but bash gives `> f` to `b` alone. */
  sequence(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined) {
    const statements = named(node).filter((c) => c.type !== "comment")
    statements.forEach((child, i) => this.statement(child, inherited, i === statements.length - 1 ? attached : undefined))
  }

  /** A compound command: its redirections hold for every command inside. */
  compound(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined) {
    if (attached !== undefined && attached.extra.length > 0) this.unresolved(`words after a redirection of a compound command: ${clip(node.text)}`)
    const redirects = attached === undefined ? inherited : [...inherited, ...attached.redirects]
    const arithmetic = node.type === "c_style_for_statement"
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)
      if (child === null || !child.isNamed) continue
      const field = node.fieldNameForChild(i)
      if (node.type === "for_statement" && field === "variable") continue
      if (node.type === "function_definition" && field === "name") continue
      if (arithmetic && field !== "body") this.expression(child, true)
      else if (EXPRESSIONS.has(child.type) || child.type === "command_substitution" || child.type === "process_substitution" || ARITHMETIC.has(child.type)) {
        this.expression(child, false)
      } else if (field === "redirect") {
        // A function's own redirections apply when it runs, to every command in it.
        this.unresolved(`a redirection on a function definition: ${clip(node.text)}`)
      } else this.statement(child, redirects, undefined)
    }
  }

  /** `[[ ... ]]`, `[ ... ]` and `(( ... ))` run no command themselves; what they contain is still read. */
  harmless(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined) {
    for (const child of named(node)) {
      if (child.type === "redirected_statement") this.statement(child, inherited, undefined)
      else this.expression(child, true)
    }
    const redirects = [...inherited, ...(attached?.redirects ?? [])]
    if (attached !== undefined && attached.extra.length > 0) this.unresolved(`words after a redirection of a test: ${clip(node.text)}`)
    if (redirects.some((r) => (r.kind === "write" || r.kind === "read") && (r.target === undefined || !isSpecialTarget(r.target)))) {
      this.state.commands.push({ text: this.textOf(node, attached), words: [], argv: [], assignments: [], redirects })
    }
  }

  redirected(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined) {
    const redirects: Array<ShellRedirect> = [...(attached?.redirects ?? [])]
    const extra: Array<Node> = [...(attached?.extra ?? [])]
    const inputs: Array<string> = [...(attached?.inputs ?? [])]
    let body: Node | null = null
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)
      if (child === null || !child.isNamed) continue
      if (node.fieldNameForChild(i) === "body") body = child
      else if (child.type === "file_redirect" || child.type === "heredoc_redirect" || child.type === "herestring_redirect") {
        const parsed = this.redirect(child)
        redirects.push(...parsed.redirects)
        extra.push(...parsed.extra)
        inputs.push(...parsed.inputs)
      } else if (child.type !== "comment") this.unsupported(child)
    }
    const mine: Attached = { redirects, extra, inputs, end: Math.max(node.endIndex, attached?.end ?? 0) }
    if (body === null) {
      // `> file` alone creates or truncates the file: a command with no words, unless words follow.
      this.record(node.text, this.words(extra), [], [...inherited, ...redirects], inputs)
      return
    }
    this.statement(body, inherited, mine)
  }

  command(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined) {
    const parts: Array<Node> = [...(attached?.extra ?? [])]
    const inputs: Array<string> = [...(attached?.inputs ?? [])]
    const redirects: Array<ShellRedirect> = [...inherited]
    const assignments: Array<Node> = []
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)
      if (child === null) continue
      const field = node.fieldNameForChild(i)
      if (field === "name") parts.push(...all(child))
      else if (field === "argument") parts.push(child)
      else if (field === "redirect") {
        const parsed = this.redirect(child)
        redirects.push(...parsed.redirects)
        parts.push(...parsed.extra)
        inputs.push(...parsed.inputs)
      } else if (child.type === "variable_assignment") assignments.push(child)
      else if (child.type === "comment") continue
      else if (child.isNamed) this.unsupported(child)
    }
    redirects.push(...(attached?.redirects ?? []))
    const words = [...this.words(parts)]
    // The grammar reads the second `!` of `! ! cmd` as a command name; bash reads a negation.
    while (words[0]?.text === "!" && words.length > 1) words.shift()
    const first = words[0]?.text
    if (first !== undefined && RESERVED.has(first)) this.unresolved(`a reserved word where a command was expected: ${clip(node.text)}`)
    this.record(this.textOf(node, attached), words, assignments, redirects, inputs)
  }

  standaloneAssignments(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined) {
    const assignments = node.type === "variable_assignment" ? [node] : named(node).filter((c) => c.type === "variable_assignment")
    if (attached !== undefined && attached.extra.length > 0) this.unresolved(`words after a redirection of an assignment: ${clip(node.text)}`)
    this.record(this.textOf(node, attached), [], assignments, [...inherited, ...(attached?.redirects ?? [])])
  }

  /** `export A=1`, `declare -x B`, `unset C`: a command whose words include the assignments as written. */
  declaration(node: Node, inherited: ReadonlyArray<ShellRedirect>, attached: Attached | undefined) {
    const words: Array<ShellWord> = []
    for (const child of all(node)) {
      if (child.type === "comment") continue
      if (!child.isNamed) {
        words.push({ text: child.text, value: child.text })
        continue
      }
      if (child.type === "variable_name") {
        words.push({ text: child.text, value: child.text })
        continue
      }
      if (child.type === "variable_assignment") {
        const value = this.assignment(child)
        words.push(value === undefined ? { text: child.text } : { text: child.text, value })
        continue
      }
      this.expression(child, false)
      words.push(this.word([child]))
    }
    words.push(...this.words(attached?.extra ?? []))
    this.record(this.textOf(node, attached), words, [], [...inherited, ...(attached?.redirects ?? [])])
  }

  /** Walks an assignment's name and value; its static `NAME=value` text, or undefined. */
  assignment(node: Node): string | undefined {
    const name = node.childForFieldName("name")
    const value = node.childForFieldName("value")
    if (name !== null && name.type !== "variable_name") this.expression(name, true)
    if (value !== null) this.expression(value, false)
    const operator = all(node).find((c) => c.type === "=" || c.type === "+=")?.type ?? "="
    const text = assignmentValue(value)
    return name === null || name.type !== "variable_name" || text === undefined ? undefined : `${name.text}${operator}${text}`
  }

  record(
    text: string,
    words: ReadonlyArray<ShellWord>,
    assignmentNodes: ReadonlyArray<Node>,
    redirects: ReadonlyArray<ShellRedirect>,
    inputs: ReadonlyArray<string> = []
  ) {
    const statics = assignmentNodes.map((a) => this.assignment(a))
    const values = words.map((w) => w.value)
    const argv = values.every((v): v is string => v !== undefined) ? values : undefined
    const staticAssignments = statics.every((v): v is string => v !== undefined) ? statics : undefined
    this.state.commands.push({
      text,
      words,
      ...(argv === undefined ? {} : { argv }),
      assignments: assignmentNodes.map((a) => a.text),
      ...(staticAssignments === undefined ? {} : { staticAssignments }),
      redirects
    })
    if (words.length === 0) return
    const scripts = new Set<string>()
    for (const reading of commandReadings(values)) {
      const facts = commandFacts(reading)
      if (facts.unresolved !== undefined) this.unresolved(`${clip(text)}: ${facts.unresolved}`)
      if (facts.script !== undefined) scripts.add(facts.script)
      // `bash <<EOF ... EOF`: the here-document is the script.
      if (facts.runsInput === true) for (const input of inputs) scripts.add(input)
      if (facts.changesDirectory) this.state.changesDirectory = true
    }
    for (const code of scripts) {
      if (this.depth + 1 >= MAX_DEPTH) this.unresolved(`scripts nested deeper than ${MAX_DEPTH} levels`)
      else script(this.state, code, this.depth + 1)
    }
  }

  /**
   * The words these nodes make, in source order, with the commands inside them walked. A brace
   * expansion makes several words, each with the source text of the word it came from; past
   * MAX_WORDS the rest of it is one word only known at run time.
   */
  words(parts: ReadonlyArray<Node>): ReadonlyArray<ShellWord> {
    const sorted = [...parts].sort((a, b) => a.startIndex - b.startIndex)
    for (const part of sorted) this.expression(part, false)
    const words: Array<ShellWord> = []
    for (const group of this.group(sorted)) {
      const text = this.span(group)
      const { values, complete } = wordValues(group, this.state.home, Math.max(0, MAX_WORDS - words.length))
      for (const value of values) words.push(value === undefined ? { text } : { text, value })
      if (!complete) {
        this.unresolved(`a brace expansion makes more than ${MAX_WORDS} words: ${clip(text)}`)
        words.push({ text })
      }
    }
    return words
  }

  /** Adjacent nodes form one word (`a"b"'c'`, `$"..."`); a backslash-newline between them joins them too. */
  group(parts: ReadonlyArray<Node>): ReadonlyArray<ReadonlyArray<Node>> {
    const groups: Array<Array<Node>> = []
    let previous: Node | undefined
    for (const part of parts) {
      const last = groups[groups.length - 1]
      const gap = previous === undefined ? " " : this.source.slice(previous.endIndex, part.startIndex)
      if (last !== undefined && /^(?:\\\n)*$/.test(gap)) last.push(part)
      else groups.push([part])
      previous = part
    }
    return groups
  }

  /** The source text of adjacent nodes. */
  span(group: ReadonlyArray<Node>): string {
    const first = group[0]
    const last = group[group.length - 1]
    return first === undefined || last === undefined ? "" : this.source.slice(first.startIndex, last.endIndex)
  }

  /** One word where bash makes one (a declaration's argument): a brace expression is not static there. */
  word(group: ReadonlyArray<Node>): ShellWord {
    const text = this.span(group)
    const value = wordValue(group, this.state.home)
    return value === undefined ? { text } : { text, value }
  }

  /** A redirection node: what it does, and any words the grammar attached to it that belong to the command. */
  redirect(node: Node): ParsedRedirect {
    switch (node.type) {
      case "file_redirect":
        return this.fileRedirect(node)
      case "heredoc_redirect":
        return this.heredoc(node)
      case "herestring_redirect": {
        const [first, ...rest] = this.group(named(node).filter((c) => c.type !== "file_descriptor"))
        for (const part of first ?? []) this.expression(part, false)
        const input = first === undefined ? undefined : wordValue(first, this.state.home)
        return { redirects: [{ kind: "input", text: this.spanFrom(node, first) }], extra: rest.flat(), inputs: input === undefined ? [] : [input] }
      }
      default:
        this.unsupported(node)
        return { redirects: [], extra: [], inputs: [] }
    }
  }

  spanFrom(node: Node, until: ReadonlyArray<Node> | undefined) {
    const end = until?.[until.length - 1]?.endIndex ?? node.endIndex
    return this.source.slice(node.startIndex, end)
  }

  fileRedirect(node: Node): ParsedRedirect {
    const operator = all(node).find((c) => !c.isNamed)?.type ?? ""
    const [first, ...rest] = this.group(node.childrenForFieldName("destination").filter((c): c is Node => c !== null))
    // Only the target is walked here: the words after it are the command's, walked with its other words.
    for (const part of first ?? []) this.expression(part, false)
    const extra = rest.flat()
    const text = this.spanFrom(node, first)
    if (operator === ">&-" || operator === "<&-") return { redirects: [{ kind: "dup", text }], extra, inputs: [] }
    const value = first === undefined ? undefined : wordValue(first, this.state.home)
    if ((operator === ">&" || operator === "<&") && value !== undefined && /^(\d+|-)$/.test(value)) {
      return { redirects: [{ kind: "dup", text }], extra, inputs: [] }
    }
    const kind = WRITE_OPERATORS.has(operator) || operator === ">&" ? "write" : operator === "<" || operator === "<&" ? "read" : undefined
    if (kind === undefined) {
      this.unsupported(node)
      return { redirects: [{ kind: "write", text }], extra, inputs: [] }
    }
    if (value === undefined) {
      this.unresolved(`the target of ${clip(text)} is only known at run time`)
      return { redirects: [{ kind, text }], extra, inputs: [] }
    }
    return { redirects: [{ kind, text, ...this.target(value) }], extra, inputs: [] }
  }

  /** A static target as an absolute path (`~` already expanded), and where it really lands. */
  target(value: string): { readonly target: string; readonly real?: string } {
    if (isSpecialTarget(value)) return { target: value }
    if (!isAbsolute(value)) this.state.relativeTargets.push(value)
    // Unfolded: the kernel follows a link before a `..` after it, and so does realLocation.
    return { target: resolve(this.state.cwd, value), real: realLocation(isAbsolute(value) ? value : `${this.state.cwd}/${value}`) }
  }

  heredoc(node: Node): ParsedRedirect {
    const redirects: Array<ShellRedirect> = []
    const extra: Array<Node> = []
    const inputs: Array<string> = []
    const start = all(node).find((c) => c.type === "heredoc_start")
    // A quoted delimiter (`'EOF'`, `"EOF"`, `\EOF`) keeps the body literal; otherwise it expands.
    const expands = start !== undefined && !/['"\\]/.test(start.text)
    redirects.push({ kind: "input", text: this.spanFrom(node, start === undefined ? undefined : [start]) })
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)
      if (child === null || !child.isNamed) continue
      const field = node.fieldNameForChild(i)
      if (child.type === "heredoc_start" || child.type === "heredoc_end" || child.type === "file_descriptor" || child.type === "comment") continue
      if (child.type === "heredoc_body") {
        if (expands) this.heredocBody(child)
        // A body without expansions is static text (for `bash <<EOF`, where it is the script).
        if (!expands || named(child).every((c) => c.type === "heredoc_content")) inputs.push(child.text)
      } else if (field === "argument") {
        extra.push(child)
      } else if (field === "redirect") {
        const parsed = this.redirect(child)
        redirects.push(...parsed.redirects)
        extra.push(...parsed.extra)
        inputs.push(...parsed.inputs)
      } else {
        // The rest of the line after `<<EOF` (`| grep x && next`) hangs here: separate commands.
        this.statement(child, [], undefined)
      }
    }
    return { redirects, extra, inputs }
  }

  /** An expanding here-document body: the expansions the grammar found are walked, and the text between them checked. */
  heredocBody(body: Node) {
    let unread = ""
    let at = body.startIndex
    for (const child of named(body)) {
      if (child.type === "heredoc_content") continue
      unread += this.source.slice(at, child.startIndex)
      at = child.endIndex
      this.expression(child, false)
    }
    unread += this.source.slice(at, body.endIndex)
    // The grammar leaves backquotes in a body unparsed; bash runs them.
    if (runsSubstitution(unread)) this.unresolved(`a command substitution the parser does not read, in a here-document: ${clip(unread)}`)
  }

  /** Walks a word or expression for the commands it runs. `arithmetic`: bash evaluates it, so a `$(` in a string runs too. */
  expression(node: Node, arithmetic: boolean): void {
    if (node.isNamed) this.nested(node, () => this.expressionAt(node, arithmetic))
  }

  expressionAt(node: Node, arithmetic: boolean): void {
    switch (node.type) {
      case "command_substitution": {
        for (let i = 0; i < node.childCount; i++) {
          const child = node.child(i)
          if (child === null || !child.isNamed) continue
          if (node.fieldNameForChild(i) === "redirect") {
            // `$(< file)` reads the file: a command with no words.
            const parsed = this.redirect(child)
            this.state.commands.push({ text: node.text, words: [], argv: [], assignments: [], redirects: parsed.redirects })
          } else this.statement(child, [], undefined)
        }
        return
      }
      case "process_substitution":
        for (const child of named(node)) this.statement(child, [], undefined)
        return
      case "raw_string":
      case "string_content":
      case "word":
        if (arithmetic && runsSubstitution(node.text)) this.unresolved(`$(...) inside an arithmetic or test expression runs at evaluation: ${clip(node.text)}`)
        return
      case "ansi_c_string":
        if (arithmetic && runsSubstitution(decodeAnsiC(node.text.slice(2, -1)))) {
          this.unresolved(`$(...) inside an arithmetic or test expression runs at evaluation: ${clip(node.text)}`)
        }
        return
      case "test_command":
      case "redirected_statement":
        return this.statement(node, [], undefined)
      case "heredoc_body":
        return this.heredocBody(node)
      case "variable_assignment":
        this.assignment(node)
        return
      default:
        if (ARITHMETIC.has(node.type) || node.type === "compound_statement") {
          for (const child of named(node)) this.expression(child, true)
          return
        }
        if (EXPRESSIONS.has(node.type)) {
          for (const child of named(node)) this.expression(child, arithmetic)
          return
        }
        this.unsupported(node)
    }
  }
}
