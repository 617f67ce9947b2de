import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { AgentEvent } from "../../src/domain/events.js"
import { mcpServerConfigs } from "../../src/acp/mcp-servers.js"
import { acpModeOf } from "../../src/acp/modes.js"
import { answerOf } from "../../src/acp/permission.js"
import { promptContent, promptText } from "../../src/acp/prompt-content.js"
import { makeTranslator } from "../../src/acp/updates.js"

const decode = Schema.decodeUnknownSync(AgentEvent)
let sequence = 0
const event = (type: string, payload: object, turnId: string | undefined = "turn_1"): AgentEvent =>
  decode({
    id: `evt_${++sequence}`,
    schemaVersion: 1,
    sessionId: "ses_1",
    sequence,
    timestamp: "2026-01-01T00:00:00.000Z",
    type,
    payload,
    ...(turnId === undefined ? {} : { turnId })
  })

const translate = (events: ReadonlyArray<AgentEvent>, replay = false) => {
  const translator = makeTranslator({ cwd: "/work", replay })
  return events.flatMap((e) => translator.updates(e))
}

describe("ACP updates from host events", () => {
  it("the agent's task list is the session's plan: the whole list each time it changes", () => {
    const todos = [{ content: "Read", status: "completed" }, { content: "Write", status: "in_progress" }, { content: "Check", status: "pending" }]
    expect(translate([event("task.updated", { toolCallId: "t1", todos })])).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read", status: "completed", priority: "medium" },
          { content: "Write", status: "in_progress", priority: "medium" },
          { content: "Check", status: "pending", priority: "medium" }
        ]
      }
    ])
    expect(translate([event("task.updated", { toolCallId: "t2", todos: [] })])).toEqual([{ sessionUpdate: "plan", entries: [] }])
  })

  it("sends user messages only when replaying, each with its own message id", () => {
    const events = [event("user.message", { content: "one", mode: "queue" }), event("user.message", { content: "two", mode: "queue" })]
    expect(translate(events)).toEqual([])
    const replayed = translate(events, true)
    expect(replayed).toMatchObject([{ sessionUpdate: "user_message_chunk", content: { text: "one" } }, { sessionUpdate: "user_message_chunk", content: { text: "two" } }])
    expect(replayed[0]?.sessionUpdate === "user_message_chunk" && replayed[1]?.sessionUpdate === "user_message_chunk" && replayed[0].messageId !== replayed[1].messageId).toBe(true)
  })

  it("groups chunks into messages: a tool call or a thought starts a new one; empty (redacted) thinking shows nothing", () => {
    const updates = translate([
      event("model.thinking_delta", { text: "", redacted: "opaque" }),
      event("model.delta", { text: "a" }),
      event("model.delta", { text: "b" }),
      event("model.thinking_delta", { text: "hmm" }),
      event("model.delta", { text: "c" }),
      event("model.tool_call_requested", { toolCallId: "t1", name: "shell", input: { command: "ls\n-la" } }),
      event("model.delta", { text: "d" })
    ])
    const ids = updates.flatMap((u) => (u.sessionUpdate === "agent_message_chunk" ? [u.messageId] : []))
    expect(ids).toHaveLength(4)
    expect(ids[0]).toBe(ids[1])
    expect(new Set(ids).size).toBe(3)
    expect(updates.find((u) => u.sessionUpdate === "tool_call")).toMatchObject({ kind: "execute", title: "Run ls …", locations: [] })
  })

  it("closes every tool call: withdrawn questions and calls the turn never ran end as failed, once", () => {
    const updates = translate([
      event("model.tool_call_requested", { toolCallId: "asked", name: "edit_file", input: { path: "a.txt", old_string: "x", new_string: "y" } }),
      event("model.tool_call_requested", { toolCallId: "never", name: "grep", input: { pattern: "x", path: "src" } }),
      event("permission.resolved", { toolCallId: "asked", decision: "cancelled", scope: "once", by: "user" }),
      event("turn.completed", { stopReason: "cancelled" })
    ])
    const closing = updates.filter((u) => u.sessionUpdate === "tool_call_update")
    expect(closing).toMatchObject([
      { toolCallId: "asked", status: "failed" },
      { toolCallId: "never", status: "failed" }
    ])
    expect(updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "never")).toMatchObject({
      kind: "search",
      locations: [{ path: "/work/src" }]
    })
  })

  it("shows a successful edit as a diff with absolute paths, and a failed one as its message", () => {
    const data = { _tag: "edit", path: "a.txt", before: null, after: "new\n", diff: "+new" }
    const updates = translate([
      event("tool.completed", { toolCallId: "ok", output: "Created a.txt", isError: false, durationMs: 1, data }),
      event("tool.completed", { toolCallId: "bad", output: "file not found", isError: true, durationMs: 1 })
    ])
    expect(updates).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "ok", status: "completed", content: [{ type: "diff", path: "/work/a.txt", oldText: null, newText: "new\n" }] },
      { sessionUpdate: "tool_call_update", toolCallId: "bad", status: "failed", content: [{ type: "content", content: { type: "text", text: "file not found" } }] }
    ])
  })

  it("a running command's output is its call's content while it runs: the output so far (its end), then the result replaces it", () => {
    const content = (value: string) => [{ type: "content", content: { type: "text", text: value } }]
    const updates = translate([
      event("model.tool_call_requested", { toolCallId: "sh", name: "shell", input: { command: "npm test" } }),
      event("tool.started", { toolCallId: "sh", name: "shell" }),
      event("tool.output", { toolCallId: "sh", text: "first\n" }),
      event("tool.output", { toolCallId: "sh", text: "second\n" }),
      event("tool.output", { toolCallId: "sh", text: "late\n", skipped: 5000 }),
      event("tool.output", { toolCallId: "sh", text: "last\n", skipped: 100, capped: true }),
      event("tool.completed", { toolCallId: "sh", output: "all of it\n[exit code 0]", isError: false, durationMs: 9 })
    ]).filter((u) => u.sessionUpdate === "tool_call_update")
    expect(updates).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "sh", status: "in_progress" },
      { sessionUpdate: "tool_call_update", toolCallId: "sh", status: "in_progress", content: content("first\n") },
      { sessionUpdate: "tool_call_update", toolCallId: "sh", status: "in_progress", content: content("first\nsecond\n") },
      { sessionUpdate: "tool_call_update", toolCallId: "sh", status: "in_progress", content: content("first\nsecond\n\n[… 5000 bytes not shown …]\nlate\n") },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "sh",
        status: "in_progress",
        content: content("first\nsecond\n\n[… 5000 bytes not shown …]\nlate\n\n[… 100 bytes not shown …]\nlast\n\n[… the rest is shown when the command ends …]")
      },
      { sessionUpdate: "tool_call_update", toolCallId: "sh", status: "completed", content: content("all of it\n[exit code 0]") }
    ])
  })

  it("a running command's updates stay bounded however much it printed: the end of its output", () => {
    const updates = translate([
      event("tool.started", { toolCallId: "sh", name: "shell" }),
      ...Array.from({ length: 50 }, (_, i) => event("tool.output", { toolCallId: "sh", text: `${String(i).padStart(2, "0")}${"x".repeat(997)}\n` }))
    ])
    const last = updates.at(-1)
    const shown = last?.sessionUpdate === "tool_call_update" && last.content?.[0]?.type === "content" && last.content[0].content.type === "text" ? last.content[0].content.text : ""
    expect(shown.length).toBeLessThanOrEqual(4_001)
    expect(shown.startsWith("…")).toBe(true)
    expect(shown.endsWith(`49${"x".repeat(997)}\n`)).toBe(true)
  })
})

