import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Effect, Exit, Layer, Ref, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import * as ScriptedApprovals from "../../src/layers/approvals/scripted.js"
import { builtInContext } from "../../src/layers/context/static.js"
import { noEventBus } from "../../src/layers/event-bus/none.js"
import * as MemoryEventStore from "../../src/layers/event-store/memory.js"
import { IdsDeterministic } from "../../src/layers/ids.js"
import { noMemoryStore } from "../../src/layers/memory/none.js"
import { rememberTool } from "../../src/layers/memory/remember-tool.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import { noHooks } from "../../src/layers/hooks/none.js"
import { noMcp } from "../../src/layers/tools/mcp-none.js"
import * as Router from "../../src/layers/tools/router.js"
import { EventBus } from "../../src/services/EventBus.js"
import { MemoryStore } from "../../src/services/MemoryStore.js"
import { replayAll } from "../support/engine-harness.js"

/** Every port but the four with "none" layers, which each test chooses. */
const engineWith = <R>(ports: Layer.Layer<R>, script?: Scripted.Script) =>
  SessionEngine.layer().pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        ports,
        MemoryEventStore.layer,
        Scripted.layer(script),
        IdsDeterministic,
        Router.layer([Router.staticSource("test", [rememberTool])]),
        Permissions.layer({ approvalsFile: join(tmpdir(), `approvals-${randomUUID()}.json`) }),
        ScriptedApprovals.layer([]),
        LocalFilesLive,
        noHooks
      )
    )
  )

/** Takes only a wiring that needs nothing more; what one really lacks shows when it is built. */
const build = (wiring: Layer.Layer<SessionEngine.SessionEngine, unknown>) => Effect.exit(Effect.scoped(Layer.build(wiring)))

const missing = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "built")

describe("the engine's dependencies are explicit", () => {
  it.effect("a wiring that leaves out the event bus, MCP, the memory store or the context does not compile, nor build", () =>
    Effect.gen(function* () {
      // @ts-expect-error no EventBus
      const noBus = yield* build(engineWith(Layer.mergeAll(builtInContext, noMemoryStore, noMcp)))
      // @ts-expect-error no McpHub
      const noHub = yield* build(engineWith(Layer.mergeAll(builtInContext, noMemoryStore, noEventBus)))
      // @ts-expect-error no MemoryStore
      const noMemory = yield* build(engineWith(Layer.mergeAll(builtInContext, noMcp, noEventBus)))
      // @ts-expect-error no ContextBuilder
      const noContext = yield* build(engineWith(Layer.mergeAll(noMemoryStore, noMcp, noEventBus)))
      expect(missing(noBus)).toContain("custom-agent/EventBus")
      expect(missing(noHub)).toContain("custom-agent/McpHub")
      expect(missing(noMemory)).toContain("custom-agent/MemoryStore")
      expect(missing(noContext)).toContain("custom-agent/ContextBuilder")
      const complete = yield* build(engineWith(Layer.mergeAll(builtInContext, noMemoryStore, noMcp, noEventBus)))
      expect(missing(complete)).toBe("built")
    }))

  it.effect("the bus it is given hears every committed event, in order", () =>
    Effect.gen(function* () {
      const heard = yield* Ref.make<ReadonlyArray<AgentEvent>>([])
      const bus = Layer.succeed(EventBus, EventBus.of({ publish: (event) => Ref.update(heard, (all) => [...all, event]), status: () => Effect.void }))
      return yield* Effect.gen(function* () {
        const engine = yield* SessionEngine.SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "hi" }))
        const log = yield* replayAll(header.sessionId)
        expect(log.length).toBeGreaterThan(2)
        expect(yield* Ref.get(heard)).toEqual(log)
      }).pipe(Effect.provide(engineWith(Layer.mergeAll(builtInContext, noMemoryStore, noMcp, bus))))
    }))

  it.effect("with no memory store a proposed memory stays in the log only, and the turn goes on", () =>
    Effect.gen(function* () {
      const engine = yield* SessionEngine.SessionEngine
      const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
      const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "remember" })))
      expect(events.filter((e) => e.type === "memory.candidate_proposed")).toHaveLength(1)
      expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
      expect(yield* Effect.flatMap(MemoryStore, (store) => store.pending)).toEqual([])
    }).pipe(
      Effect.provide(
        engineWith(Layer.mergeAll(builtInContext, noMemoryStore, noMcp, noEventBus), {
          responses: [{ chunks: [{ toolCall: { name: "remember", input: { text: "Use pnpm.", scope: "project" } } }] }, "noted"]
        })
      )
    ))
})
