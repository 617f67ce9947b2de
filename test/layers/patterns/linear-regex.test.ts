import { describe, expect, it } from "@effect/vitest"
import { compileLinearRegex } from "../../../src/layers/patterns/linear-regex.js"

describe("compileLinearRegex", () => {
  it("matches what a search pattern usually is, in JavaScript's spelling", () => {
    const cases: ReadonlyArray<readonly [string, string, boolean]> = [
      ["\\bfoo\\(", "call foo(1)", true],
      ["\\/api\\/v\\d+", "GET /api/v2/users", true],
      ["(?<name>[A-Z]\\w+)Error", "TypeError", true],
      ["caf\\u00e9", "café", true],
      ["^\\s*import .* from", "  import x from 'y'", true],
      ["^\\s*import .* from", "export x", false],
      ["[^]", "x", true]
    ]
    for (const [pattern, text, expected] of cases) expect([pattern, compileLinearRegex(pattern).test(text)]).toEqual([pattern, expected])
    expect(compileLinearRegex("todo", { ignoreCase: true }).test("TODO: x")).toBe(true)
    expect(compileLinearRegex("todo").test("TODO: x")).toBe(false)
  })

  it("a pattern that makes JavaScript's engine backtrack for minutes answers at once", () => {
    // /^(a+)+$/ on this line takes JavaScript's engine about 2^40 steps.
    expect(compileLinearRegex("^(a+)+$").test(`${"a".repeat(40)}b`)).toBe(false)
    expect(compileLinearRegex("(x+x+)+y").test("x".repeat(5000))).toBe(false)
    expect(compileLinearRegex("^(a|aa)+$").test("a".repeat(100_000))).toBe(true)
  })

  it("refuses lookaround and backreferences by name, and says why", () => {
    expect(() => compileLinearRegex("foo(?=bar)")).toThrow(/lookarounds.*linear-time engine/)
    expect(() => compileLinearRegex("(?<!x)foo")).toThrow(/lookarounds/)
    expect(() => compileLinearRegex("(a)\\1")).toThrow(/backreferences/)
    // The translation would otherwise turn this into the literal text "k<n>".
    expect(() => compileLinearRegex("(?<n>a)\\k<n>")).toThrow(/backreferences/)
    expect(compileLinearRegex("\\\\k<n>").test("\\k<n>")).toBe(true)
    expect(() => compileLinearRegex("(unclosed")).toThrow(/missing closing \)/)
    expect(() => compileLinearRegex("a".repeat(9000))).toThrow(/longer than 8192/)
  })
})
