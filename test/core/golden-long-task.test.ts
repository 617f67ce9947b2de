import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Ref, Stream } from "effect"
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { todoWriteTool } from "../../src/layers/tools/todo-write.js"
import { writeFileTool } from "../../src/layers/tools/write-file.js"
import { ContextBuilder } from "../../src/services/ContextBuilder.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { expectGolden, goldenTranscript } from "../support/golden.js"
import { eventsOf, parseEventLines } from "../support/events.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"

/**
 * A golden long task: five turns with a task list, a window so small that older turns are
 * compacted again and again. The log must match the golden one, and the golden log alone must
 * rebuild the very requests the model was sent (`requests.json`): the replay mechanism pinned.
 */
const golden = resolve(import.meta.dirname, "../fixtures/golden/long-task")
const workspaces: Array<string> = []
afterAll(() => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
})

const context = Layer.succeed(ContextBuilder, {
  sources: () =>
    Effect.succeed([
      { kind: "system" as const, id: "built-in", text: "You are a coding agent. Keep a task list with todo_write for work of several steps." },
      { kind: "instructions" as const, id: "AGENTS.md", text: "Write guides in plain Markdown; one file per part." }
    ])
})

const requestsJson = (requests: ReadonlyArray<{ readonly system: string; readonly messages: unknown }>) =>
  `${JSON.stringify(requests.map((r) => ({ system: r.system, messages: r.messages })), null, 1)}\n`

describe("the golden long task", () => {
  it.live("five compacted turns match the golden log; the golden log rebuilds the requests the model was sent", () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), "golden-long-")))
    workspaces.push(workspace)
    const script: Script = JSON.parse(readFileSync(join(golden, "script.json"), "utf8"))
    const prompts: ReadonlyArray<string> = JSON.parse(readFileSync(join(golden, "prompts.json"), "utf8"))
    const recording = recordingScripted(script)
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      for (const prompt of prompts) {
        yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: prompt, permissionMode: "accept-edits" }))
      }
      const log = yield* replayAll(header.sessionId)
      expect(eventsOf(log, "context.compacted").length).toBeGreaterThanOrEqual(2)
      expect(eventsOf(log, "turn.completed").every((e) => e.payload.stopReason === "final")).toBe(true)
      const sent = (yield* Effect.flatMap(RecordedRequests, Ref.get)).filter((r) => r.purpose === "turn")
      expectGolden(join(golden, "transcript.jsonl"), goldenTranscript(log, workspace))
      expectGolden(join(golden, "requests.json"), requestsJson(sent))
    }).pipe(
      Effect.provide(engineLayer(MemoryStore.layer, undefined, { model: recording, context, tools: [writeFileTool, todoWriteTool] }).pipe(Layer.provideMerge(recording)))
    )
  })

  it.effect("the golden log, imported into a store, rebuilds the golden requests", () =>
    Effect.gen(function* () {
      const events = parseEventLines(readFileSync(join(golden, "transcript.jsonl"), "utf8"))
      const store = yield* EventStore
      yield* store.appendAll(events)
      const replayed = Chunk.toArray(yield* Stream.runCollect(store.replay(events[0]?.sessionId ?? "")))
      const rebuilt = Either.getOrThrow(rebuildRequests(replayed))
      expect(requestsJson(rebuilt)).toBe(readFileSync(join(golden, "requests.json"), "utf8"))
    }).pipe(Effect.provide(MemoryStore.layer)))
})
