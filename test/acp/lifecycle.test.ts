import { methods, type SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp, waitFor } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

/** A long answer, one word every 100 ms: a turn that is still running when the test acts. */
const slow = { chunks: Array.from({ length: 100 }, (_, i) => ({ text: `word${i} ` })), delayMs: 100 }

const textOf = (updates: ReadonlyArray<SessionUpdate>) =>
  updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("")

const stopReasons = async (workspace: Parameters<typeof exportEvents>[0], sessionId: string) =>
  (await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "turn.completed" ? [e.payload.stopReason] : []))

describe("custom-agent acp: session lifecycle (ACP 1.7)", () => {
  it("advertises resume, close, delete, list, fork and archive, and config options on every session it opens", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("caps", { responses: [] }) })
    try {
      expect(acp.initialized.agentCapabilities?.loadSession).toBe(true)
      expect(acp.initialized.agentCapabilities?.sessionCapabilities).toEqual({ list: {}, resume: {}, close: {}, delete: {}, fork: {}, archive: {} })
      const created = await acp.connection.agent.request(methods.agent.session.new, { cwd: workspace.cwd, mcpServers: [] })
      expect(created.configOptions?.map((option) => [option.id, option.category])).toEqual([
        ["mode", "mode"],
        ["model", "model"]
      ])
    } finally {
      expect(await acp.stop()).toBe(0)
    }
  })

  it("session/resume attaches to a session of an earlier process without replaying it; the next prompt goes on from its history", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const earlier = await startAcp(workspace, { script: workspace.script("earlier", { responses: ["First answer."] }) })
    let sessionId = ""
    try {
      sessionId = await earlier.newSession(workspace.cwd)
      expect((await earlier.prompt(sessionId, "Hello")).stopReason).toBe("end_turn")
      await earlier.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" })
    } finally {
      expect(await earlier.stop()).toBe(0)
    }

    const later = await startAcp(workspace, { script: workspace.script("later", { responses: ["Second answer."] }) })
    try {
      const agent = later.connection.agent
      const resumed = await agent.request(methods.agent.session.resume, { sessionId, cwd: workspace.cwd, mcpServers: [] })
      expect(resumed.modes?.currentModeId).toBe("plan")
      expect(resumed.configOptions?.find((option) => option.id === "mode")).toMatchObject({ currentValue: "plan" })
      // Nothing of the history came: no replay.
      expect(later.updatesOf(sessionId)).toEqual([])

      expect((await later.prompt(sessionId, "Again")).stopReason).toBe("end_turn")
      const live = later.updatesOf(sessionId)
      expect(textOf(live)).toBe("Second answer.")
      // The answer's chunks carry one message id.
      const ids = live.flatMap((u) => (u.sessionUpdate === "agent_message_chunk" ? [u.messageId] : []))
      expect(ids.length).toBeGreaterThan(0)
      expect(new Set(ids).size).toBe(1)
      expect(typeof ids[0]).toBe("string")

      // Bad paths: an unknown session, a relative cwd, another workspace.
      await expect(agent.request(methods.agent.session.resume, { sessionId: "ses_missing", cwd: workspace.cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32002 })
      await expect(agent.request(methods.agent.session.resume, { sessionId, cwd: "relative", mcpServers: [] })).rejects.toMatchObject({ code: -32602 })
      const elsewhere = join(workspace.cwd, "sub")
      mkdirSync(elsewhere)
      await expect(agent.request(methods.agent.session.resume, { sessionId, cwd: elsewhere, mcpServers: [] })).rejects.toMatchObject({ code: -32602 })
    } finally {
      expect(await later.stop()).toBe(0)
    }
    const users = (await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "user.message" ? [e.payload.content] : []))
    expect(users).toEqual(["Hello", "Again"])
    expect(jsonRpcProblems(later.rawStdout())).toEqual([])
  })

  it("session/close cancels this connection's prompt and stops taking prompts for the session; an idle close cancels nothing", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("close", { responses: ["Done.", slow] }) })
    let busy = ""
    let idle = ""
    try {
      const agent = acp.connection.agent
      busy = await acp.newSession(workspace.cwd)
      // The scripted model answers each session's requests in order: its first answer is quick, its second slow.
      expect((await acp.prompt(busy, "hi")).stopReason).toBe("end_turn")
      const before = acp.updatesOf(busy).length
      const streaming = acp.prompt(busy, "talk")
      await waitFor(acp, () => acp.updatesOf(busy).slice(before).some((u) => u.sessionUpdate === "agent_message_chunk"), "the answer to start")
      await agent.request(methods.agent.session.close, { sessionId: busy })
      expect((await streaming).stopReason).toBe("cancelled")
      await expect(acp.prompt(busy, "still there?")).rejects.toMatchObject({ code: -32002 })

      idle = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(idle, "hi")).stopReason).toBe("end_turn")
      await agent.request(methods.agent.session.close, { sessionId: idle })
      await expect(agent.request(methods.agent.session.setMode, { sessionId: idle, modeId: "plan" })).rejects.toMatchObject({ code: -32002 })
      // Closed here, not gone: it can be resumed.
      await agent.request(methods.agent.session.resume, { sessionId: idle, cwd: workspace.cwd, mcpServers: [] })
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(await stopReasons(workspace, busy)).toEqual(["final", "cancelled"])
    expect(await stopReasons(workspace, idle)).toEqual(["final"])
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })

  it("session/delete is refused while a turn runs, with a reason to act on; once it is over the session is gone", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("delete", { responses: [slow] }) })
    try {
      const agent = acp.connection.agent
      const sessionId = await acp.newSession(workspace.cwd)
      const streaming = acp.prompt(sessionId, "talk")
      await waitFor(acp, () => acp.updatesOf(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"), "the answer to start")
      await expect(agent.request(methods.agent.session.delete, { sessionId })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining("cannot be deleted while a turn runs on it"),
        data: { reason: "TurnInProgress", sessionId }
      })
      await acp.cancel(sessionId)
      expect((await streaming).stopReason).toBe("cancelled")

      await agent.request(methods.agent.session.delete, { sessionId })
      const listed = await agent.request(methods.agent.session.list, { archived: "include" })
      expect(listed.sessions.map((s) => s.sessionId)).not.toContain(sessionId)
      await expect(acp.prompt(sessionId, "hello?")).rejects.toMatchObject({ code: -32002 })
      await expect(agent.request(methods.agent.session.load, { sessionId, cwd: workspace.cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32002 })
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })

  it("session/list leaves out subagents' sessions, and archived ones unless the filter asks for them", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    mkdirSync(join(workspace.cwd, ".agents", "agents"), { recursive: true })
    writeFileSync(join(workspace.cwd, ".agents", "agents", "helper.md"), "---\nname: helper\ndescription: Answers\n---\nYou help.\n")
    const script = workspace.script("list", {
      responses: [{ chunks: [{ toolCall: { name: "task", input: { agent: "helper", prompt: "Say hi" }, id: "call_task" } }] }, "The helper said hi.", "Plain."],
      agents: { helper: { responses: ["Hi."] } }
    })
    const acp = await startAcp(workspace, { script })
    try {
      const agent = acp.connection.agent
      const parent = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(parent, "delegate")).stopReason).toBe("end_turn")
      const other = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(other, "plain")).stopReason).toBe("end_turn")
      const child = (await exportEvents(workspace, parent)).flatMap((e) => (e.type === "subagent.started" ? [e.payload.childSessionId] : []))[0]
      expect(child).toBeDefined()

      const ids = async (archived?: string) =>
        (await agent.request(methods.agent.session.list, archived === undefined ? {} : { archived })).sessions.map((s) => s.sessionId).sort()
      expect(await ids()).toEqual([other, parent].sort())

      await agent.request(methods.agent.session.archive, { sessionId: other })
      expect(await ids()).toEqual([parent])
      expect(await ids("include")).toEqual([other, parent].sort())
      expect(await ids("only")).toEqual([other])
      const included = await agent.request(methods.agent.session.list, { archived: "include" })
      expect(included.sessions.find((s) => s.sessionId === other)?.archived).toBe(true)
      expect(included.sessions.find((s) => s.sessionId === parent)?.archived).toBe(false)
      await expect(agent.request(methods.agent.session.list, { archived: "sometimes" })).rejects.toMatchObject({ code: -32602 })

      await agent.request(methods.agent.session.unarchive, { sessionId: other })
      expect(await ids()).toEqual([other, parent].sort())
      await expect(agent.request(methods.agent.session.archive, { sessionId: "ses_missing" })).rejects.toMatchObject({ code: -32002 })
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })
})
