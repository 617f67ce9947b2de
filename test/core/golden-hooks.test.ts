import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Ref, Stream } from "effect"
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { makeConversation } from "../../src/core/conversation.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { expectGolden, goldenTimeline, goldenTranscript, withoutLiveOutput } from "../support/golden.js"
import { parseEventLines } from "../support/events.js"
import { hooksLayer } from "../support/hooks-fixture.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { makeTemp } from "../support/temp-dirs.js"

const golden = resolve(import.meta.dirname, "../fixtures/golden/hooks")
const temp = makeTemp()
afterAll(temp.cleanup)

/** The conversation a log folds to, as the model would be sent it. */
const conversationOf = (events: ReadonlyArray<AgentEvent>, workspace = "<workspace>") => {
  const conversation = makeConversation()
  for (const event of events) conversation.apply(event)
  return JSON.stringify(conversation.snapshot()).split(workspace).join("<workspace>")
}

describe("the golden transcript of a turn with hooks", () => {
  it.live("prompt context, a formatter after a write, a blocked command and one Stop continuation match the golden log and timeline", () => {
    const workspace = temp.dir("golden-hooks-")
    const configDir = temp.dir("golden-hooks-config-")
    mkdirSync(join(workspace, "hooks"))
    for (const name of readdirSync(join(golden, "hooks"))) {
      copyFileSync(join(golden, "hooks", name), join(workspace, "hooks", name))
      chmodSync(join(workspace, "hooks", name), 0o755)
    }
    // Commands name their scripts by $CLAUDE_PROJECT_DIR, as Claude Code's hooks do: the same text in every workspace.
    const hooks = readFileSync(join(golden, "hooks.json"), "utf8")
    writeFileSync(join(configDir, "settings.json"), `{ "hooks": ${hooks} }`)
    const script: Script = JSON.parse(readFileSync(join(golden, "script.json"), "utf8"))
    const recording = recordingScripted(script)
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "Write my notes.", permissionMode: "accept-edits" }))
      const log = yield* replayAll(header.sessionId)
      expectGolden(join(golden, "transcript.jsonl"), goldenTranscript(log, workspace))
      expectGolden(join(golden, "timeline.txt"), goldenTimeline(log, workspace))
      expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("keep lines short\nno trailing spaces\n")

      // The last request is the conversation the log folds to, hooks' words included, up to the final answer.
      const sent = (yield* Ref.get(yield* RecordedRequests)).filter((r) => r.purpose === "turn")
      const beforeAnswer = log.slice(0, log.findLastIndex((e) => e.type === "context.built"))
      expect(JSON.stringify(sent.at(-1)?.messages).split(workspace).join("<workspace>")).toBe(conversationOf(beforeAnswer, workspace))
    }).pipe(
      withoutLiveOutput,
      Effect.provide(
        engineLayer(MemoryStore.layer, undefined, { model: recording, tools: localTools(sandboxOff), hooks: hooksLayer(configDir) }).pipe(
          Layer.provideMerge(recording)
        )
      )
    )
  })

  it.effect("the golden log imports into a store and replays to the same timeline and conversation, without running a hook", () =>
    Effect.gen(function* () {
      const events = parseEventLines(readFileSync(join(golden, "transcript.jsonl"), "utf8"))
      const store = yield* EventStore
      yield* store.appendAll(events)
      const replayed = Chunk.toArray(yield* Stream.runCollect(store.replay(events[0]?.sessionId ?? "")))
      expect(replayed).toEqual(events)
      expect(goldenTimeline(replayed)).toBe(readFileSync(join(golden, "timeline.txt"), "utf8"))
      const conversation = conversationOf(replayed)
      expect(conversation).toContain("Team rule: notes stay short.")
      expect(conversation).toContain("Do not stop yet: read the file back before you finish")
      expect(conversation).toContain("destructive commands are blocked here")
      expect(conversation).not.toContain("formatted")
    }).pipe(Effect.provide(MemoryStore.layer)))
})
