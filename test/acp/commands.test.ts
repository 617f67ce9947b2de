import { methods, type SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeTemp } from "../support/temp-dirs.js"
import { exportEvents, makeWorkspace, rawMessages, startAcp, waitFor } from "./acp-harness.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const put = (root: string, files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true })
    writeFileSync(join(root, name), text)
  }
}

const adverts = (updates: ReadonlyArray<SessionUpdate>) => updates.flatMap((u) => (u.sessionUpdate === "available_commands_update" ? [u.availableCommands] : []))

/** Where on the wire the first response holding `key` is, and the session's command adverts. */
const advertOrder = (stdout: string, key: string, sessionId: string) => {
  const messages = rawMessages(stdout)
  const response = messages.findIndex((m) => typeof m["result"] === "object" && m["result"] !== null && key in m["result"])
  const advert = messages.findIndex((m) => m["method"] === "session/update" && JSON.stringify(m["params"]).includes("available_commands_update") && JSON.stringify(m["params"]).includes(sessionId))
  return { response, advert }
}

describe("custom-agent acp: slash commands", () => {
  it("advertises the workspace's and the user's commands after session/new and session/load, and runs `/name args` as the command", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    put(workspace.cwd, {
      ".claude/commands/greet.md": "---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $1.\n",
      ".claude/commands/team/review.md": "Review the change.\n"
    })
    put(workspace.claudeDir, { "commands/mine.md": "---\ndescription: The user's own\n---\nMine.\n" })
    const first = await startAcp(workspace, { script: workspace.script("first", { responses: ["Hello Ada."] }) })
    let sessionId = ""
    try {
      sessionId = await first.newSession(workspace.cwd)
      await waitFor(first, () => adverts(first.updatesOf(sessionId)).length > 0, "the commands advert")
      expect(adverts(first.updatesOf(sessionId))).toEqual([
        [
          { name: "greet", description: "Greet someone (project)", input: { hint: "<name>" } },
          { name: "mine", description: "The user's own (user)" },
          { name: "review", description: "Review the change. (project:team)" }
        ]
      ])
      // After the answer on the wire: the client knows the session by then.
      const order = advertOrder(first.rawStdout(), "sessionId", sessionId)
      expect(order.response).toBeGreaterThanOrEqual(0)
      expect(order.advert).toBeGreaterThan(order.response)

      expect((await first.prompt(sessionId, "/greet Ada")).stopReason).toBe("end_turn")
    } finally {
      expect(await first.stop()).toBe(0)
    }
    const messages = (await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "user.message" ? [e.payload] : []))
    expect(messages).toEqual([
      { content: "Say hello to Ada.", mode: "queue", command: { name: "greet", arguments: "Ada", source: "project", path: join(workspace.cwd, ".claude/commands/greet.md") } }
    ])

    const later = await startAcp(workspace, { script: workspace.script("later", { responses: [] }) })
    try {
      await later.connection.agent.request(methods.agent.session.load, { sessionId, cwd: workspace.cwd, mcpServers: [] })
      await waitFor(later, () => adverts(later.updatesOf(sessionId)).length > 0, "the commands advert after load")
      // The replay shows what the person typed, not the expansion.
      const replayedUser = later.updatesOf(sessionId).flatMap((u) => (u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? [u.content.text] : []))
      expect(replayedUser).toEqual(["/greet Ada"])
      const order = advertOrder(later.rawStdout(), "modes", sessionId)
      expect(order.advert).toBeGreaterThan(order.response)
    } finally {
      expect(await later.stop()).toBe(0)
    }
  })

  it("a workspace without commands gets no advert; a prompt starting with / is sent as it is", { timeout: 60_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("plain", { responses: ["ok"] }) })
    let sessionId = ""
    try {
      sessionId = await acp.newSession(workspace.cwd)
      expect((await acp.prompt(sessionId, "/etc/hosts looks odd")).stopReason).toBe("end_turn")
      expect(adverts(acp.updatesOf(sessionId))).toEqual([])
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    const messages = (await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "user.message" ? [e.payload] : []))
    expect(messages).toEqual([{ content: "/etc/hosts looks odd", mode: "queue" }])
  })
})
