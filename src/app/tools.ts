import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { rememberTool } from "../layers/memory/remember-tool.js"
import * as SkillFolders from "../layers/skills/folders.js"
import * as LazyMcp from "../layers/tools/mcp-lazy.js"
import { skillsToolSource } from "../layers/skills/load-skill-tool.js"
import { localTools } from "../layers/tools/local.js"
import * as Router from "../layers/tools/router.js"
import { McpHub } from "../services/McpHub.js"
import { Skills } from "../services/Skills.js"
import { ToolRouter } from "../services/ToolRouter.js"

/** The MCP hub; the MCP SDK loads only once a session has servers to run. */
export const mcpLayer = (userConfigDir: string, clientVersion: string): Layer.Layer<McpHub> =>
  LazyMcp.layer({ userConfigDir, clientVersion })

/** Every tool a session can call, from every source, behind one router: local tools, skills, MCP servers. */
export const routerLayer: Layer.Layer<ToolRouter, never, McpHub | Skills> = Layer.effect(
  ToolRouter,
  Effect.gen(function* () {
    const hub = yield* McpHub
    const skills = yield* Skills
    return Router.make([Router.staticSource("local", [...localTools, rememberTool]), skillsToolSource(skills), hub.source])
  })
)

export const skillsLayer = (configDir: string) => SkillFolders.layer({ configDir })
