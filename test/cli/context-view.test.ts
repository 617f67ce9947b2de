import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { emptyOverview, foldOverview, makeContextView } from "../../src/cli/context-view.js"
import { makeRenderer } from "../../src/cli/render.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { todoWriteTool } from "../../src/layers/tools/todo-write.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"

const view = (log: ReadonlyArray<AgentEvent>) => {
  const overview = log.reduce(foldOverview, emptyOverview())
  const context = makeContextView(overview, makeRenderer({ color: false, live: false }).render, false)
  return [...log.flatMap((event) => context.view(event)), ...context.end()].map((segment) => segment.text).join("")
}

const turn = (sessionId: string, content: string) =>
  Effect.flatMap(SessionEngine, (engine) => Stream.runCollect(engine.runTurn({ sessionId, content }))).pipe(Effect.map(Chunk.toArray))

const summary = "## Goal\nAnswer questions.\n\n## Progress\nTwo answered.\n\n## Next step\nThe third."

describe("sessions show --context", () => {
  it.effect("a compaction with its range and sections above the events it replaced; after a rewind past it, shown as undone", () =>
    Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: "/tmp", client: "test" })
      yield* turn(header.sessionId, "first question")
      yield* turn(header.sessionId, "second question")
      const compacted = yield* engine.compact(header.sessionId)
      const at = compacted._tag === "Some" ? compacted.value.sequence : 0
      yield* turn(header.sessionId, "third question")

      const before = view(yield* replayAll(header.sessionId))
      expect(before).toContain(`── compaction #${at} (request, in effect)`)
      expect(before).toMatch(/replaced events #1–#\d+ \(2 turn\(s\)\); history \d+ → \d+ tokens; 1 summary request\(s\)/)
      expect(before).toContain("Goal:\n     Answer questions.")
      expect(before).toContain("files changed through")
      expect(before).toContain("│ › first question")
      expect(before).toContain("│ › second question")
      // Events after the compaction are not among those it replaced.
      expect(before).not.toContain("│ › third question")
      expect(before).toContain(`the summary of compaction #${at} instead of events up to`)
      expect(before).toContain("task list (task.updated #")
      expect(before).toContain("1. [~] Answer the third (in progress)")

      yield* engine.rewind(header.sessionId, { to: { _tag: "Sequence", sequence: at - 1 }, what: "conversation", by: "test" })
      const after = view(yield* replayAll(header.sessionId))
      expect(after).toContain(`── compaction #${at} (request, undone by a rewind: the model sees these events verbatim again)`)
      expect(after).toContain("no summary in effect (every compaction was undone by a rewind)")
      // The list in force at the rewind's target: the one before the third turn's update.
      expect(after).toContain("1. [x] Answer the first (completed)")
      expect(after).not.toContain("Answer the third")
    }).pipe(
      Effect.provide(
        engineLayer(
          MemoryStore.layer,
          {
            responses: [
              { chunks: [{ toolCall: { name: "todo_write", input: { todos: [{ content: "Answer the first", status: "completed" }] } } }] },
              "a",
              "b",
              { chunks: [{ toolCall: { name: "todo_write", input: { todos: [{ content: "Answer the third", status: "in_progress" }] } } }] },
              "c"
            ],
            summaries: [summary]
          },
          { tools: [todoWriteTool] }
        )
      )
    ))

  it("a session never compacted: the whole conversation verbatim, no task list", () => {
    expect(view([])).toContain("no compaction: the whole conversation verbatim")
    expect(view([])).toContain("no task list")
  })
})
