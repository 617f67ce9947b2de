import { describe, expect, it } from "@effect/vitest"
import { outcomeOf } from "../../../src/layers/hooks/output.js"

describe("reading a hook's answer (Claude Code's conventions)", () => {
  it("exit 2 blocks with stderr as the reason, as each event understands a block", () => {
    expect(outcomeOf("PreToolUse", 2, "", "no rm\n")).toEqual({ decision: "deny", reason: "no rm" })
    expect(outcomeOf("PermissionRequest", 2, "", "no")).toEqual({ decision: "deny", reason: "no" })
    expect(outcomeOf("UserPromptSubmit", 2, "", "secret")).toEqual({ decision: "block", reason: "secret" })
    expect(outcomeOf("PostToolUse", 2, "", "lint failed")).toEqual({ decision: "block", reason: "lint failed" })
    expect(outcomeOf("Stop", 2, "", "run the tests")).toEqual({ decision: "continue", reason: "run the tests" })
    // Where nothing can be blocked, exit 2 decides nothing.
    expect(outcomeOf("SessionEnd", 2, "", "x")).toEqual({ reason: "x" })
  })

  it("any other non-zero exit is a non-blocking error: it decides nothing, whatever it printed", () => {
    expect(outcomeOf("PreToolUse", 1, '{"decision":"block"}', "oops")).toEqual({})
    expect(outcomeOf("PreToolUse", null, "", "")).toEqual({})
  })

  it("exit 0 reads the JSON fields of each event, old and new spellings", () => {
    expect(outcomeOf("PreToolUse", 0, '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}', "")).toEqual({ decision: "ask", reason: "check" })
    expect(outcomeOf("PreToolUse", 0, '{"decision":"approve","reason":"ok"}', "")).toEqual({ decision: "allow", reason: "ok" })
    expect(outcomeOf("PreToolUse", 0, '{"decision":"block","reason":"no"}', "")).toEqual({ decision: "deny", reason: "no" })
    expect(outcomeOf("PermissionRequest", 0, '{"hookSpecificOutput":{"decision":{"behavior":"allow","message":"fine"}}}', "")).toEqual({ decision: "allow", reason: "fine" })
    expect(outcomeOf("Stop", 0, '{"decision":"block","reason":"more"}', "")).toEqual({ decision: "continue", reason: "more" })
    expect(outcomeOf("UserPromptSubmit", 0, '{"hookSpecificOutput":{"additionalContext":"ctx"}}', "")).toEqual({ additionalContext: "ctx" })
    expect(outcomeOf("PostToolUse", 0, '{"additionalContext":"note"}', "")).toEqual({ additionalContext: "note" })
    // A decision an event does not have is ignored.
    expect(outcomeOf("PostToolUse", 0, '{"decision":"allow"}', "")).toEqual({})
  })

  it("plain stdout is context only for SessionStart and UserPromptSubmit", () => {
    expect(outcomeOf("UserPromptSubmit", 0, "branch main\n", "")).toEqual({ additionalContext: "branch main" })
    expect(outcomeOf("SessionStart", 0, "hello", "")).toEqual({ additionalContext: "hello" })
    expect(outcomeOf("PostToolUse", 0, "formatted", "")).toEqual({})
    expect(outcomeOf("PreToolUse", 0, "{ not json", "")).toEqual({})
  })
})
