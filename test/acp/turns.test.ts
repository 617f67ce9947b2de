import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp, updatesBeforeResponse } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

describe("custom-agent acp: a prompt turn", () => {
  it("streams thoughts, text and a tool call with its updates, and answers end_turn after the last update", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    writeFileSync(join(workspace.cwd, "notes.txt"), "hello from disk\n")
    const script = workspace.script("turn", {
      responses: [
        { chunks: [{ thinking: "The user wants the notes." }, { text: "Reading " }, { text: "the notes." }, { toolCall: { name: "read_file", input: { path: "notes.txt" }, id: "call_read" } }] },
        "The notes say hello."
      ]
    })
    const acp = await startAcp(workspace, { script })
    try {
      const sessionId = await acp.newSession(workspace.cwd)
      const response = await acp.prompt(sessionId, "What do the notes say?")
      expect(response.stopReason).toBe("end_turn")
      const updates = acp.updatesOf(sessionId)
      expect(updates.map((u) => u.sessionUpdate)).toEqual([
        "session_info_update",
        "agent_thought_chunk",
        "agent_message_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "tool_call_update",
        ...Array<string>(4).fill("agent_message_chunk"),
        // What the session has spent, once the turn is over.
        "usage_update"
      ])
      expect(updates[0]).toEqual({ sessionUpdate: "session_info_update", title: "What do the notes say?" })
      expect(updates[4]).toMatchObject({
        sessionUpdate: "tool_call",
        toolCallId: "call_read",
        kind: "read",
        status: "pending",
        title: "Read notes.txt",
        locations: [{ path: join(workspace.cwd, "notes.txt") }],
        rawInput: { path: "notes.txt" }
      })
      expect(updates[5]).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_read", status: "in_progress" })
      expect(updates[6]).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_read", status: "completed" })
      expect(JSON.stringify(updates[6])).toContain("hello from disk")
      const messageIds = updates.flatMap((u) => (u.sessionUpdate === "agent_message_chunk" ? [u.messageId] : []))
      expect(new Set(messageIds).size).toBe(2)
      const text = updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("")
      expect(text).toBe("Reading the notes.The notes say hello.")
      expect(acp.permissionRequests).toEqual([])
      expect(acp.fileCalls).toEqual([])
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
    // On the wire, every update of the turn precedes the prompt's answer.
    const order = updatesBeforeResponse(acp.rawStdout(), "stopReason", acp.updates[0]?.sessionId ?? "")
    expect(order.updates).toHaveLength(acp.updates.length)
    expect(order.updates.every((i) => i < order.response)).toBe(true)
    const events = await exportEvents(workspace, acp.updates[0]?.sessionId ?? "")
    expect(events[0]).toMatchObject({ type: "session.created", payload: { client: "acp", cwd: workspace.cwd } })
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
    expect(readFileSync(join(workspace.cwd, "notes.txt"), "utf8")).toBe("hello from disk\n")
  })

  it("maps the turn's stop reasons; a failed turn answers with a JSON-RPC error after its updates", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const step = { chunks: [{ toolCall: { name: "list_files", input: {} } }] }
    const script = workspace.script("stops", {
      responses: [
        { chunks: [{ text: "Cut short" }], stopReason: "max_tokens" },
        { chunks: [{ text: "I won't." }], stopReason: "refusal" },
        { chunks: [{ text: "Partial answer" }], error: { code: "overloaded", message: "the model is overloaded" } },
        ...Array.from({ length: 50 }, () => step)
      ]
    })
    const acp = await startAcp(workspace, { script })
    try {
      const sessionId = await acp.newSession(workspace.cwd)
      expect(await acp.prompt(sessionId, "one")).toEqual({ stopReason: "max_tokens" })
      expect(await acp.prompt(sessionId, "two")).toEqual({ stopReason: "refusal" })
      const before = acp.updates.length
      const failure = await acp.prompt(sessionId, "three").then(
        () => undefined,
        (error: unknown) => error
      )
      expect(failure).toMatchObject({ code: -32603, message: expect.stringContaining("overloaded"), data: { errorCode: "overloaded" } })
      expect(acp.updates.slice(before).map((n) => n.update.sessionUpdate)).toContain("agent_message_chunk")
      expect(await acp.prompt(sessionId, "four")).toEqual({ stopReason: "max_turn_requests" })
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })
})
