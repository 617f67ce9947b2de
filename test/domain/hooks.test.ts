import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { hooksOfSettings } from "../../src/domain/hooks.js"

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
