import { methods, type SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp, updatesBeforeResponse } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

describe("custom-agent acp: session/load and session/list", () => {
  it("replays a session of an earlier process as updates before answering, tool calls included; it goes on from there", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const notes = join(workspace.cwd, "notes.txt")
    writeFileSync(notes, "hi there\n")
    const earlier = await startAcp(workspace, {
      script: workspace.script("earlier", {
        responses: [
          { chunks: [{ thinking: "Look first." }, { text: "Let me read." }, { toolCall: { name: "read_file", input: { path: "notes.txt" }, id: "call_read" } }] },
          "It says hi.",
          { chunks: [{ toolCall: { name: "edit_file", input: { path: "notes.txt", old_string: "hi", new_string: "bye" }, id: "call_edit" } }] },
          "Edited."
        ]
      })
    })
    let sessionId = ""
    let live: ReadonlyArray<SessionUpdate> = []
    try {
      sessionId = await earlier.newSession(workspace.cwd)
      expect((await earlier.prompt(sessionId, "What is in the notes?")).stopReason).toBe("end_turn")
      await earlier.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "accept-edits" })
      expect((await earlier.prompt(sessionId, "Change it.")).stopReason).toBe("end_turn")
      live = earlier.updatesOf(sessionId)
    } finally {
      expect(await earlier.stop()).toBe(0)
    }

    const later = await startAcp(workspace, { script: workspace.script("later", { responses: ["Welcome back."] }) })
    try {
      const loaded = await later.connection.agent.request(methods.agent.session.load, { sessionId, cwd: workspace.cwd, mcpServers: [] })
      expect(loaded?.modes?.currentModeId).toBe("accept-edits")
      // Before the answer: on the wire, every replayed update precedes the load response.
      const order = updatesBeforeResponse(later.rawStdout(), "modes", sessionId)
      expect(order.response).toBeGreaterThan(0)
      expect(order.updates.length).toBeGreaterThan(0)
      expect(order.updates.every((i) => i < order.response)).toBe(true)

      const replayed = later.updatesOf(sessionId)
      expect(replayed.length).toBe(order.updates.length)
      expect(replayed.map((u) => u.sessionUpdate)).toEqual([
        "user_message_chunk",
        "session_info_update",
        "agent_thought_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "tool_call_update",
        "agent_message_chunk",
        "agent_message_chunk",
        "agent_message_chunk",
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "tool_call_update",
        "agent_message_chunk",
        "usage_update"
      ])
      // The replay is what the client saw live, plus the user's messages; the spend once, as it was after the last turn.
      const withoutUsage = (updates: ReadonlyArray<SessionUpdate>) => updates.filter((u) => u.sessionUpdate !== "usage_update")
      expect(withoutUsage(replayed.filter((u) => u.sessionUpdate !== "user_message_chunk"))).toEqual(withoutUsage(live))
      expect(replayed.at(-1)).toEqual(live.at(-1))
      const users = replayed.flatMap((u) => (u.sessionUpdate === "user_message_chunk" ? [u] : []))
      expect(users.map((u) => (u.content.type === "text" ? u.content.text : ""))).toEqual(["What is in the notes?", "Change it."])
      expect(new Set(users.map((u) => u.messageId)).size).toBe(2)
      expect(replayed[13]).toMatchObject({ toolCallId: "call_edit", status: "completed", content: [{ type: "diff", path: notes, oldText: "hi there\n", newText: "bye there\n" }] })

      const before = later.updates.length
      expect((await later.prompt(sessionId, "Hello again")).stopReason).toBe("end_turn")
      expect(later.updates.slice(before).map((n) => n.update.sessionUpdate)).toEqual(["agent_message_chunk", "agent_message_chunk", "usage_update"])

      await expect(later.connection.agent.request(methods.agent.session.load, { sessionId: "ses_missing", cwd: workspace.cwd, mcpServers: [] })).rejects.toMatchObject({
        code: -32002
      })
    } finally {
      expect(await later.stop()).toBe(0)
    }
    expect(jsonRpcProblems(later.rawStdout())).toEqual([])
  })

  it("session/set_mode is stored at once: a new process that loads the session is in plan mode and refuses a write", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const target = join(workspace.cwd, "plan.txt")
    const earlier = await startAcp(workspace)
    let sessionId = ""
    try {
      sessionId = await earlier.newSession(workspace.cwd)
      // Only the mode: no prompt runs in this process.
      await earlier.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" })
    } finally {
      expect(await earlier.stop()).toBe(0)
    }

    const script = workspace.script("plan", {
      responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "plan.txt", content: "written" }, id: "call_write" } }] }, "Refused."]
    })
    // Whatever the editor would answer, plan mode must not even ask.
    const later = await startAcp(workspace, { script, behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) } })
    try {
      const loaded = await later.connection.agent.request(methods.agent.session.load, { sessionId, cwd: workspace.cwd, mcpServers: [] })
      expect(loaded?.modes?.currentModeId).toBe("plan")
      expect((await later.prompt(sessionId, "Write plan.txt")).stopReason).toBe("end_turn")
      expect(later.permissionRequests).toEqual([])
      expect(later.updatesOf(sessionId)).toContainEqual(expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "call_write", status: "failed" }))
    } finally {
      expect(await later.stop()).toBe(0)
    }
    expect(existsSync(target)).toBe(false)
    const events = await exportEvents(workspace, sessionId)
    expect(events.flatMap((e) => (e.type === "session.mode_changed" ? [e.payload] : []))).toEqual([{ mode: "plan", by: "acp" }])
    expect(events.flatMap((e) => (e.type === "turn.started" ? [e.payload.permissionMode] : []))).toEqual(["plan"])
    expect(events.flatMap((e) => (e.type === "permission.resolved" ? [[e.payload.decision, e.payload.by]] : []))).toEqual([["deny", "mode"]])
  })

  it("a new session reports the default mode; set_mode on a session this connection did not open is refused", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace)
    try {
      const created = await acp.connection.agent.request(methods.agent.session.new, { cwd: workspace.cwd, mcpServers: [] })
      expect(created.modes?.currentModeId).toBe("default")
      await expect(acp.connection.agent.request(methods.agent.session.setMode, { sessionId: "ses_elsewhere", modeId: "plan" })).rejects.toMatchObject({ code: -32002 })
    } finally {
      await acp.stop()
    }
  })

  it("a session takes its title from its first prompt: sent as a session_info_update, listed, and replayed on load", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const earlier = await startAcp(workspace, { script: workspace.script("titled", { responses: ["One.", "Two."] }) })
    let sessionId = ""
    try {
      sessionId = await earlier.newSession(workspace.cwd)
      expect((await earlier.prompt(sessionId, "  Fix the   flaky build\nin CI, please  ")).stopReason).toBe("end_turn")
      expect((await earlier.prompt(sessionId, "And the docs.")).stopReason).toBe("end_turn")
      const infos = earlier.updatesOf(sessionId).filter((u) => u.sessionUpdate === "session_info_update")
      // Once, with the first prompt on one line, as `run` titles its sessions.
      expect(infos).toEqual([{ sessionUpdate: "session_info_update", title: "Fix the flaky build in CI, please" }])
      const order = updatesBeforeResponse(earlier.rawStdout(), "stopReason", sessionId)
      expect(order.updates[0]).toBeLessThan(order.response)
      const listed = await earlier.connection.agent.request(methods.agent.session.list, {})
      expect(listed.sessions).toMatchObject([{ sessionId, title: "Fix the flaky build in CI, please" }])
    } finally {
      expect(await earlier.stop()).toBe(0)
    }
    const later = await startAcp(workspace)
    try {
      await later.connection.agent.request(methods.agent.session.load, { sessionId, cwd: workspace.cwd, mcpServers: [] })
      expect(later.updatesOf(sessionId).filter((u) => u.sessionUpdate === "session_info_update")).toEqual([
        { sessionUpdate: "session_info_update", title: "Fix the flaky build in CI, please" }
      ])
    } finally {
      expect(await later.stop()).toBe(0)
    }
  })

  it("lists the stored sessions, filtered by workspace", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const other = join(workspace.cwd, "sub")
    const acp = await startAcp(workspace)
    try {
      const here = await acp.newSession(workspace.cwd)
      const there = await acp.newSession(other)
      const all = await acp.connection.agent.request(methods.agent.session.list, {})
      expect(all.sessions.map((s) => s.sessionId).sort()).toEqual([here, there].sort())
      expect(all.nextCursor ?? undefined).toBeUndefined()
      const filtered = await acp.connection.agent.request(methods.agent.session.list, { cwd: other })
      expect(filtered.sessions).toMatchObject([{ sessionId: there, cwd: other }])
    } finally {
      await acp.stop()
    }
  })
})
