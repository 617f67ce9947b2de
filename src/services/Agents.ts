import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** A subagent the `task` tool can start: a Markdown file with YAML front matter, its body the child's instructions. */
export interface AgentDefinition {
  readonly name: string
  readonly description: string
  /** The tools the child may use (our names), narrowing its parent's; absent: all of the parent's. */
  readonly tools?: ReadonlyArray<string>
  /** The model the child asks when not its parent's, as its gateway's id (`anthropic/claude-haiku-5-5`, `openai/<id>`, `scripted`). */
  readonly model?: string
  /** The child's step limit per turn, when not the engine's. */
  readonly maxSteps?: number
  readonly instructions: string
  readonly path: string
  readonly source: "project" | "user"
}

export interface AgentProblem {
  readonly path: string
  readonly message: string
}

export class AgentNotFound extends Schema.TaggedError<AgentNotFound>()("AgentNotFound", {
  name: Schema.String,
  message: Schema.String
}) {}

/**
 * Agent definitions: `*.md` files in the project's `.agents/agents/` (and `.claude/agents/`)
 * and in the user's config directory's `agents/`. A malformed file is reported and skipped,
 * never fatal; a project's definition shadows a user's of the same name.
 */
export interface AgentsShape {
  readonly list: (cwd: string) => Effect.Effect<{ readonly agents: ReadonlyArray<AgentDefinition>; readonly problems: ReadonlyArray<AgentProblem> }>
  readonly get: (cwd: string, name: string) => Effect.Effect<AgentDefinition, AgentNotFound>
}

export class Agents extends Context.Tag("custom-agent/Agents")<Agents, AgentsShape>() {}
