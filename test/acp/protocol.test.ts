import { methods } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { testServer } from "../support/mcp-fixtures.js"
import { exportEvents, jsonRpcProblems, makeWorkspace, rawMessages, startAcp, waitFor } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const errorsOf = (stdout: string) => rawMessages(stdout).flatMap((m) => (typeof m["error"] === "object" && m["error"] !== null ? [m] : []))

describe("custom-agent acp: the protocol's edges", () => {
  it("answers malformed lines, batches, unknown methods and invalid params with JSON-RPC errors and stays up", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("edges", { responses: ["Still here."] }) })
    try {
      acp.writeRaw("{this is not json\n")
      acp.writeRaw("[1, 2]\n")
      acp.writeRaw('"a string"\n')
      await waitFor(acp, () => errorsOf(acp.rawStdout()).length === 3, "three protocol errors")
      expect(errorsOf(acp.rawStdout()).map((m) => [m["id"], Reflect.get(Object(m["error"]), "code")])).toEqual([
        [null, -32700],
        [null, -32600],
        [null, -32600]
      ])

      const agent = acp.connection.agent
      await expect(agent.request("session/teleport", { to: "mars" })).rejects.toMatchObject({ code: -32601 })
      await expect(agent.request("session/new", { mcpServers: [] })).rejects.toMatchObject({ code: -32602 })
      await expect(agent.request(methods.agent.session.new, { cwd: "relative/dir", mcpServers: [] })).rejects.toMatchObject({ code: -32602 })
      await expect(acp.prompt("ses_nowhere", "hello")).rejects.toMatchObject({ code: -32002 })
      await expect(
        agent.request(methods.agent.session.new, { cwd: workspace.cwd, mcpServers: [{ type: "sse", name: "old", url: "http://127.0.0.1:1/sse", headers: [] }] })
      ).rejects.toMatchObject({ code: -32602 })

      const sessionId = await acp.newSession(workspace.cwd)
      await expect(acp.prompt(sessionId, [{ type: "image", data: "AAAA", mimeType: "image/png" }])).rejects.toMatchObject({ code: -32602 })
      expect(await acp.prompt(sessionId, "are you there?")).toEqual({ stopReason: "end_turn" })
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })

  it("answers a line over 32 MiB with a JSON-RPC error and reads on from the next line", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("huge", { responses: ["Still here."] }) })
    try {
      const huge = `{"jsonrpc":"2.0","id":77,"method":"session/new","params":{"cwd":"${"x".repeat(33 * 1024 * 1024)}"}}\n`
      acp.writeRaw(huge)
      // Queued behind the huge line on the same pipe: answered only if the agent reads past it.
      const sessionId = await acp.newSession(workspace.cwd)
      expect(await acp.prompt(sessionId, "are you there?")).toEqual({ stopReason: "end_turn" })
      expect(errorsOf(acp.rawStdout())).toEqual([
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("exceeds the limit of 33554432 bytes"), data: { maxBytes: 33554432 } } }
      ])
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })

  it("turns resource links and embedded resources into prompt text with their URIs", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace)
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      const response = await acp.prompt(sessionId, [
        { type: "text", text: "Compare these." },
        { type: "resource_link", name: "a.ts", uri: `file://${workspace.cwd}/a.ts` },
        { type: "resource", resource: { uri: `file://${workspace.cwd}/b.ts`, text: "export const b = 2", mimeType: "text/x-typescript" } }
      ])
      expect(response.stopReason).toBe("end_turn")
    } finally {
      await acp.stop()
    }
    const message = (await exportEvents(workspace, sessionId)).find((e) => e.type === "user.message")
    const content = message?.type === "user.message" ? message.payload.content : ""
    expect(content).toContain("Compare these.")
    expect(content).toContain(`[a.ts](file://${workspace.cwd}/a.ts)`)
    expect(content).toContain(`<context uri="file://${workspace.cwd}/b.ts">\nexport const b = 2\n</context>`)
  })

  it("connects the MCP servers the client gives in session/new; their tools run behind the permission question", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const server = testServer("probe")
    if (!("command" in server)) throw new Error("the test server runs over stdio")
    const acp = await startAcp(workspace, {
      script: workspace.script("mcp", { responses: [{ chunks: [{ toolCall: { name: "mcp__probe__echo", input: { text: "ping" }, id: "call_mcp" } }] }, "Echoed."] }),
      behaviour: { onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }) }
    })
    try {
      const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: workspace.cwd,
        mcpServers: [{ name: server.name, command: server.command, args: [...server.args], env: [] }]
      })
      expect((await acp.prompt(sessionId, "echo ping")).stopReason).toBe("end_turn")
      const updates = acp.updatesOf(sessionId)
      expect(updates.find((u) => u.sessionUpdate === "tool_call")).toMatchObject({ toolCallId: "call_mcp", title: "probe: echo", kind: "other" })
      expect(updates.filter((u) => u.sessionUpdate === "tool_call_update").at(-1)).toMatchObject({
        toolCallId: "call_mcp",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "ping" } }]
      })
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })
})
