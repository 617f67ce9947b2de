import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import ignore from "ignore"
import { GitignoreRules } from "../../../src/layers/tools/gitignore-rules.js"

const verdict = (text: string, path: string, isDirectory = false) => new GitignoreRules(text).test(path, isDirectory)

describe("GitignoreRules", () => {
  it("reads git's syntax: comments, negation, folders only, anchoring, globstars, escapes", () => {
    const text = ["# build output", "dist/", "*.log", "!keep.log", "/root-only.txt", "docs/*.md", "**/cache", "a/**/z", "\\#literal", "trailing\\ ", "x/**", "!x/kept"].join("\n")
    const cases: ReadonlyArray<readonly [string, boolean, { ignored: boolean; unignored: boolean }]> = [
      ["dist", true, { ignored: true, unignored: false }],
      ["dist", false, { ignored: false, unignored: false }],
      ["src/dist", true, { ignored: true, unignored: false }],
      ["dist/a.js", false, { ignored: true, unignored: false }],
      ["a/b.log", false, { ignored: true, unignored: false }],
      ["a/keep.log", false, { ignored: false, unignored: true }],
      ["root-only.txt", false, { ignored: true, unignored: false }],
      ["sub/root-only.txt", false, { ignored: false, unignored: false }],
      ["docs/a.md", false, { ignored: true, unignored: false }],
      ["docs/deep/a.md", false, { ignored: false, unignored: false }],
      ["p/q/cache", true, { ignored: true, unignored: false }],
      ["a/z", false, { ignored: true, unignored: false }],
      ["a/b/c/z", false, { ignored: true, unignored: false }],
      ["#literal", false, { ignored: true, unignored: false }],
      ["trailing ", false, { ignored: true, unignored: false }],
      ["x", true, { ignored: false, unignored: false }],
      ["x/a", false, { ignored: true, unignored: false }],
      ["x/kept", false, { ignored: false, unignored: true }]
    ]
    for (const [path, isDirectory, expected] of cases) expect([path, verdict(text, path, isDirectory)]).toEqual([path, expected])
  })

  it("agrees with the ignore package on rules and paths made of the common syntax", () => {
    const token = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "-")
    // Stars run together within a segment (`***`, `a**`) are outside the common syntax: git reads them as single stars, the ignore package does not always.
    const segment = fc.oneof(
      fc.constant("**"),
      fc
        .array(token, { minLength: 1, maxLength: 3 })
        .map((t) => t.join(""))
        .filter((s) => !s.includes("**"))
    )
    const line = fc
      .tuple(fc.boolean(), fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([negate, leadingSlash, segments, trailingSlash]) => `${negate ? "!" : ""}${leadingSlash ? "/" : ""}${segments.join("/")}${trailingSlash ? "/" : ""}`)
    const name = fc.constantFrom("a", "b", "ab", ".a", "a.b", "-")
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 4 }), fc.array(name, { minLength: 1, maxLength: 4 }), fc.boolean(), (lines, names, isDirectory) => {
        const text = lines.join("\n")
        const path = names.join("/")
        const theirs = ignore().add(text).test(isDirectory ? `${path}/` : path)
        expect([text, path, isDirectory, verdict(text, path, isDirectory)]).toEqual([text, path, isDirectory, { ignored: theirs.ignored, unignored: theirs.unignored }])
      }),
      { numRuns: 1000 }
    )
  })

  it("a hostile .gitignore line answers at once on a deep path", () => {
    // The ignore package takes minutes here: its expression backtracks over every split of the path.
    const rules = new GitignoreRules(`${"**/a/".repeat(6)}c`)
    expect(rules.test(`${"a/".repeat(2000)}b`, false)).toEqual({ ignored: false, unignored: false })
    expect(new GitignoreRules(`*${"a*".repeat(14)}c`).test("a".repeat(255), false)).toEqual({ ignored: false, unignored: false })
  })
})