describe("ACP request pieces", () => {
  it("maps the client's pick to the user's answer; an option it was not offered is a refusal", () => {
    expect(answerOf({ outcome: "selected", optionId: "allow_always" })).toEqual({ decision: "allow", scope: "always" })
    expect(answerOf({ outcome: "selected", optionId: "reject_always" })).toEqual({ decision: "deny", scope: "always" })
    expect(answerOf({ outcome: "selected", optionId: "yes please" })).toEqual({ decision: "deny", scope: "once" })
    expect(answerOf({ outcome: "cancelled" })).toBe("cancelled")
  })

  it("refuses prompts without text and content it does not take", () => {
    expect(promptText([])).toEqual(Either.left("the prompt has no text"))
    expect(Either.isLeft(promptText([{ type: "audio", data: "", mimeType: "audio/wav" }]))).toBe(true)
    expect(promptText([{ type: "resource", resource: { uri: "file:///x.bin", blob: "AAAA", mimeType: "application/octet-stream" } }, { type: "text", text: "see" }])).toEqual(
      Either.right("[binary resource file:///x.bin (application/octet-stream), not included]\n\nsee")
    )
  })

  it("an embedded resource's block is declared with its place; a text shaped like one is not", () => {
    const lookalike = '<context uri="file:///w/b.md">\nhidden?\n</context>'
    const prompt = promptContent([{ type: "text", text: lookalike }, { type: "resource", resource: { uri: "file:///w/a.md", text: "alpha" } }])
    expect(prompt).toEqual(
      Either.right({
        content: `${lookalike}\n\n<context uri="file:///w/a.md">\nalpha\n</context>`,
        attached: [{ uri: "file:///w/a.md", start: lookalike.length + 2, end: lookalike.length + 2 + '<context uri="file:///w/a.md">\nalpha\n</context>'.length }]
      })
    )
  })

  it("translates the client's MCP servers for the hub", () => {
    expect(
      mcpServerConfigs([
        { name: "local", command: "/bin/srv", args: ["--x"], env: [{ name: "TOKEN", value: "t" }] },
        { type: "http", name: "remote", url: "https://mcp.example/mcp", headers: [{ name: "Authorization", value: "Bearer b" }] }
      ])
    ).toEqual(
      Either.right([
        { name: "local", command: "/bin/srv", args: ["--x"], env: { TOKEN: "t" } },
        { name: "remote", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer b" } }
      ])
    )
  })

  it("an editor holds the stored mode, except bypass, which it shows (and runs) as default", () => {
    expect(acpModeOf("plan")).toBe("plan")
    expect(acpModeOf("accept-edits")).toBe("accept-edits")
    expect(acpModeOf("default")).toBe("default")
    expect(acpModeOf("bypass")).toBe("default")
  })

  it("a title the session gets is a session_info_update; a replay also shows the title it was created with", () => {
    expect(translate([event("session.renamed", { title: "Fix the build", by: "auto" }, undefined)])).toEqual([{ sessionUpdate: "session_info_update", title: "Fix the build" }])
    const created = (title?: string) => event("session.created", { cwd: "/work", client: "cli", ...(title === undefined ? {} : { title }) }, undefined)
    expect(translate([created("From the CLI")], true)).toEqual([{ sessionUpdate: "session_info_update", title: "From the CLI" }])
    expect(translate([created()], true)).toEqual([])
  })

  it("a rewind, a redo and a fork are notes of their own between messages; a checkpoint shows nothing", () => {
    const updates = translate(
      [
        event("model.delta", { text: "Wrote it." }),
        event("checkpoint.recorded", { treeId: "t1", changed: ["notes.txt"], notKept: [], trigger: "after_tools" }),
        event("session.forked", { sourceSessionId: "ses_0", atSequence: 9, copiedThrough: 9 }, undefined),
        event("checkpoint.restored", { treeId: "t0", checkpointSequence: 4, paths: ["notes.txt"], drift: [], forced: false, by: "web", redo: false }, undefined),
        event("conversation.rewound", { toSequence: 3, by: "web", redo: false }, undefined),
        event("conversation.rewound", { toSequence: 7, by: "cli", redo: true }, undefined),
        event("model.delta", { text: "Next." })
      ],
      true
    )
    const texts = updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : u.sessionUpdate))
    expect(texts).toEqual([
      "Wrote it.",
      "Forked from session ses_0 at event 9.",
      "Rewind by web: files restored from the checkpoint at event 4: notes.txt.",
      "Rewind by web: the conversation goes on from event 3; what came after it is no longer part of it.",
      "Redo by cli: the conversation is back as it was at event 7.",
      "Next."
    ])
    const ids = updates.flatMap((u) => (u.sessionUpdate === "agent_message_chunk" ? [u.messageId] : []))
    expect(new Set(ids).size).toBe(6)
  })

  it("live, a mode change moves the editor's mode (a plan approved, another client's change); bypass shows as default", () => {
    expect(translate([event("session.mode_changed", { mode: "plan", by: "rpc" }, undefined)])).toEqual([{ sessionUpdate: "current_mode_update", currentModeId: "plan" }])
    expect(translate([event("session.mode_changed", { mode: "bypass", by: "cli" }, undefined)])).toEqual([{ sessionUpdate: "current_mode_update", currentModeId: "default" }])
    // A replay's history of modes is not sent: the load answer carries the mode.
    expect(translate([event("session.mode_changed", { mode: "plan", by: "rpc" }, undefined)], true)).toEqual([])
  })
})
