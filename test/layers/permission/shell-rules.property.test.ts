import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { isAbsolute, relative, resolve } from "node:path"
import type { Node } from "web-tree-sitter"
import type { PermissionRule } from "../../../src/domain/permissions.js"
import { analyzeShell } from "../../../src/layers/permission/shell-analysis.js"
import { bashParser } from "../../../src/layers/permission/shell-parser.js"
import { formatPattern, parsePattern } from "../../../src/layers/permission/shell-pattern.js"
import { shellRuleVerdict } from "../../../src/layers/permission/shell-rules.js"

/**
 * For random rule sets and random lines built from bash constructs: whenever the rules allow
 * a line, every command the grammar sees in it is covered by an allow rule. The check walks
 * the tree-sitter tree itself and reads words with its own, deliberately narrow, evaluator:
 * anything it cannot read counts as not covered.
 */

const root = "/work/ws"
const home = "/home/u"

// ---- the line grammar -------------------------------------------------------------------

const VOCABULARY = ["npm", "test", "git", "push", "status", "ls", "-la", "--prefix", "/elsewhere", "id", "tee", "out.log", "echo", "hi", "cat", "rm", "-rf"]

/** Spellings bash reads as the same word. */
const spellings = (w: string): ReadonlyArray<string> => [w, `'${w}'`, `"${w}"`, `$'${w}'`, `\\${w}`, w.length > 1 ? `${w[0]}'${w.slice(1)}'` : w, `${w}""`]

/** Words bash only knows at run time, or that hide something. */
const DYNAMIC = ["$X", "${Y}", '"$X"', "*", "~", "{a,b}", "$'\\nid'", "$'a\\x41'", "$((1+2))", "?"]

const ASSIGNMENTS = [...Array<string>(12).fill(""), "CI=1 ", "CI='1' ", "PATH=/x ", "X=$(id) "]
const REDIRECTS = [...Array<string>(8).fill(""), " > out.log", " 2>&1", " > /tmp/x", " < in.txt", " >> $F", " > /dev/null", " 2> err.log", " &> out.log", " > ../up", " > out.log 2>&1"]

const word = (statement: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...VOCABULARY).chain((w) => fc.constantFrom(...spellings(w))) },
    { weight: 1, arbitrary: fc.constantFrom(...DYNAMIC) },
    { weight: 1, arbitrary: statement.map((s) => `$(${s})`) },
    { weight: 1, arbitrary: statement.map((s) => `"x$(${s})"`) }
  )

const simple = (statement: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom(...ASSIGNMENTS), fc.array(word(statement), { minLength: 1, maxLength: 4 }), fc.constantFrom(...REDIRECTS))
    .map(([assignment, words, redirect]) => `${assignment}${words.join(" ")}${redirect}`)

const line: fc.Arbitrary<string> = fc.letrec<{ statement: string; leaf: string }>((tie) => ({
  leaf: simple(fc.constantFrom("id", "ls", "npm test")),
  statement: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    simple(tie("leaf")),
    fc.tuple(tie("statement"), tie("statement"), fc.constantFrom("; ", " && ", " || ", " | ", "\n", " & ")).map(([a, b, op]) => `${a}${op}${b}`),
    tie("statement").map((a) => `(${a})`),
    tie("statement").map((a) => `{ ${a}; }`),
    tie("statement").map((a) => `{ ${a}; } > out.log`),
    tie("statement").map((a) => `! ${a}`),
    fc.tuple(tie("statement"), tie("statement")).map(([a, b]) => `if ${a}; then ${b}; fi`),
    tie("statement").map((a) => `for x in 1 2; do ${a}; done`),
    tie("statement").map((a) => `${a} # a comment`),
    fc.tuple(tie("statement"), tie("statement")).map(([a, b]) => `${a} #'\n${b}\n#'`),
    fc.tuple(tie("statement"), tie("leaf")).map(([a, b]) => `cat <<EOF\nbody $(${b})\nEOF\n${a}`),
    tie("leaf").map((b) => `cat <<EOF\n\`${b}\`\nEOF`),
    tie("leaf").map((b) => `cat <<'EOF'\n$(${b})\nEOF`),
    tie("leaf").map((a) => `echo \`${a}\``),
    tie("leaf").map((a) => `diff <(${a}) x`),
    tie("leaf").map((a) => `cat <<< "$(${a})"`),
    tie("leaf").map((a) => `bash -c '${a}'`),
    tie("leaf").map((a) => `eval "${a}"`),
    tie("statement").map((a) => `X=1; ${a}`),
    tie("statement").map((a) => `f() { ${a}; }`),
    tie("statement").map((a) => `cd sub && ${a}`),
    tie("statement").map((a) => `[[ -n $(${a}) ]]`)
  )
})).statement

