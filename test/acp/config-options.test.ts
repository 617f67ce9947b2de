import { methods } from "@agentclientprotocol/sdk/unstable"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { exportEvents, jsonRpcProblems, makeWorkspace, startAcp } from "./acp-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(() => temp.cleanup())

describe("custom-agent acp: config options (mode and model)", () => {
  it("offers the modes and the known models; a mode or a model set as an option is stored at once, and the next prompt asks that model; unknown values are refused", { timeout: 90_000 }, async () => {
    const workspace = makeWorkspace(temp)
    const acp = await startAcp(workspace, { script: workspace.script("options", { responses: ["Fine."] }) })
    let sessionId = ""
    try {
      const agent = acp.connection.agent
      const created = await agent.request(methods.agent.session.new, { cwd: workspace.cwd, mcpServers: [] })
      sessionId = created.sessionId
      const [mode, model] = created.configOptions ?? []
      expect(mode).toMatchObject({ id: "mode", type: "select", currentValue: "default" })
      expect(mode?.type === "select" ? mode.options.map((o) => ("value" in o ? o.value : "")) : []).toEqual(["default", "plan", "accept-edits"])
      // The legacy modes API says the same, for older clients.
      expect(created.modes?.currentModeId).toBe("default")
      // The models the web page's picker offers: the session's own first, the known ones after.
      expect(model).toMatchObject({ id: "model", type: "select", currentValue: "scripted" })
      const models = model?.type === "select" ? model.options.map((o) => ("value" in o ? o.value : "")) : []
      expect(models[0]).toBe("scripted")
      expect(models).toContain("anthropic/claude-sonnet-4-5")

      const set = (configId: string, value: string) => agent.request(methods.agent.session.setConfigOption, { sessionId, configId, value })
      const planned = await set("mode", "plan")
      expect(planned.configOptions.find((o) => o.id === "mode")?.currentValue).toBe("plan")
      expect((await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "session.mode_changed" ? [e.payload] : []))).toEqual([{ mode: "plan", by: "acp" }])
      await set("mode", "default")

      // Bad paths: an unknown value, an unknown option, a value of the wrong kind, a session not open here.
      await expect(set("mode", "bypass")).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("unknown mode bypass") })
      await expect(set("model", "acme/unheard-of")).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("unknown model acme/unheard-of") })
      await expect(set("temperature", "hot")).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("unknown config option temperature") })
      await expect(agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "mode", type: "boolean", value: true })).rejects.toMatchObject({ code: -32602 })
      await expect(agent.request(methods.agent.session.setConfigOption, { sessionId: "ses_missing", configId: "mode", value: "plan" })).rejects.toMatchObject({ code: -32002 })

      const picked = await set("model", "anthropic/claude-haiku-4-5")
      expect(picked.configOptions.find((o) => o.id === "model")?.currentValue).toBe("anthropic/claude-haiku-4-5")
      // Recorded at once, as acp's choice, before any prompt asks it.
      expect((await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "session.model_changed" ? [e.payload] : []))).toEqual([
        { model: "anthropic/claude-haiku-4-5", by: "acp" }
      ])
      // The next prompt asks that model (a script plays every model, so it answers) and records no second change.
      expect((await acp.prompt(sessionId, "who are you?")).stopReason).toBe("end_turn")
    } finally {
      expect(await acp.stop()).toBe(0)
    }
    expect((await exportEvents(workspace, sessionId)).flatMap((e) => (e.type === "session.model_changed" ? [e.payload] : []))).toEqual([
      { model: "anthropic/claude-haiku-4-5", by: "acp" }
    ])
    expect(jsonRpcProblems(acp.rawStdout())).toEqual([])
  })
})
