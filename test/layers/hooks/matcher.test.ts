import { describe, expect, it } from "@effect/vitest"
import { matcherSelects } from "../../../src/layers/hooks/matcher.js"

describe("hook matchers", () => {
  it("absent, empty and * select everything; exact names and | lists take Claude's tool names or ours", () => {
    for (const m of [undefined, "", "*"]) expect(matcherSelects(m, "shell")).toBe(true)
    expect(matcherSelects("Bash", "shell")).toBe(true)
    expect(matcherSelects("shell", "shell")).toBe(true)
    expect(matcherSelects("Write|Edit", "edit_file")).toBe(true)
    expect(matcherSelects("Write|Edit", "read_file")).toBe(false)
    expect(matcherSelects("Glob", "list_files")).toBe(true)
    // Every Claude name read as ours (the shared table agent definitions use too).
    expect(matcherSelects("MultiEdit", "edit_file")).toBe(true)
    expect(matcherSelects("LS", "list_files")).toBe(true)
    // Exact, not a substring.
    expect(matcherSelects("Read", "read_file_extra")).toBe(false)
  })

  it("anything else is a regular expression over the whole name; an invalid one selects nothing", () => {
    expect(matcherSelects("mcp__github__.*", "mcp__github__create_issue")).toBe(true)
    expect(matcherSelects("mcp__github__.*", "mcp__gitlab__x")).toBe(false)
    expect(matcherSelects("Ba.*", "shell")).toBe(true)
    expect(matcherSelects("(", "shell")).toBe(false)
    expect(matcherSelects("Bash", undefined)).toBe(false)
  })

  it("a matcher that would backtrack for minutes in JavaScript's engine answers at once", () => {
    expect(matcherSelects("(m+)+x", "m".repeat(5000))).toBe(false)
    expect(matcherSelects("(?=shell)shell", "shell")).toBe(false)
  })
})
