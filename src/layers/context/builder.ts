import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ContextBuilder, type ContextSourceText } from "../../services/ContextBuilder.js"
import { McpHub } from "../../services/McpHub.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { Skills } from "../../services/Skills.js"
import type { PlacesNow } from "../private-places.js"
import { catalogue } from "../skills/catalogue.js"
import { discoverInstructions } from "./instructions.js"
import { defaultSystemPrompt } from "./system-prompt.js"

export interface ContextBuilderOptions {
  readonly configDir: string
  readonly systemPrompt?: string
  /** Where a project's instruction file may never lead (see `discoverInstructions`). */
  readonly privatePlaces?: PlacesNow
}

const memoryText = (memories: ReadonlyArray<{ readonly text: string; readonly scope: string }>) =>
  memories.length === 0
    ? ""
    : `# Things the user asked you to remember (approved by the user)\n\n${memories.map((m) => `- ${m.text}${m.scope === "user" ? "" : " (this project)"}`).join("\n")}`

/**
 * Gathers every source of a request, in the documented order: built-in instructions;
 * instruction files (AGENTS.md / CLAUDE.md from the user's config, the repository root and
 * the folders down to the cwd, nearer ones last); approved memories; the skills catalogue
 * (names and descriptions only); MCP server instructions. A source that cannot be read is
 * left out with a warning: a request is never blocked by its context.
 */
export const make = (options: ContextBuilderOptions) =>
  Effect.gen(function* () {
    const skills = yield* Skills
    const memory = yield* MemoryStore
    const mcp = yield* McpHub
    const system = options.systemPrompt ?? defaultSystemPrompt
    return ContextBuilder.of({
      sources: (scope) =>
        Effect.gen(function* () {
          const sources: Array<ContextSourceText> = [{ kind: "system", id: "built-in", text: system }]
          const instructions = yield* discoverInstructions({
            cwd: scope.workspaceRoot,
            configDir: options.configDir,
            ...(options.privatePlaces === undefined ? {} : { privatePlaces: options.privatePlaces })
          })
          for (const file of instructions) sources.push({ kind: "instructions", id: file.path, text: file.text })
          const memories = yield* memory.forWorkspace(scope.workspaceRoot).pipe(
            Effect.catchAll((error) => Effect.as(Effect.logWarning("approved memories left out of the context", error.message), []))
          )
          const remembered = memoryText(memories)
          if (remembered !== "") sources.push({ kind: "memory", id: "approved", text: remembered })
          const listed = yield* skills.list(scope.workspaceRoot)
          const skillsText = catalogue(listed.skills)
          if (skillsText !== "") sources.push({ kind: "skills", id: "catalogue", text: skillsText })
          for (const server of yield* mcp.instructions(scope.sessionId)) {
            sources.push({ kind: "mcp", id: server.server, text: server.text })
          }
          return sources
        })
    })
  })

export const layer = (options: ContextBuilderOptions) => Layer.effect(ContextBuilder, make(options))
