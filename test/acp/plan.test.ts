import { methods } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { planAnswerOf } from "../../src/acp/plan-question.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp } from "./acp-harness.js"
import { eventsOf } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const call = (name: string, input: unknown, id: string) => ({ chunks: [{ toolCall: { name, input, id } }] })
const plan = "# Plan\n\n1. Write a.txt"
const script: Script = { responses: [call("exit_plan_mode", { plan }, "call_plan"), call("write_file", { path: "a.txt", content: "hi\n" }, "call_write"), "Done."] }

describe("custom-agent acp: plan mode ends in a plan", () => {
  it("the plan is put to the editor as a mode switch; accept-edits approves it, the editor's mode follows and the write runs without a question", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, {
      script: workspace.script("plan", { responses: [...script.responses, "Again."] }),
      behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "accept-edits" } }) }
    })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" })
      expect((await acp.prompt(sessionId, "add a.txt")).stopReason).toBe("end_turn")
      // One question, the plan's: its three choices and the plan itself.
      expect(acp.permissionRequests).toHaveLength(1)
      const [request] = acp.permissionRequests
      expect(request?.options.map((o) => [o.optionId, o.kind])).toEqual([
        ["accept-edits", "allow_always"],
        ["default", "allow_once"],
        ["plan", "reject_once"]
      ])
      expect(request?.toolCall).toMatchObject({ toolCallId: "call_plan", kind: "switch_mode", content: [{ type: "content", content: { type: "text", text: plan } }] })
      const updates = acp.updatesOf(sessionId)
      expect(updates.filter((u) => u.sessionUpdate === "current_mode_update").map((u) => ("currentModeId" in u ? u.currentModeId : undefined))).toEqual(["accept-edits"])
      // Clients on ACP 1.7's config options see the same change in the mode option.
      const options = updates.flatMap((u) => (u.sessionUpdate === "config_option_update" ? [u.configOptions] : []))
      expect(options.map((list) => list.find((o) => o.id === "mode")?.currentValue)).toEqual(["accept-edits"])
      expect(updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_plan")).toMatchObject({ kind: "switch_mode", title: "Propose a plan" })
      // The next prompt runs in the mode the plan was approved into, not the plan mode the editor set before.
      expect((await acp.prompt(sessionId, "and again")).stopReason).toBe("end_turn")
    } finally {
      await acp.stop()
    }
    expect(readFileSync(join(workspace.cwd, "a.txt"), "utf8")).toBe("hi\n")
    const events = await exportEvents(workspace, sessionId)
    expect(eventsOf(events, "plan.resolved").map((e) => e.payload)).toEqual([{ toolCallId: "call_plan", decision: "approved", by: "user", mode: "accept-edits", client: "acp" }])
    expect(eventsOf(events, "session.mode_changed").map((e) => e.payload)).toEqual([
      { mode: "plan", by: "acp" },
      { mode: "accept-edits", by: "acp" }
    ])
    expect(eventsOf(events, "turn.started").map((e) => e.payload.permissionMode)).toEqual(["plan", "accept-edits"])
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })

  it("keep planning sends it back: the session stays in plan mode and the write is refused", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, {
      script: workspace.script("plan", script),
      behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "plan" } }) }
    })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "plan" })
      expect((await acp.prompt(sessionId, "add a.txt")).stopReason).toBe("end_turn")
      expect(acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "current_mode_update")).toEqual([])
    } finally {
      await acp.stop()
    }
    expect(existsSync(join(workspace.cwd, "a.txt"))).toBe(false)
    const events = await exportEvents(workspace, sessionId)
    expect(eventsOf(events, "plan.resolved")[0]?.payload).toEqual({ toolCallId: "call_plan", decision: "rejected", by: "user", client: "acp" })
    expect(eventsOf(events, "permission.resolved").find((e) => e.payload.toolCallId === "call_write")?.payload).toMatchObject({ decision: "deny", by: "mode" })
  })

  it("an option the agent did not offer keeps planning, never approves", () => {
    expect(planAnswerOf({ outcome: "selected", optionId: "bypass" })).toEqual({ decision: "deny", scope: "once" })
    expect(planAnswerOf({ outcome: "selected", optionId: "allow_always" })).toEqual({ decision: "deny", scope: "once" })
    expect(planAnswerOf({ outcome: "cancelled" })).toBe("cancelled")
  })
})
