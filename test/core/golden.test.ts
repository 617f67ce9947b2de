import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { expectGolden, goldenTimeline, goldenTranscript, withoutLiveOutput } from "../support/golden.js"
import { parseEventLines } from "../support/events.js"

const golden = resolve(import.meta.dirname, "../fixtures/golden/edit-and-check")
const workspaces: Array<string> = []
afterAll(() => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
})

describe("the golden transcript: list, read, edit, check, answer", () => {
  it.live("a scripted session matches the golden log, replays to the golden timeline, and the file on disk is what the log says", () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), "golden-")))
    workspaces.push(workspace)
    copyFileSync(join(golden, "greet.js"), join(workspace, "greet.js"))
    const script: Script = JSON.parse(readFileSync(join(golden, "script.json"), "utf8"))
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      const emitted = yield* Stream.runCollect(
        engine.runTurn({ sessionId: header.sessionId, content: "Make the greeting greet the world, then check it.", permissionMode: "accept-edits" })
      )
      const log = yield* replayAll(header.sessionId)
      const rendered = goldenTimeline(log, workspace)
      expectGolden(join(golden, "transcript.jsonl"), goldenTranscript(log, workspace))
      expectGolden(join(golden, "timeline.txt"), rendered)
      // The live turn renders the same as its replay.
      expect(goldenTimeline([...log.slice(0, 1), ...Chunk.toArray(emitted)], workspace)).toBe(rendered)

      const edit = log.flatMap((e) => (e.type === "tool.completed" && e.payload.data?._tag === "edit" ? [e.payload.data] : []))
      expect(edit).toHaveLength(1)
      expect(readFileSync(join(workspace, "greet.js"), "utf8")).toBe(edit[0]?.after)
      const check = log.find((e) => e.type === "tool.completed" && e.payload.toolCallId === "call_check")
      expect(check?.payload).toMatchObject({ isError: false, output: expect.stringContaining("edit-ok") })
    }).pipe(
      withoutLiveOutput,
      Effect.provide(
        engineLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff), answers: [{ decision: "allow", scope: "once", by: "user" }] })
      )
    )
  })

  it.effect("the golden log itself imports into a store and replays to the same timeline", () =>
    Effect.gen(function* () {
      const events = parseEventLines(readFileSync(join(golden, "transcript.jsonl"), "utf8"))
      const store = yield* EventStore
      yield* store.appendAll(events)
      const replayed = Chunk.toArray(yield* Stream.runCollect(store.replay(events[0]?.sessionId ?? "")))
      expect(replayed).toEqual(events)
      expect(goldenTimeline(replayed)).toBe(readFileSync(join(golden, "timeline.txt"), "utf8"))
    }).pipe(Effect.provide(MemoryStore.layer)))
})
