import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { makeRenderer } from "../../src/cli/render.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import * as AgentFolders from "../../src/layers/agents/folders.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { parseEventLines } from "../support/events.js"

const golden = resolve(import.meta.dirname, "../fixtures/golden/subagents")
const update = process.env["UPDATE_GOLDEN"] === "1"
const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Timestamps, durations and the temporary workspace path differ run to run; nothing else may. */
const normalize = (event: AgentEvent, workspace: string): string =>
  JSON.stringify(event, (key, value: unknown) => {
    if (key === "timestamp") return "2026-01-01T00:00:00.000Z"
    if (key === "durationMs") return 0
    return typeof value === "string" ? value.split(workspace).join("<workspace>") : value
  })

const timeline = (events: ReadonlyArray<AgentEvent>, workspace = "<workspace>") => {
  const renderer = makeRenderer({ color: false, live: false })
  return events
    .flatMap((event) => renderer.render(event))
    .map((segment) => segment.text)
    .join("")
    .split(workspace)
    .join("<workspace>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, "<time>")
    .replace(/\d\d:\d\d:\d\d/g, "HH:MM:SS")
    .replace(/ \d+ ms/g, " N ms")
}

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
        const transcript = log.map((e) => normalize(e, workspace)).join("\n") + "\n"
        const rendered = timeline(log, workspace)
        if (update) {
          writeFileSync(join(golden, `${name}.jsonl`), transcript)
          writeFileSync(join(golden, `${name}-timeline.txt`), rendered)
        }
        expect(transcript).toBe(readFileSync(join(golden, `${name}.jsonl`), "utf8"))
        expect(rendered).toBe(readFileSync(join(golden, `${name}-timeline.txt`), "utf8"))
      }
    }).pipe(
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
        expect(timeline(replayed)).toBe(readFileSync(join(golden, `${name}-timeline.txt`), "utf8"))
        const info = yield* (yield* SessionEngine).getSession(sessionId)
        expect(info.lastSequence).toBe(events.length)
        expect(info.running).toBe(false)
      }).pipe(Effect.provide(engineLayer(MemoryStore.layer, { responses: [] }))))
  }
})
