import * as Context from "effect/Context"

/**
 * What the user lets processes the agent starts (shell commands, hooks, stdio MCP servers)
 * inherit beyond the fixed allowlist: names given exactly, from the user's own settings only.
 */
export interface EnvironmentPolicy {
  readonly pass: ReadonlyArray<string>
}

/** The user's policy, read once from their configuration directory. */
export class SubprocessEnvironment extends Context.Tag("custom-agent/SubprocessEnvironment")<SubprocessEnvironment, EnvironmentPolicy>() {}
