import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SessionEngine from "../core/SessionEngine.js"
import * as PolicyApprovals from "../layers/approvals/policy.js"
import { noEventBus } from "../layers/event-bus/none.js"
import { IdsLive } from "../layers/ids.js"
import * as HooksLayer from "../layers/hooks/layer.js"
import * as SubprocessEnvironmentLayer from "../layers/subprocess-env-settings.js"
import * as AgentFolders from "../layers/agents/folders.js"
import type { Agents } from "../services/Agents.js"
import * as CommandFolders from "../layers/commands/folders.js"
import type { SlashCommands } from "../services/SlashCommands.js"
import * as Permissions from "../layers/permission/engine.js"
import { LocalFilesLive } from "../layers/tools/local-file-access.js"
import { claimDataDir } from "../layers/private-files.js"
import type { PlacesNow } from "../layers/private-places.js"
import { watchPrivatePlaces } from "../layers/user-private-places.js"
import * as AjvOutput from "../layers/output/ajv.js"
import { withTracing } from "../layers/telemetry/live.js"
import { userSettingsFile } from "../layers/sandbox/settings.js"
import * as ContextSources from "../layers/context/builder.js"
import * as MemoryFile from "../layers/memory/file-store.js"
import type { Approvals } from "../services/Approvals.js"
import type { Checkpoints } from "../services/Checkpoints.js"
import type { ContextBuilder } from "../services/ContextBuilder.js"
import type { StoreFailure } from "../domain/errors.js"
import type { EventStore } from "../services/EventStore.js"
import type { Ids } from "../services/Ids.js"
import type { McpHub } from "../services/McpHub.js"
import type { MemoryStore } from "../services/MemoryStore.js"
import type { ModelGateway } from "../services/ModelGateway.js"
import type { ModelResolver } from "../services/ModelResolver.js"
import type { PermissionEngine } from "../services/PermissionEngine.js"
import type { Skills } from "../services/Skills.js"
import type { Files, ToolRouter } from "../services/ToolRouter.js"
import type { Hooks } from "../services/Hooks.js"
import { checkpointsLayer } from "./checkpoints.js"
import { approvalsFile, memoryFile, resolveClaudeDir, type StoreKind, trustFile, userPermissionsFile } from "./locations.js"
import { type ModelSelection, modelsLayer } from "./model.js"
import { storeLayer } from "./store.js"
import { mcpLayer, routerLayer, type SandboxConfig, sandboxLayer, skillsLayer } from "./tools.js"

export interface AgentConfig {
  readonly dataDir: string
  readonly configDir: string
  /** Claude Code's user folder, whose `commands/` are the user's too (default: `CLAUDE_CONFIG_DIR`, else `~/.claude`). */
  readonly claudeDir?: string
  readonly store: StoreKind
  readonly model: ModelSelection
  /** How "ask" is answered; a headless policy that denies when not given. */
  readonly approvals?: Layer.Layer<Approvals>
  /** Workspaces whose project rules are validated at start-up (a malformed file stops us here). */
  readonly workspaceRoots?: ReadonlyArray<string>
  readonly engine?: Partial<SessionEngine.SessionEngineOptions>
  /** Reported to MCP servers. */
  readonly version?: string
  /** How file tools read and write (default: the local disk); the ACP agent passes the editor's. */
  readonly files?: Layer.Layer<Files>
  /** The event store, when it is not the data directory's (a cluster runner's shared database). */
  readonly eventStore?: Layer.Layer<EventStore, StoreFailure>
  /** Where shell commands and stdio MCP servers run (default: `auto`, the network closed unless settings open it). */
  readonly sandbox?: SandboxConfig
  /** Where workspace checkpoints are kept (default: private repositories under the data directory). */
  readonly checkpoints?: Layer.Layer<Checkpoints>
}

export type CoreServices =
  | EventStore
  | ModelGateway
  | ModelResolver
  | Ids
  | ToolRouter
  | PermissionEngine
  | Files
  | McpHub
  | Skills
  | MemoryStore
  | ContextBuilder
  | Hooks
  | Agents
  | SlashCommands

