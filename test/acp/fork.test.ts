import { methods } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const userMessages = (events: ReadonlyArray<{ readonly type: string; readonly payload: unknown }>) =>
  events.flatMap((e) => (e.type === "user.message" && typeof e.payload === "object" && e.payload !== null ? [Reflect.get(e.payload, "content")] : []))

describe("custom-agent acp: session/fork", () => {
  it("advertises fork, forks a session after a prompt into one that holds its history and takes prompts of its own", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("fork", { responses: ["Noted."] }) })
    try {
      expect(acp.initialized.agentCapabilities?.sessionCapabilities?.fork).toEqual({})

      const source = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(source, "Remember the word apple")).stopReason).toBe("end_turn")

      const forked = await acp.connection.agent.request(methods.agent.session.fork, { sessionId: source, cwd: workspace.cwd, mcpServers: [] })
      expect(forked.sessionId).not.toBe(source)
      expect(forked.modes?.currentModeId).toBe("default")

      // The fork is open on this connection: it takes a prompt at once, and answers it live.
      expect((await acp.prompt(forked.sessionId, "Which word did I say?")).stopReason).toBe("end_turn")
      const answer = acp.updatesOf(forked.sessionId).filter((u) => u.sessionUpdate !== "usage_update").map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : u.sessionUpdate))
      // The scripted model answers each session's requests in order: the fork's first is its own.
      expect(answer.join("")).toBe("Noted.")

      // Its log starts with the source's history, then goes on by itself; the source is as it was.
      const events = await exportEvents(workspace, forked.sessionId)
      expect(events.slice(0, 2).map((e) => e.type)).toEqual(["session.created", "session.forked"])
      expect(events[1]?.payload).toMatchObject({ sourceSessionId: source })
      expect(userMessages(events)).toEqual(["Remember the word apple", "Which word did I say?"])
      const sourceEvents = await exportEvents(workspace, source)
      expect(userMessages(sourceEvents)).toEqual(["Remember the word apple"])
      // The fork's request carried the source's conversation: more history than the source's first request had.
      const historyOf = (log: typeof events) => log.flatMap((e) => (e.type === "context.built" ? [e.payload.historyTokens] : []))
      expect(historyOf(events).at(-1)).toBeGreaterThan(historyOf(sourceEvents)[0] ?? Infinity)

      await expect(acp.connection.agent.request(methods.agent.session.fork, { sessionId: "ses_missing", cwd: workspace.cwd })).rejects.toMatchObject({
        code: -32002
      })
      await expect(acp.connection.agent.request(methods.agent.session.fork, { sessionId: source, cwd: "relative" })).rejects.toMatchObject({ code: -32602 })
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })
})
