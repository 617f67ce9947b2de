import { methods } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Script } from "../../src/layers/model/scripted.js"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const edit = (id: string, from: string, to: string) => ({
  chunks: [{ toolCall: { name: "edit_file", input: { path: "notes.txt", old_string: from, new_string: to }, id } }]
})

const setup = (script: Script) => {
  const workspace = makeWorkspace(temp)
  const file = join(workspace.cwd, "notes.txt")
  writeFileSync(file, "old line\n")
  return { workspace, file, script: workspace.script("permissions", script) }
}

describe("custom-agent acp: permission requests", () => {
  it("asks with the four options and the edit as a diff; allow once edits the file, shows the diff and records the user's decision", { timeout: 60_000 }, async () => {
    const { workspace, file, script } = setup({ responses: [edit("call_edit", "old", "new"), "Edited."] })
    const acp = await startAcp(workspace, { script, behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) } })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(sessionId, "edit it")).stopReason).toBe("end_turn")
      const [request] = acp.permissionRequests
      expect(request?.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"])
      expect(request?.toolCall).toMatchObject({ toolCallId: "call_edit", title: "edit notes.txt", kind: "edit", locations: [{ path: file }] })
      // The question shows the edit as a diff of the whole file, for the editor to render.
      expect(request?.toolCall.content).toEqual([{ type: "diff", path: file, oldText: "old line\n", newText: "new line\n" }])
      const updates = acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update")
      expect(updates.map((u) => ("status" in u ? u.status : undefined))).toEqual(["pending", "in_progress", "completed"])
      expect(updates[2]).toMatchObject({ content: [{ type: "diff", path: file, oldText: "old line\n", newText: "new line\n" }] })
    } finally {
      await acp.stop()
    }
    expect(readFileSync(file, "utf8")).toBe("new line\n")
    const events = await exportEvents(workspace, sessionId)
    expect(events.find((e) => e.type === "permission.resolved")?.payload).toMatchObject({ decision: "allow", scope: "once", by: "user" })
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })

  it("reject once leaves the file alone and the model is told the call was denied", { timeout: 60_000 }, async () => {
    const { workspace, file, script } = setup({ responses: [edit("call_edit", "old", "new"), "Understood, I will not edit it."] })
    const acp = await startAcp(workspace, { script, behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }) } })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(sessionId, "edit it")).stopReason).toBe("end_turn")
      const last = acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call_update").at(-1)
      expect(last).toMatchObject({ toolCallId: "call_edit", status: "failed" })
      expect(JSON.stringify(last)).toContain("Permission denied")
    } finally {
      await acp.stop()
    }
    expect(readFileSync(file, "utf8")).toBe("old line\n")
    const events = await exportEvents(workspace, sessionId)
    expect(events.find((e) => e.type === "permission.resolved")?.payload).toMatchObject({ decision: "deny", scope: "once", by: "user" })
    const result = events.find((e) => e.type === "tool.completed")
    expect(result?.payload).toMatchObject({ toolCallId: "call_edit", isError: true })
    expect(result?.type === "tool.completed" ? result.payload.output : "").toContain("Permission denied (the user)")
    expect(events.filter((e) => e.type === "tool.started")).toEqual([])
  })

  it("allow always is remembered: the same edit later runs without a question", { timeout: 60_000 }, async () => {
    const { workspace, file, script } = setup({ responses: [edit("call_1", "old", "new"), "One.", edit("call_2", "new", "newer"), "Two."] })
    const acp = await startAcp(workspace, { script, behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_always" } }) } })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(sessionId, "first")).stopReason).toBe("end_turn")
      expect((await acp.prompt(sessionId, "second")).stopReason).toBe("end_turn")
      expect(acp.permissionRequests.map((r) => r.toolCall.toolCallId)).toEqual(["call_1"])
    } finally {
      await acp.stop()
    }
    expect(readFileSync(file, "utf8")).toBe("newer line\n")
    const resolved = (await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "permission.resolved" ? [e.payload] : []))
    expect(resolved[0]).toMatchObject({ decision: "allow", scope: "always", by: "user" })
    expect(resolved[1]).toMatchObject({ decision: "allow", by: "remembered" })
  })

  it("offers the modes; plan refuses the edit without asking, accept-edits runs it without asking", { timeout: 60_000 }, async () => {
    const { workspace, file, script } = setup({ responses: [edit("call_plan", "old", "new"), "Refused.", edit("call_accept", "old", "new"), "Done."] })
    const acp = await startAcp(workspace, { script })
    let sessionId = ""
    try {
      const created = await acp.connection.agent.request(methods.agent.session.new, { cwd: workspace.cwd, mcpServers: [] })
      sessionId = created.sessionId
      expect(created.modes?.currentModeId).toBe("default")
      expect(created.modes?.availableModes.map((m) => m.id)).toEqual(["default", "plan", "accept-edits"])
      await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" })
      expect((await acp.prompt(sessionId, "try")).stopReason).toBe("end_turn")
      expect(readFileSync(file, "utf8")).toBe("old line\n")
      await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "accept-edits" })
      expect((await acp.prompt(sessionId, "again")).stopReason).toBe("end_turn")
      expect(acp.permissionRequests).toEqual([])
      await expect(acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "bypass" })).rejects.toMatchObject({ code: -32602 })
    } finally {
      await acp.stop()
    }
    expect(readFileSync(file, "utf8")).toBe("new line\n")
    const events = await exportEvents(workspace, sessionId)
    expect(events.flatMap((e) => (e.type === "turn.started" ? [e.payload.permissionMode] : []))).toEqual(["plan", "accept-edits"])
    expect(events.flatMap((e) => (e.type === "permission.resolved" ? [[e.payload.decision, e.payload.by]] : []))).toEqual([
      ["deny", "mode"],
      ["allow", "mode"]
    ])
  })
})
