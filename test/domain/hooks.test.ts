import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { hooksOfSettings, matcherSelects } from "../../src/domain/hooks.js"

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
})

describe("hooks in a settings file", () => {
  it("reads command hooks with their timeout (default 60 s); other events and handler types are listed as ignored", () => {
    const read = hooksOfSettings(
      {
        permissions: { allow: [] },
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "a.sh", timeout: 5 }, { type: "prompt", prompt: "judge" }] }],
          Notification: [{ hooks: [{ type: "command", command: "notify" }] }],
          Stop: [{ hooks: [{ type: "command", command: "b.sh" }] }]
        }
      },
      "claude",
      "/p/.claude/settings.json"
    )
    expect(Either.getOrThrow(read)).toEqual({
      hooks: [
        { event: "PreToolUse", matcher: "Bash", command: "a.sh", timeoutSeconds: 5, source: "claude", file: "/p/.claude/settings.json" },
        { event: "Stop", command: "b.sh", timeoutSeconds: 60, source: "claude", file: "/p/.claude/settings.json" }
      ],
      ignored: [
        { event: "PreToolUse", why: 'a "prompt" handler (only "command" hooks with a command run)', file: "/p/.claude/settings.json" },
        { event: "Notification", why: "not an event this agent has", file: "/p/.claude/settings.json" }
      ]
    })
  })

  it("a malformed hooks section is a problem in words; a file without one has no hooks", () => {
    expect(Either.isLeft(hooksOfSettings({ hooks: { Stop: "x" } }, "user", "f"))).toBe(true)
    expect(Either.isLeft(hooksOfSettings({ hooks: { Stop: [{ hooks: [{ type: "command", command: "x", timeout: -1 }] }] } }, "user", "f"))).toBe(true)
    expect(Either.getOrThrow(hooksOfSettings({ sandbox: { network: true } }, "user", "f"))).toEqual({ hooks: [], ignored: [] })
  })
})
