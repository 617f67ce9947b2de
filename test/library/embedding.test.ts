import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
// The package's own entry point, as another app imports it (resolved through package.json "exports").
import {
  IdsLive,
  LocalFilesLive,
  LocalTools,
  PermissionRules,
  PolicyApprovals,
  ScriptedModel,
  SessionEngine,
  SqliteEventStore,
  sandboxOff,
  ToolRouterLayer,
  sessionEngineLayer,
  builtInContext,
  noEventBus,
  noMcp,
  noMemoryStore
} from "custom-agent"

const dir = mkdtempSync(join(tmpdir(), "embed-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("embedding the library (the README's example)", () => {
  it.live("composes its own agent from the exported layers and runs a turn", () => {
    // Every boundary is a layer: swap SQLite for MemoryEventStore, ScriptedModel for custom-agent/anthropic, ...
    const Agent = sessionEngineLayer().pipe(
      Layer.provide(
        Layer.mergeAll(
          SqliteEventStore.layer({ filename: join(dir, "agent.db") }),
          ScriptedModel.layer(),
          IdsLive,
          ToolRouterLayer.layer([ToolRouterLayer.staticSource("local", LocalTools.localTools(sandboxOff))]),
          PermissionRules.layer({ approvalsFile: join(dir, "approvals.json") }),
          PolicyApprovals.layer("allow-reads"),
          LocalFilesLive,
          builtInContext,
          noMemoryStore,
          noMcp,
          noEventBus
        )
      )
    )
    const main = Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: process.cwd(), client: "my-app" })
      return yield* engine.runTurn({ sessionId: header.sessionId, content: "hello" }).pipe(Stream.runCollect)
    })
    return Effect.gen(function* () {
      const events = Chunk.toArray(yield* main.pipe(Effect.provide(Agent)))
      expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
    })
  })
})
