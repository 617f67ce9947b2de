import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import * as ScriptedApprovals from "../../src/layers/approvals/scripted.js"
import { builtInContext } from "../../src/layers/context/static.js"
import { noEventBus } from "../../src/layers/event-bus/none.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { IdsDeterministic } from "../../src/layers/ids.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import { noHooks } from "../../src/layers/hooks/none.js"
import { noMemoryStore } from "../../src/layers/memory/none.js"
import * as Mcp from "../../src/layers/tools/mcp.js"
import * as LazyMcp from "../../src/layers/tools/mcp-lazy.js"
import * as Router from "../../src/layers/tools/router.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { McpHub } from "../../src/services/McpHub.js"
import { ToolRouter } from "../../src/services/ToolRouter.js"

/**
 * An engine (memory store, scripted model, scripted approvals, real PermissionEngine) whose
 * only tools are the MCP hub's; the hub and the store stay reachable for assertions. Servers
 * run unsandboxed unless `hub.sandbox` says otherwise.
 */
export const mcpEngineLayer = (
  script: Scripted.Script,
  answers: ReadonlyArray<ScriptedApprovals.ScriptedAnswer>,
  hub: Omit<Mcp.McpHubOptions, "sandbox"> & Partial<Pick<Mcp.McpHubOptions, "sandbox">>
) => engineOver(script, answers, Mcp.layer({ sandbox: sandboxOff, ...hub }))

/** The same engine over the hub as the app runs it (`mcp-lazy.ts`: the SDK loads once a session has servers). */
export const lazyMcpEngineLayer = (
  script: Scripted.Script,
  answers: ReadonlyArray<ScriptedApprovals.ScriptedAnswer>,
  hub: Omit<Mcp.McpHubOptions, "sandbox"> & Partial<Pick<Mcp.McpHubOptions, "sandbox">>
) => engineOver(script, answers, LazyMcp.layer({ sandbox: sandboxOff, ...hub }))

const engineOver = (script: Scripted.Script, answers: ReadonlyArray<ScriptedApprovals.ScriptedAnswer>, hub: Layer.Layer<McpHub>) =>
  SessionEngine.layer().pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        MemoryStore.layer,
        Scripted.layer(script),
        IdsDeterministic,
        Layer.effect(ToolRouter, Effect.map(McpHub, (mcp) => Router.make([mcp.source]))),
        Permissions.layer({ approvalsFile: join(tmpdir(), `approvals-${randomUUID()}.json`) }),
        ScriptedApprovals.layer(answers),
        LocalFilesLive,
        noHooks,
        builtInContext,
        noMemoryStore,
        noEventBus
      )
    ),
    Layer.provideMerge(hub)
  )
