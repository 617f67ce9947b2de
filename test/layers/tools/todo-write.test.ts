import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import type { PermissionMode } from "../../../src/domain/permissions.js"
import * as MemoryStore from "../../../src/layers/event-store/memory.js"
import { todoWriteTool } from "../../../src/layers/tools/todo-write.js"
import { PermissionEngine } from "../../../src/services/PermissionEngine.js"
import { LocalFilesLive } from "../../../src/layers/tools/local-file-access.js"
import { Files } from "../../../src/services/ToolRouter.js"
import { engineLayer } from "../../support/engine-harness.js"
import { eventsOf } from "../../support/events.js"
import { makeScratch, writeRules } from "../permission/fixture.js"

const { scratch, cleanup } = makeScratch()
afterAll(cleanup)

const list = [
  { content: "Read the failing test", status: "completed" },
  { content: "Fix `parse()` — keep the API", status: "in_progress" },
  { content: "Run the suite", status: "pending" }
] as const

const modes: ReadonlyArray<PermissionMode> = ["default", "plan", "accept-edits", "bypass"]

describe("todo_write", () => {
  for (const mode of modes) {
    it.effect(`goes through the permission boundary and is allowed without asking in ${mode} mode; the list is recorded as task.updated`, () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: scratch().root, client: "test" })
        const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "plan it", permissionMode: mode })))
        expect(eventsOf(events, "permission.requested")).toHaveLength(0)
        expect(eventsOf(events, "permission.resolved")[0]?.payload).toMatchObject({ toolCallId: "todo_1", decision: "allow" })
        expect(eventsOf(events, "tool.completed")[0]?.payload).toMatchObject({ isError: false, output: "Task list updated: 1 of 3 completed, 1 in progress, 1 pending." })
        expect(eventsOf(events, "task.updated").map((e) => e.payload)).toEqual([{ toolCallId: "todo_1", todos: list }])
      }).pipe(
        Effect.provide(
          engineLayer(MemoryStore.layer, { responses: [{ chunks: [{ toolCall: { name: "todo_write", input: { todos: list }, id: "todo_1" } }] }, "ok"] }, { tools: [todoWriteTool] })
        )
      ))
  }

  it.effect("bad input is an error result the model can read; no task.updated, the list stays as it was", () =>
    Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: scratch().root, client: "test" })
      const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "plan it" })))
      const results = eventsOf(events, "tool.completed").map((e) => e.payload)
      expect(results.map((r) => r.isError)).toEqual([true, true, true])
      expect(results[0]?.output).toContain("status")
      expect(results[1]?.output).toContain("content")
      expect(eventsOf(events, "task.updated")).toHaveLength(0)
    }).pipe(
      Effect.provide(
        engineLayer(
          MemoryStore.layer,
          {
            responses: [
              {
                chunks: [
                  { toolCall: { name: "todo_write", input: { todos: [{ content: "x", status: "doing" }] } } },
                  { toolCall: { name: "todo_write", input: { todos: [{ content: "", status: "pending" }] } } },
                  { toolCall: { name: "todo_write", input: { todos: Array.from({ length: 101 }, () => ({ content: "x", status: "pending" })) } } }
                ]
              },
              "ok"
            ]
          },
          { tools: [todoWriteTool] }
        )
      )
    ))

  it.effect("a user's deny rule for todo_write holds: it is a tool like the others", () => {
    const s = scratch()
    writeRules(s.userRules, [{ tool: "todo_write", decision: "deny" }])
    return Effect.gen(function* () {
      const files = yield* Files
      const prepared = yield* todoWriteTool.prepare({ todos: list }, { sessionId: "s", toolCallId: "c", workspaceRoot: s.root, files })
      expect(prepared.risk).toBe("read")
      const permissions = yield* PermissionEngine
      const verdict = yield* permissions.decide({ sessionId: "s", workspaceRoot: s.root, tool: "todo_write", mode: "default", call: prepared, input: { todos: list } })
      expect(verdict.decision).toBe("deny")
    }).pipe(Effect.provide(Layer.merge(s.layer(), LocalFilesLive)))
  })
})
