import { methods } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { exportEvents, makeWorkspace, receivedOrder, startAcp } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

describe("custom-agent acp: files through the editor", () => {
  it("reads and edits the editor's buffer, not the disk, when the client offers fs", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const file = join(workspace.cwd, "notes.txt")
    writeFileSync(file, "disk text\n")
    const buffers = new Map([[file, "buffer text, unsaved\n"]])
    const writes: Array<{ path: string; content: string; sessionId: string }> = []
    const acp = await startAcp(workspace, {
      script: workspace.script("files", {
        responses: [
          {
            chunks: [
              { toolCall: { name: "read_file", input: { path: "notes.txt" }, id: "call_read" } },
              { toolCall: { name: "edit_file", input: { path: "notes.txt", old_string: "unsaved", new_string: "edited" }, id: "call_edit" } }
            ]
          },
          "Done."
        ]
      }),
      behaviour: {
        files: {
          read: (request) => buffers.get(request.path) ?? "",
          write: (request) => {
            writes.push(request)
            buffers.set(request.path, request.content)
          }
        }
      }
    })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: "accept-edits" })
      expect((await acp.prompt(sessionId, "edit the notes")).stopReason).toBe("end_turn")
      const done = acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")
      expect(JSON.stringify(done.find((u) => "toolCallId" in u && u.toolCallId === "call_read"))).toContain("buffer text, unsaved")
      expect(done.find((u) => "toolCallId" in u && u.toolCallId === "call_edit")).toMatchObject({
        content: [{ type: "diff", path: file, oldText: "buffer text, unsaved\n", newText: "buffer text, edited\n" }]
      })
      expect(writes).toEqual([{ sessionId, path: file, content: "buffer text, edited\n" }])
      expect(acp.fileCalls.every((call) => call.path === file)).toBe(true)
      expect(acp.fileCalls.map((call) => call.method)).toContain("read")
    } finally {
      await acp.stop()
    }
    expect(readFileSync(file, "utf8")).toBe("disk text\n")
    const completed = (await exportEvents(workspace, sessionId)).filter((e) => e.type === "tool.completed")
    expect(completed.map((e) => (e.type === "tool.completed" ? e.payload.isError : undefined))).toEqual([false, false])
  })

  it("sends each tool call before the file reads it causes; the question shows the edit as a diff of the buffer", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const file = join(workspace.cwd, "notes.txt")
    writeFileSync(file, "disk text\n")
    const buffers = new Map([[file, "buffer text, unsaved\n"]])
    const acp = await startAcp(workspace, {
      script: workspace.script("order", {
        responses: [
          { chunks: [{ toolCall: { name: "read_file", input: { path: "notes.txt" }, id: "call_read" } }] },
          { chunks: [{ toolCall: { name: "edit_file", input: { path: "notes.txt", old_string: "unsaved", new_string: "edited" }, id: "call_edit" } }] },
          { chunks: [{ toolCall: { name: "write_file", input: { path: "new.txt", content: "fresh\n" }, id: "call_write" } }] },
          "Done."
        ]
      }),
      behaviour: {
        onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
        files: {
          read: (request) => buffers.get(request.path) ?? "",
          write: (request) => void buffers.set(request.path, request.content)
        }
      }
    })
    try {
      const sessionId = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(sessionId, "edit the notes")).stopReason).toBe("end_turn")
      // Every request to the editor comes after the updates of everything before it: a tool call first, then its reads.
      const read = `fs/read_text_file ${file}`
      expect(receivedOrder(acp.rawStdout()).filter((entry) => !entry.endsWith("agent_message_chunk"))).toEqual([
        "update session_info_update",
        "update tool_call call_read",
        "update tool_call_update call_read",
        read,
        "update tool_call_update call_read",
        "update tool_call call_edit",
        read, // the tool's own preview
        read, // the question's diff
        "session/request_permission",
        "update tool_call_update call_edit",
        read,
        `fs/write_text_file ${file}`,
        "update tool_call_update call_edit",
        "update tool_call call_write",
        "session/request_permission",
        "update tool_call_update call_write",
        `fs/write_text_file ${join(workspace.cwd, "new.txt")}`,
        "update tool_call_update call_write",
        "update usage_update"
      ])

      const [edit, write] = acp.permissionRequests
      expect(edit?.toolCall).toMatchObject({
        toolCallId: "call_edit",
        kind: "edit",
        content: [{ type: "diff", path: file, oldText: "buffer text, unsaved\n", newText: "buffer text, edited\n" }]
      })
      expect(write?.toolCall).toMatchObject({
        toolCallId: "call_write",
        content: [{ type: "diff", path: join(workspace.cwd, "new.txt"), oldText: null, newText: "fresh\n" }]
      })
      const completed = acp.updatesOf(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")
      expect(completed.find((u) => "toolCallId" in u && u.toolCallId === "call_write")).toMatchObject({
        content: [{ type: "diff", path: join(workspace.cwd, "new.txt"), oldText: null, newText: "fresh\n" }]
      })
    } finally {
      await acp.stop()
    }
    expect(readFileSync(file, "utf8")).toBe("disk text\n")
  })
})
