/**
 * custom-agent as a library: the domain schemas, the service ports, the engine and host,
 * the layers to compose them with, and the RPC API. Provider adapters that load an SDK
 * (Anthropic, OpenAI-compatible, MCP) are separate entry points so importing this one
 * stays light: `custom-agent/anthropic`, `custom-agent/openai`, `custom-agent/mcp`.
 */

// Domain: the event catalogue, normalized model types, tools, permissions, errors.
export * from "./domain/checkpoints.js"
export * from "./domain/decode.js"
export * from "./domain/errors.js"
export * from "./domain/events.js"
export * from "./domain/hooks.js"
export * from "./domain/host.js"
export * from "./domain/model.js"
export * from "./domain/permissions.js"
export * from "./domain/rewind.js"
export * from "./domain/sandbox.js"
export * from "./domain/session-log.js"
export * from "./domain/slash-commands.js"
export * from "./domain/tools.js"
export * from "./domain/prices.js"
export * from "./domain/spend.js"
export * from "./domain/turn-terms.js"
export { eventsJsonSchema } from "./domain/event-json-schema.js"

// Ports: one service per boundary.
export * from "./services/Agents.js"
export * from "./services/Approvals.js"
export { CheckpointError, Checkpoints, type CheckpointsShape, type Restored, type Snapshot } from "./services/Checkpoints.js"
export * from "./services/ContextBuilder.js"
export * from "./services/EventBus.js"
export * from "./services/EventStore.js"
export * from "./services/Hooks.js"
export * from "./services/Ids.js"
export * from "./services/McpHub.js"
export * from "./services/MemoryStore.js"
export * from "./services/ModelGateway.js"
export * from "./services/ModelResolver.js"
export * from "./services/PermissionEngine.js"
export * from "./services/Sandbox.js"
export * from "./services/Skills.js"
export * from "./services/SlashCommands.js"
export * from "./services/ToolRouter.js"
export * from "./services/OutputValidator.js"
export * from "./services/TraceContext.js"

// The engine and the host.
export {
  type CreateSessionInput,
  defaultEngineOptions,
  type Draft,
  layer as sessionEngineLayer,
  make as makeSessionEngine,
  type RedoRequest,
  type RewindRequest,
  type RunTurnInput,
  SessionEngine,
  type SessionEngineOptions,
  type SessionEngineShape,
  type SessionInfo
} from "./core/SessionEngine.js"
export type { SessionHeader } from "./core/session-state.js"
export { AgentHost, type AgentHostShape, layer as agentHostLayer, type PromptRequest } from "./host/AgentHost.js"
export * as HostFanout from "./host/fanout.js"
export * as HostPendingAsks from "./host/pending-asks.js"

// Layers: pick one per port.
export * as JsonlEventStore from "./layers/event-store/jsonl.js"
export * as MemoryEventStore from "./layers/event-store/memory.js"
export * as SqliteEventStore from "./layers/event-store/sqlite.js"
export * as ScriptedModel from "./layers/model/scripted.js"
export * as ModelSpec from "./layers/model/model-spec.js"
export { IdsDeterministic, IdsLive } from "./layers/ids.js"
export * as LocalTools from "./layers/tools/local.js"
export * as BubblewrapSandbox from "./layers/sandbox/layer.js"
export { layerOff as sandboxOffLayer, sandboxOff } from "./layers/sandbox/off.js"
export { LocalFileAccess, LocalFilesLive } from "./layers/tools/local-file-access.js"
export * as ToolRouterLayer from "./layers/tools/router.js"
export * as PermissionRules from "./layers/permission/engine.js"
export * as PolicyApprovals from "./layers/approvals/policy.js"
export * as ScriptedApprovals from "./layers/approvals/scripted.js"
export * as SkillFolders from "./layers/skills/folders.js"
export * as CommandFolders from "./layers/commands/folders.js"
export * as PricedModel from "./layers/model/priced.js"
export * as AjvOutputValidator from "./layers/output/ajv.js"
// Traces projected from the log; live tracing wraps an EventBus (off when no OTEL endpoint is set).
export { withTracing } from "./layers/telemetry/live.js"
export { makeSpanProjector, projectLog, type ProjectedSpan } from "./layers/telemetry/spans.js"
// The engine requires every port; these stand in for the ones a wiring has nothing for.
export { noEventBus } from "./layers/event-bus/none.js"
export { noMcp } from "./layers/tools/mcp-none.js"
export { noHooks } from "./layers/hooks/none.js"
export * as SettingsHooks from "./layers/hooks/layer.js"
export { noMemoryStore } from "./layers/memory/none.js"
export { builtInContext } from "./layers/context/static.js"
export { loadSkillTool, skillsToolSource } from "./layers/skills/load-skill-tool.js"

// The API: the RPC group, a typed client, the HTTP server.
export { AgentRpcs } from "./rpc/group.js"
export { AgentClient, clientLayer, type ClientOptions, describeClientError } from "./rpc/client.js"
export { serverLayer, type ServerOptions } from "./rpc/server.js"

// Ready-made wirings (what the CLI uses).
export { agentLayer, type AgentConfig, coreLayer } from "./app/agent.js"
export { hostLayer, type HostConfig } from "./app/host.js"
export { checkpointsLayer } from "./app/checkpoints.js"
