import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { resolve } from "node:path"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import { permissionsLayer } from "../../app/permissions.js"
import { mcpLayer, routerLayer, skillsLayer } from "../../app/tools.js"
import { currentHome, fixedPlaces, privatePlaces } from "../../layers/private-places.js"
import * as SandboxLayer from "../../layers/sandbox/layer.js"
import { layerOff } from "../../layers/sandbox/off.js"
import { loadConfiguredServers } from "../../layers/tools/mcp-config.js"
import { noMcp } from "../../layers/tools/mcp-none.js"
import { McpHub } from "../../services/McpHub.js"
import { ToolRouter } from "../../services/ToolRouter.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import * as shared from "../options.js"
import { formatTools, toolsJson } from "../tools-list.js"
import * as AgentFolders from "../../layers/agents/folders.js"
import { taskDefinition } from "../../core/subagents.js"
import { planDefinition } from "../../core/plan-tool.js"

const cwd = shared.existingDirectory("cwd").pipe(
  Options.withDescription("The project whose skills and MCP servers count (default: the current directory)"),
  Options.optional
)

const json = Options.boolean("json").pipe(Options.withDescription("Print one JSON array of { name, description, inputSchema }"))

const mcp = Options.boolean("mcp").pipe(
  Options.withDescription("Also start the configured MCP servers and list their tools (mcp__<server>__<tool>)")
)

const mode = Options.choice("mode", ["default", "plan", "accept-edits", "bypass"]).pipe(
  Options.withDescription("The session mode to list for: in plan mode the model is offered exit_plan_mode too (default: default)"),
  Options.optional
)

const SESSION = "tools-list"

const list = Command.make("list", { cwd, json, mcp, mode, sandbox: shared.sandbox, sandboxNetwork: shared.sandboxNetwork }, (args) =>
  Effect.gen(function* () {
    const configDir = resolveConfigDir()
    const workspaceRoot = resolve(Option.getOrElse(args.cwd, () => process.cwd()))
    const definitions = yield* Effect.gen(function* () {
      if (args.mcp) {
        // A malformed configuration is one clear error, as in `mcp list`.
        yield* loadConfiguredServers({ userConfigDir: configDir, cwd: workspaceRoot }).pipe(Effect.mapError((error) => new CliError({ message: error.message, cause: error })))
        const hub = yield* McpHub
        yield* hub.configureSession(SESSION, workspaceRoot, [])
        // Waits until every server is ready or failed, so the listing has all they offer.
        yield* hub.status(SESSION)
      }
      return yield* Effect.flatMap(ToolRouter, (router) => router.definitions({ sessionId: SESSION, workspaceRoot }))
    }).pipe(
      // Only listed, never run here: the places are the defaults, without the user's settings.
      Effect.provide(routerLayer(fixedPlaces(privatePlaces({ home: currentHome(), configDir, dataDir: resolveDataDir(undefined) }))).pipe(Layer.provideMerge(Layer.mergeAll(args.mcp ? mcpLayer(configDir, packageVersion()) : noMcp, skillsLayer(configDir))))),
      // Stdio servers start in the sandbox, as in a session; without them nothing runs, so no sandbox is needed.
      Effect.provide(args.mcp ? SandboxLayer.layer({ mode: args.sandbox, network: args.sandboxNetwork, configDir, dataDir: resolveDataDir(undefined) }) : layerOff),
      // A project's servers start only when its configuration is trusted, as in a session.
      Effect.provide(permissionsLayer(configDir, resolveDataDir(undefined)))
    )
    // With agent definitions the model is offered `task` too (a session adds it to its router).
    const { agents } = yield* AgentFolders.make({ configDir }).list(workspaceRoot)
    const delegating = agents.length === 0 ? definitions : [...definitions, taskDefinition(agents)]
    // A session's own turns in plan mode are offered its way out as well.
    const offered = Option.getOrUndefined(args.mode) === "plan" ? [...delegating, planDefinition] : delegating
    yield* stdout(args.json ? toolsJson(offered) : formatTools(offered, 80))
  })
).pipe(Command.withDescription("List the tools the model is offered: each one's name, description and input JSON Schema"))

export const toolsCommand = Command.make("tools").pipe(
  Command.withDescription("The tools the model can call"),
  Command.withSubcommands([list])
)
