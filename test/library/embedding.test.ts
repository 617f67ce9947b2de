import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
// The package's own entry point, as another app imports it (resolved through package.json "exports").
import {
  AgentHost,
  HostFanout,
  HostPendingAsks,
  IdsLive,
  LocalFilesLive,
  LocalTools,
  PermissionRules,
  ScriptedModel,
  SqliteEventStore,
  ToolRouterLayer,
  agentHostLayer,
  sandboxOff,
  sessionEngineLayer,
  builtInContext,
  noHooks,
  noMcp,
  noMemoryStore
} from "custom-agent"

const dir = mkdtempSync(join(tmpdir(), "embed-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("embedding the library (the README's example)", () => {
  it.live("composes its own agent from the exported layers and runs a turn through the host", () => {
    // Every boundary is a layer: swap SQLite for MemoryEventStore, ScriptedModel for custom-agent/anthropic, ...
    const Agent = agentHostLayer.pipe(
      Layer.provideMerge(sessionEngineLayer()),
      Layer.provideMerge(
        Layer.mergeAll(
          SqliteEventStore.layer({ filename: join(dir, "agent.db") }),
          ScriptedModel.layer(),
          IdsLive,
          ToolRouterLayer.layer([ToolRouterLayer.staticSource("local", LocalTools.localTools(sandboxOff))]),
          PermissionRules.layer({ approvalsFile: join(dir, "approvals.json") }),
          LocalFilesLive,
          builtInContext,
          noMemoryStore,
          noMcp,
          noHooks,
          HostPendingAsks.layer,
          HostFanout.eventBusLayer
        )
      ),
      Layer.provideMerge(HostFanout.layer({ bufferSize: 4096 }))
    )
    const main = Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd: process.cwd(), client: "my-app" })
      const receipt = yield* host.prompt({ sessionId, content: "hello" })
      const events = yield* host.subscribe(sessionId, 0).pipe(
        Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
        Stream.takeUntil((event) => event.type === "turn.completed"),
        Stream.runCollect
      )
      return { receipt, events: Chunk.toArray(events) }
    })
    return Effect.gen(function* () {
      const { receipt, events } = yield* main.pipe(Effect.provide(Agent))
      const message = events.find((event) => event.type === "user.message")
      expect(receipt).toEqual({ _tag: "Started", turnId: message?.turnId, sequence: message?.sequence })
      expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
    })
  })
})