const CANDIDATE_RULES: ReadonlyArray<string> = ["npm test", "npm test *", "git status", "git *", "ls *", "echo *", "tee out.log", "id", "*", "*", "*", "CI=1 npm test", "cat", "npm test:*"]
const PATHS = [undefined, "out.log", "**", "**", "/tmp/**"]

/** Half the rule sets start with a broad allow, so that many lines reach the allow check at all. */
const rules: fc.Arbitrary<ReadonlyArray<PermissionRule>> = fc
  .tuple(
    fc.boolean(),
    fc.array(
      fc.tuple(fc.constantFrom(...CANDIDATE_RULES), fc.constantFrom(...PATHS), fc.constantFrom<PermissionRule["decision"]>("allow", "allow", "allow", "allow", "allow", "deny")).map(
        ([command, path, decision]): PermissionRule => ({ tool: "shell", command, decision, ...(path === undefined ? {} : { path }) })
      ),
      { minLength: 1, maxLength: 6 }
    )
  )
  .map(([broad, rest]): ReadonlyArray<PermissionRule> => (broad ? [{ tool: "shell", command: "*", decision: "allow", path: "**" }, ...rest] : rest))

// ---- the independent check ---------------------------------------------------------------

const children = (node: Node): ReadonlyArray<Node> => node.children.filter((c): c is Node => c !== null)
const descendants = (node: Node): ReadonlyArray<Node> => [node, ...children(node).flatMap(descendants)]

/** The generator's ANSI-C subset: letters, `\n`, `\xHH`. */
const ansiC = (inner: string) => inner.replace(/\\n/g, "\n").replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))

