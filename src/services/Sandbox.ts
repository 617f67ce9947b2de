import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Schema from "effect/Schema"
import type { SandboxProfile } from "../domain/sandbox.js"

/** A command could not be put in the sandbox (a protected path could not be prepared); it was not run. */
export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/** `--sandbox on` was asked for, and no sandbox can be had here. */
export class SandboxUnavailable extends Schema.TaggedError<SandboxUnavailable>()("SandboxUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return `--sandbox on: no sandbox can run here (${this.reason})`
  }
}

/** A program and its arguments, as `execve` takes them. */
export type Argv = readonly [string, ...Array<string>]

export interface SandboxRequest {
  readonly argv: Argv
  readonly cwd: string
  /** The session's workspace: the one tree the command may write (besides a private /tmp). */
  readonly workspaceRoot: string
  /** What `profile` answered for this workspace: the profile that is recorded is the one that runs. */
  readonly profile: SandboxProfile
  /**
   * True when the caller starts the command as the leader of a session of its own (Node's
   * `detached`): it has no terminal to inject keystrokes into, and its process group must stay
   * whole so the caller can kill it. False: the sandbox gives it a new session.
   */
  readonly detached: boolean
  /**
   * Absolute paths from the user's (or a trusted project's) configuration, such as a server's
   * program and script, whose top-level /tmp folders are shown read-only under the private /tmp.
   * Never from a model's command line: what the model names under /tmp stays hidden.
   */
  readonly configuredPaths?: ReadonlyArray<string>
}

/** Where local commands (shell, stdio MCP servers) run: inside an OS sandbox, or not. */
export interface SandboxShape {
  /** The profile commands for this workspace run under (settings may open the network per project). */
  readonly profile: (workspaceRoot: string) => Effect.Effect<SandboxProfile>
  /**
   * The argv that runs `request.argv` under `request.profile` (unchanged for `none`). What the
   * sandbox prepares for it (empty protected paths it creates) lasts until the scope closes:
   * close it once the command has ended.
   */
  readonly wrap: (request: SandboxRequest) => Effect.Effect<Argv, SandboxError, Scope.Scope>
}

export class Sandbox extends Context.Tag("custom-agent/Sandbox")<Sandbox, SandboxShape>() {}
