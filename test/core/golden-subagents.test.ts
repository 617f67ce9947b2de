import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import * as AgentFolders from "../../src/layers/agents/folders.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { expectGolden, goldenTimeline, goldenTranscript, withoutLiveOutput } from "../support/golden.js"
import { parseEventLines } from "../support/events.js"

const golden = resolve(import.meta.dirname, "../fixtures/golden/subagents")
const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const logs = ["parent", "child"] as const

describe("the golden subagent transcript: a parent delegates a review, the child reads and answers", () => {
  it.live("both logs match their golden files and render to their golden timelines", () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), "golden-subagents-")))
    const configDir = mkdtempSync(join(tmpdir(), "golden-subagents-config-"))
    dirs.push(workspace, configDir)
    copyFileSync(join(golden, "greet.js"), join(workspace, "greet.js"))
    mkdirSync(join(workspace, ".agents", "agents"), { recursive: true })
    copyFileSync(join(golden, "agents", "reviewer.md"), join(workspace, ".agents", "agents", "reviewer.md"))
    const script: Script = JSON.parse(readFileSync(join(golden, "script.json"), "utf8"))
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "Is greet.js right? Ask the reviewer." }))
      const parent = yield* replayAll(header.sessionId)
      const childId = parent.flatMap((e) => (e.type === "subagent.started" ? [e.payload.childSessionId] : []))[0] ?? ""
      const child = yield* replayAll(childId)
      for (const [name, log] of [["parent", parent], ["child", child]] as const) {
        expect(invariantProblem(log)).toBeUndefined()
        expectGolden(join(golden, `${name}.jsonl`), goldenTranscript(log, workspace))
        expectGolden(join(golden, `${name}-timeline.txt`), goldenTimeline(log, workspace))
      }
    }).pipe(
      withoutLiveOutput,
      Effect.provide(
        engineLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff), agents: AgentFolders.layer({ configDir }) })
      )
    )
  })

  for (const name of logs) {
    it.effect(`the golden ${name} log replays on its own: imported alone, an engine opens it and it renders the same`, () =>
      Effect.gen(function* () {
        const events = parseEventLines(readFileSync(join(golden, `${name}.jsonl`), "utf8"))
        expect(invariantProblem(events)).toBeUndefined()
        const store = yield* EventStore
        yield* store.appendAll(events)
        const sessionId = events[0]?.sessionId ?? ""
        const replayed = Chunk.toArray(yield* Stream.runCollect(store.replay(sessionId)))
        expect(replayed).toEqual(events)
        expect(goldenTimeline(replayed)).toBe(readFileSync(join(golden, `${name}-timeline.txt`), "utf8"))
        const info = yield* (yield* SessionEngine).getSession(sessionId)
        expect(info.lastSequence).toBe(events.length)
        expect(info.running).toBe(false)
      }).pipe(Effect.provide(engineLayer(MemoryStore.layer, { responses: [] }))))
  }
})
