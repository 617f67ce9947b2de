import { Chunk, Effect, Layer, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { HostFrame } from "../../src/domain/host.js"
import * as AgentHost from "../../src/host/AgentHost.js"
import * as Fanout from "../../src/host/fanout.js"
import * as PendingAsks from "../../src/host/pending-asks.js"
import { IdsDeterministic } from "../../src/layers/ids.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as StaticContext from "../../src/layers/context/static.js"
import * as MemoryFile from "../../src/layers/memory/file-store.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import { noHooks } from "../../src/layers/hooks/none.js"
import * as Router from "../../src/layers/tools/router.js"
import type { Checkpoints } from "../../src/services/Checkpoints.js"
import type { ContextBuilder } from "../../src/services/ContextBuilder.js"
import type { McpHub } from "../../src/services/McpHub.js"
import { noMcp } from "../../src/layers/tools/mcp-none.js"
import type { Tool } from "../../src/services/ToolRouter.js"
import type { Agents } from "../../src/services/Agents.js"
import type { ModelResolver } from "../../src/services/ModelResolver.js"
import type { SlashCommands } from "../../src/services/SlashCommands.js"
import type { StoreLayer } from "./engine-harness.js"
import { checkingCanonical } from "./canonical-store.js"

export interface HostHarnessOptions {
  readonly tools?: ReadonlyArray<Tool>
  readonly subscriberBuffer?: number
  readonly engine?: SessionEngine.SessionEngineOptions
  readonly context?: Layer.Layer<ContextBuilder, unknown, McpHub>
  readonly memoryFile?: string
  /** The MCP hub (default: none). */
  readonly mcp?: Layer.Layer<McpHub>
  /** The checkpoint store (default: none, so no checkpoints are recorded). */
  readonly checkpoints?: Layer.Layer<Checkpoints>
  /** The agent definitions the `task` tool offers (default: none). */
  readonly agents?: Layer.Layer<Agents>
  /** Gateways for models other than the engine's (default: none, so every session asks the engine's). */
  readonly resolver?: Layer.Layer<ModelResolver>
  /** The slash commands prompts may run (default: none, so every prompt is sent as it is). */
  readonly commands?: Layer.Layer<SlashCommands>
}

/** A host over the given store with a scripted model; answers come from clients (PendingAsks). */
export const hostTestLayer = (store: StoreLayer, script?: Scripted.Script, options: HostHarnessOptions = {}) =>
  AgentHost.layer.pipe(
    Layer.provideMerge(SessionEngine.layer(options.engine)),
    Layer.provideMerge(
      Layer.mergeAll(
        checkingCanonical(store),
        Scripted.layer(script),
        IdsDeterministic,
        Router.layer([Router.staticSource("test", options.tools ?? [])]),
        Permissions.layer({ approvalsFile: join(tmpdir(), `approvals-${randomUUID()}.json`) }),
        LocalFilesLive,
        noHooks,
        options.context ?? StaticContext.layer(),
        MemoryFile.layer(options.memoryFile ?? join(tmpdir(), `memory-${randomUUID()}.json`)),
        PendingAsks.layer,
        options.checkpoints ?? Layer.empty,
        options.agents ?? Layer.empty,
        options.resolver ?? Layer.empty,
        options.commands ?? Layer.empty,
        Fanout.eventBusLayer
      )
    ),
    Layer.provideMerge(Layer.merge(Fanout.layer({ bufferSize: options.subscriberBuffer ?? 4096 }), options.mcp ?? noMcp))
  )

/** Collects a subscription until `count` turns have completed. */
export const untilTurnsDone = (stream: Stream.Stream<HostFrame, unknown>, count: number) => {
  let done = 0
  return stream.pipe(
    Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed" && ++done >= count),
    Stream.runCollect,
    Effect.map(Chunk.toArray)
  )
}
