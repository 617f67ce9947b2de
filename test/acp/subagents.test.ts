import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const textsOf = (u: SessionUpdate): Array<string> =>
  u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"
    ? (u.content ?? []).flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : []))
    : []

const agentFile = "---\nname: helper\ndescription: Reads and writes files\n---\nYou help.\n"

describe("custom-agent acp: subagents", () => {
  it("a task is a tool call whose content streams the child's progress and ends with its answer; the child's question reaches the editor, labelled", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    mkdirSync(join(workspace.cwd, ".agents", "agents"), { recursive: true })
    writeFileSync(join(workspace.cwd, ".agents", "agents", "helper.md"), agentFile)
    writeFileSync(join(workspace.cwd, "notes.txt"), "alpha\n")
    const script = workspace.script("subagents", {
      responses: [{ chunks: [{ toolCall: { name: "task", input: { agent: "helper", prompt: "Copy notes.txt to copy.txt" }, id: "call_task" } }] }, "The helper copied it."],
      agents: {
        helper: {
          responses: [
            { chunks: [{ toolCall: { name: "read_file", input: { path: "notes.txt" }, id: "call_read" } }] },
            { chunks: [{ text: "Writing the copy. " }, { toolCall: { name: "write_file", input: { path: "copy.txt", content: "alpha\n" }, id: "call_write" } }] },
            "Copied notes.txt to copy.txt."
          ]
        }
      }
    })
    const acp = await startAcp(workspace, { script, behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) } })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(sessionId, "copy my notes")).stopReason).toBe("end_turn")
      const [request] = acp.permissionRequests
      expect(request?.toolCall.title).toMatch(/^\[subagent helper\] /)
      const task = acp.updatesOf(sessionId).filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === "call_task")
      const texts = task.flatMap(textsOf)
      // The child's progress streamed into the call: its tool calls, then its text.
      expect(texts.some((t) => t.includes("read_file") && t.includes("✓"))).toBe(true)
      expect(texts.some((t) => t.includes("Writing the copy."))).toBe(true)
      // The last update is the result: the child's answer.
      expect(task.at(-1)).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "Copied notes.txt to copy.txt." } }] })
    } finally {
      await acp.stop()
    }
    expect(readFileSync(join(workspace.cwd, "copy.txt"), "utf8")).toBe("alpha\n")
    const events = await exportEvents(workspace, sessionId)
    expect(events.find((e) => e.type === "subagent.completed")?.payload).toMatchObject({ agent: "helper", stopReason: "final" })
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })
})
