import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import * as path from "node:path"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import type { AgentEvent, EventOf } from "../../../src/domain/events.js"
import * as MemoryStore from "../../../src/layers/event-store/memory.js"
import * as SkillFolders from "../../../src/layers/skills/folders.js"
import { loadSkillTool } from "../../../src/layers/skills/load-skill-tool.js"
import { engineLayer, types } from "../../support/engine-harness.js"
import { skillMd, skillTree } from "./skill-fixture.js"

const completed = (events: ReadonlyArray<AgentEvent>) =>
  events.filter((e): e is EventOf<"tool.completed"> => e.type === "tool.completed").map((e) => e.payload)

describe("load_skill in a turn", () => {
  it.scoped("the model loads a skill and answers; tool.completed carries the body and which skill it was", () =>
    Effect.gen(function* () {
      const { repo, configDir, cwd } = yield* skillTree({
        ".agents/skills/release/SKILL.md": skillMd("release", "cut a release", "1. Bump the version.\n2. Tag it.")
      })
      const script = { responses: [{ chunks: [{ toolCall: { name: "load_skill", input: { name: "release" } } }] }, "Following the release skill."] }
      const events = yield* Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd, client: "test" })
        return Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "release it" })))
      }).pipe(Effect.provide(engineLayer(MemoryStore.layer, script, { tools: [loadSkillTool(SkillFolders.make({ configDir }))] })))

      expect(types(events).filter((t) => t !== "model.delta" && !t.startsWith("context."))).toEqual([
        "turn.started",
        "user.message",
        "session.renamed",
        "model.tool_call_requested",
        "model.completed",
        "permission.resolved",
        "tool.started",
        "tool.completed",
        "skill.loaded",
        "model.completed",
        "turn.completed"
      ])
      const resolved = events.find((e): e is EventOf<"permission.resolved"> => e.type === "permission.resolved")
      expect(resolved?.payload).toMatchObject({ decision: "allow", by: "default" })
      const [result] = completed(events)
      expect(result?.isError).toBe(false)
      expect(result?.output).toContain('Skill "release" (project skill')
      expect(result?.output).toContain("1. Bump the version.\n2. Tag it.")
      expect(result?.data).toEqual({ _tag: "skill", name: "release", path: path.join(repo, ".agents/skills/release/SKILL.md") })
      const answer = events.flatMap((e) => (e.type === "model.delta" ? [e.payload.text] : [])).join("")
      expect(answer).toBe("Following the release skill.")
      expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
    })
  )
})
