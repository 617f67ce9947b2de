import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import * as AgentFolders from "../../layers/agents/folders.js"
import * as HooksLayer from "../../layers/hooks/layer.js"
import { layerOff } from "../../layers/sandbox/off.js"
import { Agents } from "../../services/Agents.js"
import { Hooks } from "../../services/Hooks.js"
import { formatHooks, hookNotes } from "../hooks-list.js"
import { permissionsLayer } from "../../app/permissions.js"

/**
 * The workspace's agents, as `custom-agent agents list` prints them: read from their folders on
 * this machine (the files a session here would use), whichever host runs the session.
 */
export const agentsText = (cwd: string, configDir: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    const found = yield* (yield* Agents).list(cwd)
    const lines = found.agents.map((agent) => {
      const limits = [
        `tools: ${agent.tools === undefined ? "all of the parent's" : agent.tools.length === 0 ? "none" : agent.tools.join(", ")}`,
        ...(agent.model === undefined ? [] : [`model: ${agent.model}`]),
        ...(agent.maxSteps === undefined ? [] : [`max steps: ${agent.maxSteps}`])
      ]
      return `${agent.name} (${agent.source})\n  ${agent.description}\n  ${limits.join(" · ")}\n  ${agent.path}`
    })
    const empty = `no agents found (looked in the project's .agents/agents and .claude/agents, and in ${join(configDir, "agents")})`
    return [...(lines.length === 0 ? [empty] : lines), ...found.problems.map((problem) => `${problem.path}: ${problem.message}`)].join("\n")
  }).pipe(Effect.provide(AgentFolders.layer({ configDir })))

/** The configured hooks and whether each runs, as `custom-agent hooks list` prints them (listing runs nothing). */
export const hooksText = (cwd: string, configDir: string, dataDir: string) => {
  const permissions = permissionsLayer(configDir, dataDir)
  return Effect.gen(function* () {
    const listing = yield* (yield* Hooks).list(cwd)
    return [formatHooks(listing).text.replace(/\n$/, ""), ...hookNotes(listing)].join("\n")
  }).pipe(Effect.provide(HooksLayer.layer({ configDir }).pipe(Layer.provide(Layer.merge(layerOff, permissions)))))
}
