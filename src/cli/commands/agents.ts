import { Command } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { join, resolve } from "node:path"
import { resolveConfigDir } from "../../app/locations.js"
import * as AgentFolders from "../../layers/agents/folders.js"
import { Agents } from "../../services/Agents.js"
import { stderr, stdout } from "../io.js"
import * as shared from "../options.js"

const list = Command.make("list", { cwd: shared.projectToList }, (args) => {
  const configDir = resolveConfigDir()
  return Effect.gen(function* () {
    const agents = yield* Agents
    const dir = resolve(Option.getOrElse(args.cwd, () => process.cwd()))
    const found = yield* agents.list(dir)
    if (found.agents.length === 0) {
      yield* stdout(`no agents found (looked in the project's .agents/agents and .claude/agents, and in ${join(configDir, "agents")})\n`)
    }
    for (const agent of found.agents) {
      const limits = [
        `tools: ${agent.tools === undefined ? "all of the parent's" : agent.tools.length === 0 ? "none" : agent.tools.join(", ")}`,
        ...(agent.model === undefined ? [] : [`model: ${agent.model}`]),
        ...(agent.maxSteps === undefined ? [] : [`max steps: ${agent.maxSteps}`])
      ]
      yield* stdout(`${agent.name} (${agent.source})\n  ${agent.description}\n  ${limits.join(" · ")}\n  ${agent.path}\n`)
    }
    for (const problem of found.problems) yield* stderr(`${problem.path}: ${problem.message}\n`)
  }).pipe(Effect.provide(AgentFolders.layer({ configDir })))
}).pipe(Command.withDescription("List the subagents of a project and of the user, and the agent files that could not be read"))

export const agentsCommand = Command.make("agents").pipe(
  Command.withDescription("Subagents: definitions the task tool starts child sessions from"),
  Command.withSubcommands([list])
)
