import { methods, type SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonRpcProblems, makeWorkspace, startAcp } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

const usageOf = (updates: ReadonlyArray<SessionUpdate>) => updates.flatMap((u) => (u.sessionUpdate === "usage_update" ? [u] : []))

describe("custom-agent acp: usage_update", () => {
  it("sends the context's fill and the session's cost once a turn, counting turns of an earlier process after a resume", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    // A dollar per input token and two per output token: costs easy to check.
    writeFileSync(join(workspace.configDir, "settings.json"), JSON.stringify({ prices: { scripted: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 } } }))
    const answer = (text: string) => ({ chunks: [{ text }], delayMs: 0, usage: { inputTokens: 10, outputTokens: 5 } })
    const earlier = await startAcp(workspace, { script: workspace.script("earlier", { responses: [answer("One.")] }) })
    let sessionId = ""
    try {
      sessionId = await earlier.newSession(workspace.cwd)
      expect((await earlier.prompt(sessionId, "first")).stopReason).toBe("end_turn")
      const [first, ...more] = usageOf(earlier.updatesOf(sessionId))
      expect(more).toEqual([])
      expect(first).toMatchObject({ used: 15, cost: { amount: 20, currency: "USD" } })
      expect(first?.size).toBeGreaterThan(0)
      // The last update of the turn: the spend is told once everything is counted.
      expect(earlier.updatesOf(sessionId).at(-1)?.sessionUpdate).toBe("usage_update")
    } finally {
      expect(await earlier.stop()).toBe(0)
    }

    const later = await startAcp(workspace, { script: workspace.script("later", { responses: [answer("Two.")] }) })
    try {
      await later.connection.agent.request(methods.agent.session.resume, { sessionId, cwd: workspace.cwd, mcpServers: [] })
      expect((await later.prompt(sessionId, "second")).stopReason).toBe("end_turn")
      // The session's cost: the earlier process's turn and this one.
      expect(usageOf(later.updatesOf(sessionId))).toMatchObject([{ used: 15, cost: { amount: 40, currency: "USD" } }])
    } finally {
      expect(await later.stop()).toBe(0)
    }
    expect(jsonRpcProblems(later.rawStdout())).toEqual([])
  })
})
