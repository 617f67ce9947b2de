import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { rememberTool } from "../layers/memory/remember-tool.js"
import * as SkillFolders from "../layers/skills/folders.js"
import * as LazyMcp from "../layers/tools/mcp-lazy.js"
import { skillsToolSource } from "../layers/skills/load-skill-tool.js"
import { localTools } from "../layers/tools/local.js"
import type { PlacesNow } from "../layers/private-places.js"
import { todoWriteTool } from "../layers/tools/todo-write.js"
import * as Router from "../layers/tools/router.js"
import * as SandboxLayer from "../layers/sandbox/layer.js"
import type { SandboxMode } from "../layers/sandbox/settings.js"
import { McpHub } from "../services/McpHub.js"
import { Sandbox } from "../services/Sandbox.js"
import { SubprocessEnvironment } from "../services/SubprocessEnvironment.js"
import { FIXED_ONLY } from "../layers/subprocess-env.js"
import { Skills } from "../services/Skills.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { ToolRouter } from "../services/ToolRouter.js"
import { trustedProjectNetwork } from "./project-network.js"

/**
 * The MCP hub; the MCP SDK loads only once a session has servers to run. Stdio servers run in
 * the sandbox and inherit what the SubprocessEnvironment passes (else what the user's settings.json
 * does); a project's servers start only once the permission engine says its configuration is
 * trusted as it is.
 */
export const mcpLayer = (userConfigDir: string, clientVersion: string): Layer.Layer<McpHub, never, Sandbox | PermissionEngine> =>
  Layer.scoped(
    McpHub,
    Effect.gen(function* () {
      const sandbox = yield* Sandbox
      const permissions = yield* PermissionEngine
      const environment = yield* Effect.serviceOption(SubprocessEnvironment)
      return yield* LazyMcp.make({
        userConfigDir,
        clientVersion,
        sandbox,
        projectTrust: permissions.projectTrust,
        ...Option.match(environment, { onNone: () => ({}), onSome: (policy) => ({ environment: policy }) })
      })
    })
  )

/**
 * Every tool a session can call, from every source, behind one router: local tools, skills, MCP
 * servers. The walking tools leave out `privatePlaces` (private-places.ts).
 */
export const routerLayer = (privatePlaces: PlacesNow): Layer.Layer<ToolRouter, never, McpHub | Skills | Sandbox> =>
  Layer.effect(
    ToolRouter,
    Effect.gen(function* () {
      const hub = yield* McpHub
      const skills = yield* Skills
      const sandbox = yield* Sandbox
      // Without a SubprocessEnvironment (a listing of tools, which runs none), only the fixed allowlist.
      const environment = Option.getOrElse(yield* Effect.serviceOption(SubprocessEnvironment), () => FIXED_ONLY)
      return Router.make([
        Router.staticSource("local", [...localTools(sandbox, environment, privatePlaces), rememberTool, todoWriteTool]),
        skillsToolSource(skills),
        hub.source
      ])
    })
  )

/** How shell commands and stdio MCP servers are sandboxed: what the command line (`--sandbox`, `--sandbox-network`) says. */
export interface SandboxConfig {
  readonly mode: SandboxMode
  /** Open the network inside the sandbox, whatever the settings say. */
  readonly network: boolean
}

/** The sandbox; its config and data directories are read-only inside it. */
export const sandboxLayer = (config: SandboxConfig | undefined, configDir: string, dataDir: string) =>
  Layer.unwrapEffect(
    Effect.map(PermissionEngine, (permissions) =>
      SandboxLayer.layer({
        mode: config?.mode ?? "auto",
        network: config?.network ?? false,
        configDir,
        dataDir,
        projectNetwork: trustedProjectNetwork(permissions)
      })
    )
  )

export const skillsLayer = (configDir: string, privatePlaces?: PlacesNow) =>
  SkillFolders.layer({ configDir, ...(privatePlaces === undefined ? {} : { privatePlaces }) })
