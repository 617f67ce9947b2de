import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import picomatch from "picomatch"
import { compileGlob, globProblem } from "../../../src/layers/patterns/glob.js"

/** The cases rules and filters rely on, with picomatch's (`dot: true`) answers. */
const table: ReadonlyArray<readonly [string, string, boolean]> = [
  ["src/**/*.ts", "src/a.ts", true],
  ["src/**/*.ts", "src/x/y/a.ts", true],
  ["src/**/*.ts", "lib/a.ts", false],
  ["**/.env*", ".env", true],
  ["**/.env*", "a/.env.local", true],
  ["*.{ts,tsx}", "a.tsx", true],
  ["*.{ts,tsx}", "a.js", false],
  ["/tmp/**", "/tmp/x/y", true],
  ["/tmp/**", "/tmp", true],
  ["/tmp/**", "/tmpx", false],
  ["mcp__*", "mcp__github__create_issue", true],
  ["*", "a/b", false],
  ["*", ".", false],
  ["**", ".", false],
  ["**", "a/b/c", true],
  ["a/**/b", "a/b", true],
  ["?", "ab", false],
  ["[ab]x", "bx", true],
  ["[!a]x", "bx", true],
  ["[[:digit:]]", "7", true],
  ["{1..3}.txt", "2.txt", true],
  ["{a,{b,c}}", "c", true],
  ["@(a|b)c", "bc", true],
  ["+(ab)", "ababab", true],
  ["a\\*", "a*", true],
  ["a\\*", "ab", false],
  ["./a", "a", true],
  ["!secret", "public", true],
  ["!secret", "secret", false],
  ["(a)|$", "(a)|$", true]
]

describe("compileGlob", () => {
  it("answers the rules' cases as they were written for", () => {
    for (const [glob, path, expected] of table) expect([glob, path, compileGlob(glob)(path)]).toEqual([glob, path, expected])
  })

  it("agrees with picomatch (dot: true) on every glob and path made of the common syntax", () => {
    // `**` only as a whole segment: picomatch gives `**` inside a segment meanings of its own.
    const token = fc.constantFrom("a", "b", ".", "*", "?", "{a,b}", "{a,.b}", "[ab]", "\\*", "-")
    // Tokens run together can make one (`*` then `*{a,b}`): such segments are left out too.
    const globSegment = fc.oneof(
      fc.constant("**"),
      fc
        .array(token, { minLength: 1, maxLength: 3 })
        .map((tokens) => tokens.join(""))
        .filter((joined) => !joined.includes("**"))
    )
    const segment = fc.constantFrom("a", "b", "ab", ".a", "a.b", "ba", "*", "-")
    fc.assert(
      fc.property(fc.array(globSegment, { minLength: 1, maxLength: 4 }), fc.array(segment, { minLength: 1, maxLength: 4 }), (globSegments, segments) => {
        const glob = globSegments.join("/")
        const path = segments.join("/")
        expect([glob, path, compileGlob(glob)(path)]).toEqual([glob, path, picomatch(glob, { dot: true })(path)])
      }),
      { numRuns: 1000 }
    )
  })

  it("takes time linear in the path where a backtracking matcher takes minutes", () => {
    // picomatch compiles this to a regular expression that backtracks through every way of
    // placing the a's: 255 characters and twelve stars do not finish in a lifetime.
    const glob = `*${"a*".repeat(12)}c`
    expect(compileGlob(glob)("a".repeat(255))).toBe(false)
    expect(compileGlob(`${"**/a/".repeat(8)}c`)(`${"a/".repeat(2000)}b`)).toBe(false)
    expect(compileGlob(glob)(`${"a".repeat(254)}c`)).toBe(true)
  })

  it("names what it cannot match in linear time, or at all", () => {
    expect(globProblem("!(foo)")).toContain("negated groups")
    expect(globProblem("{1..100000}")).toContain("more than 1000 values")
    expect(globProblem("@(a|b")).toContain("unclosed group")
    expect(globProblem("x".repeat(9000))).toContain("longer than")
    expect(globProblem("src/**/*.{ts,tsx}")).toBeUndefined()
  })
})
