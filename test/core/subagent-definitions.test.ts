import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { parentTurn, removeSubagentDirs, subagentEngine, subagentWorkspace, task } from "../support/subagent-fixture.js"

afterAll(removeSubagentDirs)

describe("subagents: definitions as Claude Code's community files write them", () => {
  it.effect("`tools: [read_file]` (a YAML list) is read; a task for a definition that cannot be used names its file and its fault", () => {
    const cwd = subagentWorkspace([{ name: "reviewer", description: "Reviews code", tools: "[read_file, Grep]", body: "You review." }])
    const broken = join(cwd, ".agents", "agents", "writer.md")
    writeFileSync(broken, "---\nname: writer\ndescription: Writes\ntools:\n  read: yes\n---\nYou write.\n")
    const script = {
      responses: [{ chunks: [task("reviewer", "review it", "call_reviewer"), task("writer", "write it", "call_writer")] }, "done"],
      agents: { reviewer: { responses: ["Looks fine."] } }
    }
    return Effect.gen(function* () {
      const { sessionId, events } = yield* parentTurn(cwd, "go")
      const offered = eventsOf(events, "context.built")[0]?.payload.tools
      expect(offered).toContain("task")
      const results = eventsOf(yield* replayAll(sessionId), "tool.completed").map((e) => e.payload)
      expect(results.find((r) => r.toolCallId === "call_reviewer")).toMatchObject({ isError: false })
      const writer = results.find((r) => r.toolCallId === "call_writer")
      expect(writer?.isError).toBe(true)
      expect(writer?.output).toContain(
        `no agent named "writer"; the agents are: reviewer; this definition cannot be used: ${broken}: "tools" must be tool names: on one line separated by commas, or a YAML list of names`
      )
    }).pipe(Effect.provide(subagentEngine(script)))
  })

  it.effect("with every definition malformed, a task call says which files and why, not that no agents are defined", () => {
    const cwd = subagentWorkspace([])
    const broken = join(cwd, ".agents", "agents", "reviewer.md")
    writeFileSync(broken, "---\nname: reviewer\ndescription: Reviews\ntools: [read_file\n---\nYou review.\n")
    const script = { responses: [{ chunks: [task("reviewer", "review it", "call_reviewer")] }, "done"] }
    return Effect.gen(function* () {
      const { sessionId } = yield* parentTurn(cwd, "go")
      const result = eventsOf(yield* replayAll(sessionId), "tool.completed").find((e) => e.payload.toolCallId === "call_reviewer")?.payload
      expect(result?.isError).toBe(true)
      expect(result?.output).toContain(
        `no agent named "reviewer"; no agent definition can be used; this definition cannot be used: ${broken}: line 4: the list is not closed by "]"`
      )
      expect(result?.output).not.toContain("no agents are defined")
    }).pipe(Effect.provide(subagentEngine(script)))
  })
})
