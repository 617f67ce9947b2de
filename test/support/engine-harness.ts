import { Chunk, type Duration, Effect, Layer, Stream, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import * as ScriptedApprovals from "../../src/layers/approvals/scripted.js"
import { IdsDeterministic } from "../../src/layers/ids.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as StaticContext from "../../src/layers/context/static.js"
import * as MemoryFile from "../../src/layers/memory/file-store.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import { noHooks } from "../../src/layers/hooks/none.js"
import type { Hooks } from "../../src/services/Hooks.js"
import type { PermissionEngine } from "../../src/services/PermissionEngine.js"
import * as Router from "../../src/layers/tools/router.js"
import type { Checkpoints } from "../../src/services/Checkpoints.js"
import type { EventBus } from "../../src/services/EventBus.js"
import type { OutputValidator } from "../../src/services/OutputValidator.js"
import { EventStore } from "../../src/services/EventStore.js"
import { checkingCanonical } from "./canonical-store.js"
import type { ContextBuilder } from "../../src/services/ContextBuilder.js"
import type { McpHub } from "../../src/services/McpHub.js"
import { noMcp } from "../../src/layers/tools/mcp-none.js"
import { noEventBus } from "../../src/layers/event-bus/none.js"
import type { ModelGateway } from "../../src/services/ModelGateway.js"
import type { ModelResolver } from "../../src/services/ModelResolver.js"
import type { Tool } from "../../src/services/ToolRouter.js"
import type { Agents } from "../../src/services/Agents.js"
import type { Approvals } from "../../src/services/Approvals.js"

export type StoreLayer = Layer.Layer<EventStore, unknown>

export interface HarnessOptions {
  readonly engine?: SessionEngine.SessionEngineOptions
  readonly tools?: ReadonlyArray<Tool>
  readonly answers?: ReadonlyArray<ScriptedApprovals.ScriptedAnswer>
  /** Where "always" approvals persist; a fresh temporary file by default. */
  readonly approvalsFile?: string
  /** A real model adapter instead of the scripted model. */
  readonly model?: Layer.Layer<ModelGateway, unknown>
  /** The context sources (default: the built-in system instructions only); no MCP servers here. */
  readonly context?: Layer.Layer<ContextBuilder, unknown, McpHub>
  /** Where memory candidates and memories persist; a fresh temporary file by default. */
  readonly memoryFile?: string
  /** The checkpoint store (default: none, so no checkpoints are recorded). */
  readonly checkpoints?: Layer.Layer<Checkpoints>
  /** The user's permission rules (default: none). */
  readonly userRulesFile?: string
  /** The hooks (default: none), given the harness's PermissionEngine, whose trust they follow. */
  readonly hooks?: Layer.Layer<Hooks, unknown, PermissionEngine>
  /** The JSON Schema validator for output schemas (default: none, so such turns fail). */
  readonly outputValidator?: Layer.Layer<OutputValidator>
  /** Where committed events are announced (default: nowhere). */
  readonly eventBus?: Layer.Layer<EventBus, unknown>
  /** How questions are answered, instead of `answers`. */
  readonly approvals?: Layer.Layer<Approvals>
  /** The agent definitions the `task` tool offers (default: none, so no `task` tool). */
  readonly agents?: Layer.Layer<Agents>
  /** The models agent definitions may name besides the engine's (default: none). */
  readonly models?: Layer.Layer<ModelResolver>
}

/** An engine on the given store with a scripted model; the store stays reachable for assertions. */
export const engineLayer = (store: StoreLayer, script?: Scripted.Script, options: HarnessOptions = {}) => {
  // One instance: the hooks ask it whether the project is trusted.
  const permissions = Permissions.layer({
    approvalsFile: options.approvalsFile ?? join(tmpdir(), `approvals-${randomUUID()}.json`),
    ...(options.userRulesFile === undefined ? {} : { userRulesFile: options.userRulesFile })
  })
  return SessionEngine.layer(options.engine).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        checkingCanonical(store),
        options.model ?? Scripted.layer(script),
        IdsDeterministic,
        Router.layer([Router.staticSource("test", options.tools ?? [])]),
        permissions,
        (options.hooks ?? noHooks).pipe(Layer.provide(permissions)),
        options.approvals ?? ScriptedApprovals.layer(options.answers ?? []),
        LocalFilesLive,
        options.context ?? StaticContext.layer(),
        MemoryFile.layer(options.memoryFile ?? join(tmpdir(), `memory-${randomUUID()}.json`)),
        options.checkpoints ?? Layer.empty,
        options.outputValidator ?? Layer.empty,
        options.agents ?? Layer.empty,
        options.models ?? Layer.empty
      )
    ),
    // No subscribers and no MCP servers: tests read the turn's stream and the store.
    Layer.provideMerge(Layer.merge(options.eventBus ?? noEventBus, noMcp))
  )
}

export const replayAll = (sessionId: string) =>
  Effect.flatMap(EventStore, (store) => Stream.runCollect(store.replay(sessionId))).pipe(Effect.map(Chunk.toArray))

export const types = (events: ReadonlyArray<AgentEvent>) => events.map((e) => e.type)

/** The types without the context bookkeeping (`context.source`, `context.built`) every step records. */
export const turnTypes = (events: ReadonlyArray<AgentEvent>) => types(events).filter((t) => !t.startsWith("context."))

/** Waits until the session's log holds an event of this type. */
export const awaitEvent = (sessionId: string, type: AgentEvent["type"]) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    for (let i = 0; i < 5_000; i++) {
      const log = yield* Stream.runCollect(store.replay(sessionId))
      if (Chunk.some(log, (e) => e.type === type)) return
      yield* realMoment
    }
    return yield* Effect.dieMessage(`session ${sessionId} never recorded ${type}`)
  })

/** A real moment (not TestClock time), so I/O callbacks can run while a test polls. */
const realMoment = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))

/**
 * Moves the TestClock forward in steps until `done` holds. A store doing real I/O (JSONL)
 * may not have reached its next sleep when the clock moves, so one adjust is not enough.
 */
export const advanceUntil = <E, R>(done: Effect.Effect<boolean, E, R>, step: Duration.DurationInput = "50 millis") =>
  Effect.gen(function* () {
    for (let i = 0; i < 2_000; i++) {
      if (yield* done) return
      yield* TestClock.adjust(step)
      yield* realMoment
    }
    return yield* Effect.dieMessage("the condition never held")
  })

/** Waits until the session's log reaches `sequence`. */
export const awaitSequence = (sessionId: string, sequence: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    for (let i = 0; i < 5_000; i++) {
      const head = yield* store.head(sessionId)
      if (head._tag === "Some" && head.value >= sequence) return
      yield* realMoment
    }
    return yield* Effect.dieMessage(`session ${sessionId} never reached sequence ${sequence}`)
  })
