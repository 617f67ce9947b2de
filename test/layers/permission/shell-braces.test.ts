import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { PermissionRule } from "../../../src/domain/permissions.js"
import type { IndexedRule } from "../../../src/layers/permission/rule-basics.js"
import { analyzeShell } from "../../../src/layers/permission/shell-analysis.js"
import { expandBraces, type Piece } from "../../../src/layers/permission/shell-braces.js"
import { shellRuleVerdict } from "../../../src/layers/permission/shell-rules.js"

const root = "/work/ws"
const home = "/home/u"
const analyze = (line: string) => analyzeShell(line, root, { home })

/** Unquoted text, with `'...'` marking quoted characters (no nesting), as pieces. */
const pieces = (source: string): ReadonlyArray<Piece> => {
  const out: Array<Piece> = []
  let quoted = false
  for (const c of source) {
    if (c === "'") quoted = !quoted
    else out.push({ text: c, quoted })
  }
  return out
}

const words = (source: string, limit = 100) => {
  const { words, complete } = expandBraces(pieces(source), limit)
  return { words: words.map((w) => w.map((p) => p.text).join("")), complete }
}

describe("expandBraces: as bash expands a word", () => {
  it("comma lists, empty alternatives, words around them, several in one word", () => {
    expect(words("{touch,P7}").words).toEqual(["touch", "P7"])
    expect(words("t{o,}uch").words).toEqual(["touch", "tuch"])
    expect(words("a{b,c}d{e,f}").words).toEqual(["abde", "abdf", "acde", "acdf"])
  })

  it("nested lists, and a literal brace around a list", () => {
    expect(words("{{touch,x},y}").words).toEqual(["touch", "x", "y"])
    expect(words("{a,b{c,d}}").words).toEqual(["a", "bc", "bd"])
    expect(words("{{a,b}}").words).toEqual(["{a}", "{b}"])
    expect(words("a{b{c,d}").words).toEqual(["a{bc", "a{bd"])
  })

  it("sequences of numbers (with steps, downwards, zero-padded) and letters", () => {
    expect(words("{1..3}").words).toEqual(["1", "2", "3"])
    expect(words("x{3..1}").words).toEqual(["x3", "x2", "x1"])
    expect(words("{0..10..5}").words).toEqual(["0", "5", "10"])
    expect(words("{08..10}").words).toEqual(["08", "09", "10"])
    expect(words("{-1..1}").words).toEqual(["-1", "0", "1"])
    expect(words("touc{h..i}").words).toEqual(["touch", "touci"])
  })

  it("no expansion: no comma nor sequence, quoted braces or commas, an unclosed brace", () => {
    expect(words("{}").words).toEqual(["{}"])
    expect(words("{a}").words).toEqual(["{a}"])
    expect(words("a{b").words).toEqual(["a{b"])
    expect(words("'{a,b}'").words).toEqual(["{a,b}"])
    expect(words("{a','b}").words).toEqual(["{a,b}"])
    expect(words("{a..b..c}").words).toEqual(["{a..b..c}"])
    expect(words("{1..b}").words).toEqual(["{1..b}"])
  })

  it("a quoted comma is part of an alternative; a word that expands to nothing is dropped", () => {
    expect(words("{touch,a',b'}").words).toEqual(["touch", "a,b"])
    expect(words("{,}").words).toEqual([])
  })

  it("stops at the limit, keeping the first words in bash's order", () => {
    expect(words("{1..100000000}", 3)).toEqual({ words: ["1", "2", "3"], complete: false })
    expect(words("{a,b}{1..9}{x,y}", 4)).toEqual({ words: ["a1x", "a1y", "a2x", "a2y"], complete: false })
    expect(words("{a,b}{c,d}", 4)).toEqual({ words: ["ac", "ad", "bc", "bd"], complete: true })
  })
})

type Rule = Omit<PermissionRule, "tool">
const indexed = (rules: ReadonlyArray<Rule>): ReadonlyArray<IndexedRule> => rules.map((rule, index) => ({ source: "user", index, rule: { tool: "shell", ...rule } }))
const verdict = (rules: ReadonlyArray<Rule>, line: string) =>
  Effect.map(analyze(line), (analysis) => {
    const found = shellRuleVerdict(indexed(rules), analysis, root)
    return found === undefined ? "none" : `${found.decision}#${found.rule.index}`
  })

describe("brace expansion in a command line", () => {
  it.effect("the words are bash's, the source text kept for each", () =>
    Effect.gen(function* () {
      const a = yield* analyze("{git,push,origin,main}; mkdir -p src/{a,b}; echo {,}x")
      expect(a.commands.map((c) => c.argv)).toEqual([
        ["git", "push", "origin", "main"],
        ["mkdir", "-p", "src/a", "src/b"],
        ["echo", "x", "x"]
      ])
      expect(a.commands[0]?.words[1]).toEqual({ text: "{git,push,origin,main}", value: "push" })
    }))

  it.effect("a deny rule matches any expansion that begins a command", () =>
    Effect.gen(function* () {
      const rules: ReadonlyArray<Rule> = [{ command: "*", decision: "allow" }, { command: "touch", decision: "deny" }, { command: "git push", decision: "deny" }]
      for (const line of ["{touch,P7}", "t{o,}uch P24", "{{touch,x},y} P", "touc{h..i} P", "env {touch,P}", "{touch,P$x}", "x; {touch,P} y > f"]) {
        expect(yield* verdict(rules, line), line).toBe("deny#1")
      }
      for (const line of ["{git,push,origin,main:b3}", "git {push,./remote.git,main:b2}", "git {push,origin} x"]) {
        expect(yield* verdict(rules, line), line).toBe("deny#2")
      }
    }))

  it.effect("an allow rule covers the words bash runs, not the words as written", () =>
    Effect.gen(function* () {
      const touch: ReadonlyArray<Rule> = [{ command: "touch *", decision: "allow" }]
      expect(yield* verdict(touch, "touch P{1..3}")).toBe("allow#0")
      // The grammar does not parse a line that starts with a brace: it asks.
      expect(yield* verdict(touch, "{touch,P}")).toBe("none")
      expect(yield* verdict(touch, "{rm,x}")).toBe("none")
      expect(yield* verdict(touch, "{,rm} x")).toBe("none")
      expect(yield* verdict([{ command: "echo *", decision: "allow" }], "echo {touch,x}")).toBe("allow#0")
      expect(yield* verdict([{ command: "echo x", decision: "allow" }], "{,}echo x")).toBe("none")
    }))

  it.effect("past the bound the line is unresolved, the words before the cut still read, the rest unknown", () =>
    Effect.gen(function* () {
      const a = yield* analyze("{touch,x}{1..100000}")
      expect(a.unresolved.some((r) => r.includes("brace expansion"))).toBe(true)
      expect(a.commands[0]?.words.length).toBe(1025)
      expect(a.commands[0]?.words[1024]?.value).toBeUndefined()
      const rules: ReadonlyArray<Rule> = [{ command: "touch", decision: "deny" }, { command: "*", decision: "allow" }]
      expect(yield* verdict(rules, "{touch,x} {1..100000}")).toBe("deny#0")
      // The command lies past the cut: the rule might match, so the call asks.
      expect(yield* verdict(rules, "env {A,B}{1..2000}=1 touch P")).toBe("ask#0")
    }))
})
