import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { methods, type RequestPermissionResponse, type SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp, waitFor } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

/** A long answer, one word every 100 ms: time enough to cancel it halfway. */
const slow = { chunks: Array.from({ length: 100 }, (_, i) => ({ text: `word${i} ` })), delayMs: 100 }

const textOf = (updates: ReadonlyArray<SessionUpdate>) =>
  updates.map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "")).join("")

const stopReasons = async (workspace: Parameters<typeof exportEvents>[0], sessionId: string) =>
  (await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "turn.completed" ? [e.payload.stopReason] : []))

const edit = { chunks: [{ toolCall: { name: "edit_file", input: { path: "notes.txt", old_string: "old", new_string: "new" }, id: "call_edit" } }] }

describe("custom-agent acp: session/cancel", () => {
  it("cancels a streaming answer (cancelled, never end_turn); the next prompts work, also after a double cancel", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const script = workspace.script("cancel", {
      responses: [slow, "first after cancel", "second after cancel", slow, "first after double cancel", "second after double cancel"]
    })
    const acp = await startAcp(workspace, { script })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      const streaming = acp.prompt(sessionId, "talk")
      await waitFor(acp, () => acp.updatesOf(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"), "the answer to start")
      await acp.cancel(sessionId)
      expect((await streaming).stopReason).toBe("cancelled")
      expect(textOf(acp.updatesOf(sessionId))).not.toContain("word99")

      let seen = acp.updates.length
      expect(await acp.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" })
      expect(textOf(acp.updatesOf(sessionId).slice(seen))).toBe("first after cancel")
      seen = acp.updates.length
      expect(await acp.prompt(sessionId, "and again")).toEqual({ stopReason: "end_turn" })
      expect(textOf(acp.updatesOf(sessionId).slice(seen))).toBe("second after cancel")

      seen = acp.updates.length
      const second = acp.prompt(sessionId, "talk more")
      await waitFor(acp, () => acp.updates.length > seen, "the second answer to start")
      await acp.cancel(sessionId)
      await acp.cancel(sessionId)
      expect((await second).stopReason).toBe("cancelled")
      seen = acp.updates.length
      expect(await acp.prompt(sessionId, "after double")).toEqual({ stopReason: "end_turn" })
      expect(textOf(acp.updatesOf(sessionId).slice(seen))).toBe("first after double cancel")
      expect(await acp.prompt(sessionId, "after double, again")).toEqual({ stopReason: "end_turn" })
    } finally {
      await acp.stop()
    }
    expect(await stopReasons(workspace, sessionId)).toEqual(["cancelled", "final", "final", "cancelled", "final", "final"])
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })

  it("a cancel sent right behind its prompt still cancels it", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const short = { chunks: slow.chunks.slice(0, 20), delayMs: 50 }
    const acp = await startAcp(workspace, { script: workspace.script("cancel-now", { responses: [short, short] }) })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      const prompt = acp.prompt(sessionId, "talk")
      await acp.cancel(sessionId)
      expect((await prompt).stopReason).toBe("cancelled")
      expect((await acp.prompt(sessionId, "next")).stopReason).toBe("end_turn")
    } finally {
      await acp.stop()
    }
    // The cancel may have come before the turn started (then it never did) or after (then it was cancelled).
    const reasons = await stopReasons(workspace, sessionId)
    expect(reasons.at(-1)).toBe("final")
    expect(reasons.slice(0, -1).every((reason) => reason === "cancelled")).toBe(true)
  })

  it("cancels during a pending permission request: the request is withdrawn and settled, nothing runs", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const file = join(workspace.cwd, "notes.txt")
    writeFileSync(file, "old line\n")
    let withdrawn = false
    // Like an editor: the question stays open until the agent withdraws it, then it answers `cancelled`.
    const onPermission = (_: unknown, signal: AbortSignal) =>
      new Promise<RequestPermissionResponse>((resolve) =>
        signal.addEventListener("abort", () => {
          withdrawn = true
          resolve({ outcome: { outcome: "cancelled" } })
        })
      )
    const acp = await startAcp(workspace, { script: workspace.script("cancel-ask", { responses: [edit, "after"] }), behaviour: { onPermission } })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      const prompt = acp.prompt(sessionId, "edit")
      await waitFor(acp, () => acp.permissionRequests.length === 1, "the permission request")
      await acp.cancel(sessionId)
      expect((await prompt).stopReason).toBe("cancelled")
      await waitFor(acp, () => withdrawn, "the request to be withdrawn")
      expect(acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call_update").at(-1)).toMatchObject({
        toolCallId: "call_edit",
        status: "failed"
      })
      expect((await acp.prompt(sessionId, "next")).stopReason).toBe("end_turn")
    } finally {
      await acp.stop()
    }
    expect(readFileSync(file, "utf8")).toBe("old line\n")
    const events = await exportEvents(workspace, sessionId)
    expect(events.find((e) => e.type === "permission.resolved")?.payload).toMatchObject({ decision: "cancelled", by: "user" })
    expect(events.filter((e) => e.type === "tool.started")).toEqual([])
    expect(events.flatMap((e) => (e.type === "turn.completed" ? [e.payload.stopReason] : []))).toEqual(["cancelled", "final"])
  })

  it("a `cancelled` answer to the permission request cancels the turn", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    writeFileSync(join(workspace.cwd, "notes.txt"), "old line\n")
    const acp = await startAcp(workspace, {
      script: workspace.script("answer-cancelled", { responses: [edit, "after"] }),
      behaviour: { onPermission: () => ({ outcome: { outcome: "cancelled" } }) }
    })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(sessionId, "edit")).stopReason).toBe("cancelled")
      expect((await acp.prompt(sessionId, "next")).stopReason).toBe("end_turn")
    } finally {
      await acp.stop()
    }
    expect(await stopReasons(workspace, sessionId)).toEqual(["cancelled", "final"])
  })

  it("a client that goes away mid-turn leaves a closed turn behind and an agent that exits cleanly", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("gone", { responses: [slow] }) })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      const prompt = acp.prompt(sessionId, "talk").catch((error: unknown) => error)
      await waitFor(acp, () => acp.updatesOf(sessionId).length > 0, "the answer to start")
      expect(await acp.stop()).toBe(0)
      expect(await prompt).toBeInstanceOf(Error)
    } finally {
      await acp.stop()
    }
    expect(await stopReasons(workspace, sessionId)).toEqual(["cancelled"])
  })

  it("$/cancel_request for a pending prompt cancels its turn as session/cancel does", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("cancel-request", { responses: [slow, "after"] }) })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      const abort = new AbortController()
      const streaming = acp.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "talk" }] }, { cancellationSignal: abort.signal })
      await waitFor(acp, () => acp.updatesOf(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"), "the answer to start")
      abort.abort()
      const settled = await streaming.then((response) => ({ response }), (error: unknown) => ({ error }))
      // The SDK routes the cancel to the handler, which answers as a cancelled turn does.
      expect(settled).toEqual({ response: { stopReason: "cancelled" } })
      expect(textOf(acp.updatesOf(sessionId))).not.toContain("word99")
      expect(await acp.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" })
    } finally {
      await acp.stop()
    }
    expect(await stopReasons(workspace, sessionId)).toEqual(["cancelled", "final"])
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })
})
