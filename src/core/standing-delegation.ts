import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { PermissionMode } from "../domain/permissions.js"
import type { AgentsShape } from "../services/Agents.js"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import type { ChildModel } from "./child-model.js"
import type { SessionParent } from "./session-state.js"
import type { Delegation } from "./subagents.js"

/** The `errorCode` of a turn on a subagent's session whose definition cannot be run as it says. */
export const agentUnavailableCode = "agent_unavailable"

/** A subagent's session was prompted, and the definition it runs is gone, unreadable or names a model that cannot be used. */
export class AgentUnavailable extends Data.TaggedError("AgentUnavailable")<{
  readonly agent: string
  readonly message: string
  readonly cause?: unknown
}> {}

/** A subagent's session, prompted on its own (not by a `task` call of its parent). */
export interface StandingSession {
  readonly sessionId: string
  readonly cwd: string
  readonly parent: SessionParent
  /** The session's own mode: no parent turn is live to take it from. */
  readonly mode: () => PermissionMode
}

export interface StandingServices {
  readonly agents: Option.Option<AgentsShape>
  readonly childModel: ChildModel
  /** The engine's model: what a definition without `model` runs on, as a top-level session would. */
  readonly engineModel: ModelGatewayShape
}

const shownProblems = 3

/**
 * The delegation a subagent's session keeps when it is prompted directly: its definition
 * (looked up again by name in its workspace, so an edited definition holds), at the depth it
 * was started at (its own `task` calls count from there), as its own root. A definition that
 * cannot be found or run fails with why and what to do: such a turn must not run as a plain
 * session. The resolved model lives as long as the scope (the turn's run).
 */
export const standingDelegation = (services: StandingServices, session: StandingSession): Effect.Effect<Delegation, AgentUnavailable, Scope.Scope> =>
  Effect.gen(function* () {
    const { parent } = session
    const name = parent.agent
    const who = `This session is a subagent running the "${name}" agent (level ${parent.depth} below session ${parent.sessionId})`
    const remedy = `Restore the definition to go on with this session as that agent, or fork it (\`custom-agent sessions fork ${session.sessionId}\`) to go on as a plain session with its history.`
    if (Option.isNone(services.agents)) {
      return yield* new AgentUnavailable({ agent: name, message: `${who}, and this engine has no agent definitions to run it by. ${remedy}` })
    }
    const { agents, problems } = yield* services.agents.value.list(session.cwd)
    const agent = agents.find((candidate) => candidate.name === name)
    if (agent === undefined) {
      const known = agents.length === 0 ? "none are defined" : `the agents defined are: ${agents.map((candidate) => candidate.name).join(", ")}`
      const unreadable =
        problems.length === 0
          ? ""
          : `; unreadable definition files: ${problems
              .slice(0, shownProblems)
              .map((problem) => `${problem.path} (${problem.message})`)
              .join("; ")}${problems.length > shownProblems ? ` and ${problems.length - shownProblems} more` : ""}`
      return yield* new AgentUnavailable({
        agent: name,
        message: `${who}, but no agent named "${name}" is defined for ${session.cwd} (looked in the project's .agents/agents/ and .claude/agents/ and in your config directory's agents/; ${known}${unreadable}). ${remedy}`
      })
    }
    const model = yield* Effect.mapError(
      services.childModel(agent, services.engineModel),
      (error) =>
        new AgentUnavailable({
          agent: name,
          message: `${who}, and ${error.message}. Change the definition's model (or provide what it needs), or fork this session (\`custom-agent sessions fork ${session.sessionId}\`) to go on as a plain session.`,
          cause: error
        })
    )
    return { depth: parent.depth, rootSessionId: session.sessionId, mode: session.mode, agent, model }
  })