/** A word's value, for the plain spellings only; undefined for anything else. */
const valueOf = (node: Node): string | undefined => {
  switch (node.type) {
    case "number":
      return /^\d+$/.test(node.text) ? node.text : undefined
    case "word":
      if (node.text === "~" || node.text.startsWith("~/")) return `${home}${node.text.slice(1)}`
      return /^(?:[A-Za-z0-9_./:=,@%+-]|\\[A-Za-z0-9_./:=,@%+-])+$/.test(node.text) ? node.text.replace(/\\(.)/g, "$1") : undefined
    case "raw_string":
      return node.text.slice(1, -1)
    case "string":
      return node.namedChildren.every((c) => c?.type === "string_content") && !/[\\$`]/.test(node.text) ? node.text.slice(1, -1) : undefined
    case "ansi_c_string":
      return /^\$'(?:[A-Za-z0-9_./:=,@%+-]|\\n|\\x[0-9a-fA-F]{2})*'$/.test(node.text) ? ansiC(node.text.slice(2, -1)) : undefined
    case "concatenation": {
      const parts = children(node).map(valueOf)
      return parts.every((p): p is string => p !== undefined) ? parts.join("") : undefined
    }
    default:
      return undefined
  }
}

interface Pattern {
  readonly assignments: ReadonlyArray<string>
  readonly words: ReadonlyArray<string>
  readonly rest: boolean
}

const patternOf = (command: string): Pattern => {
  const tokens = command.split(" ")
  const assignments = tokens.filter((t) => /^[A-Z]+=/.test(t))
  const words = tokens.filter((t) => !/^[A-Z]+=/.test(t))
  const last = words[words.length - 1] ?? ""
  if (last === "*") return { assignments, words: words.slice(0, -1), rest: true }
  if (last.endsWith(":*")) return { assignments, words: [...words.slice(0, -1), last.slice(0, -2)], rest: true }
  return { assignments, words, rest: false }
}

const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((x, i) => x === b[i])

/** A `command` node's argv and assignments, when every word is plain; the grammar's words after a redirection count too. */
const commandOf = (node: Node): { readonly argv: ReadonlyArray<string>; readonly assignments: ReadonlyArray<string> } | undefined => {
  const argv: Array<string | undefined> = []
  const assignments: Array<string | undefined> = []
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)
    const field = node.fieldNameForChild(i)
    if (child === null) continue
    // The grammar reads the second `!` of `! ! cmd` as a command name; bash reads a negation.
    if (field === "name" && child.text === "!" && argv.length === 0) continue
    // The generator's one brace expansion: bash runs `{a,b}` as the two words `a b`.
    if ((field === "name" || field === "argument") && child.text === "{a,b}") argv.push("a", "b")
    else if (field === "name") {
      const inner = child.namedChild(0)
      argv.push(inner === null ? undefined : valueOf(inner))
    }
    else if (field === "argument") argv.push(valueOf(child))
    else if (child.type === "variable_assignment") {
      const value = child.childForFieldName("value")
      const text = value === null ? "" : valueOf(value)
      assignments.push(text === undefined ? undefined : `${child.childForFieldName("name")?.text}=${text}`)
    } else if (field === "redirect" && child.childrenForFieldName("destination").length > 1) argv.push(undefined)
  }
  if (!argv.every((w): w is string => w !== undefined) || !assignments.every((a): a is string => a !== undefined)) return undefined
  return { argv, assignments }
}

const covers = (pattern: Pattern, command: { readonly argv: ReadonlyArray<string>; readonly assignments: ReadonlyArray<string> }) =>
  same(pattern.assignments, command.assignments) &&
  (pattern.rest ? command.argv.length >= pattern.words.length && pattern.words.every((w, i) => command.argv[i] === w) : same(pattern.words, command.argv))

const WRITES = new Set([">", ">>", ">|", "&>", "&>>"])

const pathAllows = (path: string | undefined, target: string) => {
  if (path === undefined) return false
  if (path === "/tmp/**") return target.startsWith("/tmp/")
  const rel = relative(root, target)
  if (rel.startsWith("..") || isAbsolute(rel)) return false
  return path === "**" || rel === path
}

/** Why the tree says this line must not be allowed under these rules, or undefined when every command it sees is covered. */
const violation = (tree: Node, allowRules: ReadonlyArray<PermissionRule>): string | undefined => {
  if (tree.hasError) return "the line does not parse"
  const nodes = descendants(tree)
  const patterns = allowRules.map((r) => patternOf(r.command ?? ""))
  for (const node of nodes) {
    if (node.type === "function_definition") return "a function definition"
    if (node.type === "variable_assignment" && node.parent?.type !== "command") return `a standalone assignment: ${node.text}`
    if (node.type === "heredoc_body" && node.text.includes("`")) {
      const start = node.parent?.children.find((c) => c?.type === "heredoc_start")
      if (start !== undefined && start !== null && !/['"\\]/.test(start.text)) return "backquotes in an expanding here-document"
    }
    if (node.type === "command") {
      const command = commandOf(node)
      if (command === undefined) return `a command with words only known at run time: ${node.text}`
      if (["bash", "sh", "eval"].includes(command.argv[0] ?? "")) return `code in a string: ${node.text}`
      if (!patterns.some((p) => covers(p, command))) return `not covered: ${node.text}`
    }
    if (node.type === "file_redirect") {
      const operator = children(node).find((c) => !c.isNamed)?.type ?? ""
      const destination = node.childForFieldName("destination")
      const target = destination === null ? undefined : valueOf(destination)
      const isWrite = WRITES.has(operator) || (operator === ">&" && !/^\d+$/.test(target ?? ""))
      if (!isWrite) continue
      if (target === undefined) return `a write to a target only known at run time: ${node.text}`
      if (target === "/dev/null") continue
      if (nodes.some((n) => n.type === "command" && n.childForFieldName("name")?.text === "cd") && !isAbsolute(target)) return "a relative write after cd"
      if (!allowRules.some((r) => pathAllows(r.path, resolve(root, target)))) return `a write no rule's path allows: ${node.text}`
    }
  }
  return undefined
}

describe("shell rules: property", () => {
  it.live("an allow verdict means every command the grammar sees is covered by an allow rule", () =>
    Effect.gen(function* () {
      const parser = yield* bashParser
      let allowed = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(line, rules, async (text, ruleSet) => {
            const analysis = await Effect.runPromise(analyzeShell(text, root, { home }))
            const indexed = ruleSet.map((rule, index) => ({ source: "user", index, rule }))
            const verdict = shellRuleVerdict(indexed, analysis, root)
            if (verdict?.decision !== "allow") return
            allowed++
            const tree = parser.parse(text)
            if (tree === null) throw new Error("no tree")
            try {
              const why = violation(
                tree.rootNode,
                ruleSet.filter((r) => r.decision === "allow")
              )
              expect(why, `${JSON.stringify(text)} allowed by ${JSON.stringify(verdict.rule.rule)}`).toBeUndefined()
            } finally {
              tree.delete()
            }
          }),
          { numRuns: 500 }
        )
      )
      // The property says something only if many lines are allowed (about one in eight is).
      expect(allowed).toBeGreaterThan(25)
    }))

  it.prop(
    "a remembered prefix reads back as the words it was made from",
    { words: fc.array(fc.string(), { minLength: 1, maxLength: 5 }), rest: fc.boolean() },
    ({ words, rest }) => {
      expect(parsePattern(formatPattern(words, rest))).toEqual({ assignments: [], words, rest })
    }
  )
})
