import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { copyFileSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { parseEventLines } from "../support/events.js"
import { expectGolden, goldenTimeline, goldenTranscript, withoutLiveOutput } from "../support/golden.js"
import { makeTemp } from "../support/temp-dirs.js"

const golden = resolve(import.meta.dirname, "../fixtures/golden/plan")
const temp = makeTemp()
afterAll(temp.cleanup)

describe("the golden transcript of plan mode: read, a plan sent back with a note, a plan approved, the edit", () => {
  it.live("matches the golden log, replays to the golden timeline, and the live turn renders the same", () => {
    const workspace = temp.dir("golden-plan-")
    copyFileSync(join(golden, "greet.js"), join(workspace, "greet.js"))
    const script: Script = JSON.parse(readFileSync(join(golden, "script.json"), "utf8"))
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      const emitted = yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "Make the greeting greet the world.", permissionMode: "plan", client: "cli" }))
      const log = yield* replayAll(header.sessionId)
      const rendered = goldenTimeline(log, workspace)
      expectGolden(join(golden, "transcript.jsonl"), goldenTranscript(log, workspace))
      expectGolden(join(golden, "timeline.txt"), rendered)
      expect(goldenTimeline([...log.slice(0, 1), ...Chunk.toArray(emitted)], workspace)).toBe(rendered)
      expect(readFileSync(join(workspace, "greet.js"), "utf8")).toContain('"Hello, world"')
    }).pipe(
      withoutLiveOutput,
      Effect.provide(
        engineLayer(MemoryStore.layer, script, {
          tools: localTools(sandboxOff),
          answers: [
            { decision: "deny", scope: "once", by: "user", client: "cli", note: "Also check it by running it." },
            { decision: "allow", scope: "once", by: "user", client: "cli", mode: "accept-edits" }
          ]
        })
      )
    )
  })

  it.effect("the golden log imports into a store and replays to the same timeline", () =>
    Effect.gen(function* () {
      const events = parseEventLines(readFileSync(join(golden, "transcript.jsonl"), "utf8"))
      const store = yield* EventStore
      yield* store.appendAll(events)
      const replayed = Chunk.toArray(yield* Stream.runCollect(store.replay(events[0]?.sessionId ?? "")))
      expect(replayed).toEqual(events)
      expect(goldenTimeline(replayed)).toBe(readFileSync(join(golden, "timeline.txt"), "utf8"))
    }).pipe(Effect.provide(MemoryStore.layer)))
})