/**
 * Everything the engine stands on: store, model, ids, context, memory, tools and the permission
 * boundary. The private places (private-places.ts) are read with the user's settings, again
 * whenever those changed (a host runs for long), and given to the permission engine (which asks a person for any call that touches one), the
 * walking tools (which leave them out) and the loaders of a project's instructions, skills and
 * agents (which refuse a file there), so none judges by another list.
 */
export const coreLayer = (config: AgentConfig) =>
  Layer.unwrapEffect(
    // The data directory first: another user's, or one others can write, is refused before its approvals, trust or store are read.
    Effect.zipRight(
      claimDataDir(config.dataDir),
      Effect.map(watchPrivatePlaces({ configDir: config.configDir, dataDir: config.dataDir }), (places) => coreLayerWith(config, places))
    )
  )

const coreLayerWith = (config: AgentConfig, places: PlacesNow) => {
  // One instance: the sandbox asks it whether the project is trusted to open the network.
  const permissions = Permissions.layer({
    userRulesFile: userPermissionsFile(config.configDir),
    approvalsFile: approvalsFile(config.dataDir),
    trustFile: trustFile(config.dataDir),
    privateDirectories: Effect.map(places, (now) => now.map((place) => place.path)),
    ...(config.workspaceRoots === undefined ? {} : { projectRoots: config.workspaceRoots })
  })
  // One sandbox for tools and hooks: hooks run in it like shell commands.
  const sandbox = sandboxLayer(config.sandbox, config.configDir, config.dataDir).pipe(Layer.provide(permissions))
  // What shell commands, hooks and stdio MCP servers inherit: the user's settings, read once, alongside the sandbox.
  const spawning = Layer.merge(sandbox, SubprocessEnvironmentLayer.layer(config.configDir))
  return Layer.mergeAll(
    config.eventStore ?? storeLayer(config.store, config.dataDir),
    modelsLayer(config.model, userSettingsFile(config.configDir)),
    IdsLive,
    Layer.merge(routerLayer(places), ContextSources.layer({ configDir: config.configDir, privatePlaces: places })).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          mcpLayer(config.configDir, config.version ?? "0.0.0"),
          skillsLayer(config.configDir, places),
          MemoryFile.layer(memoryFile(config.dataDir))
        )
      ),
      Layer.provide(Layer.merge(spawning, permissions))
    ),
    HooksLayer.layer({ configDir: config.configDir }).pipe(Layer.provide(Layer.merge(spawning, permissions))),
    permissions,
    // The agent definitions the `task` tool starts subagents from.
    AgentFolders.layer({ configDir: config.configDir, privatePlaces: places }),
    // The slash commands the host expands a prompt's `/name args` with.
    CommandFolders.layer({ configDir: config.configDir, claudeDir: config.claudeDir ?? resolveClaudeDir(), privatePlaces: places }),
    config.files ?? LocalFilesLive,
    AjvOutput.layer
  )
}

/** The engine records checkpoints and restores files through these; an engine given none records none. */
export const checkpointsOf = (config: AgentConfig): Layer.Layer<Checkpoints> => config.checkpoints ?? checkpointsLayer(config.dataDir)

export const engineOptions = (config: AgentConfig): SessionEngine.SessionEngineOptions => ({
  ...SessionEngine.defaultEngineOptions,
  ...config.engine
})

/** The embedded agent: the engine driven directly (the CLI without a server). */
export const agentLayer = (config: AgentConfig) =>
  SessionEngine.layer(engineOptions(config)).pipe(
    Layer.provideMerge(coreLayer(config)),
    // Nobody subscribes here: the turn's stream is the only reader.
    Layer.provide(withTracing(noEventBus, config.version ?? "0.0.0")),
    Layer.provide(checkpointsOf(config)),
    Layer.provide(config.approvals ?? PolicyApprovals.layer("deny"))
  )
