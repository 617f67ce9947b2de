import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SlashCommandInfo, SlashCommandList } from "../domain/slash-commands.js"

export class SlashCommandNotFound extends Schema.TaggedError<SlashCommandNotFound>()("SlashCommandNotFound", {
  name: Schema.String,
  message: Schema.String
}) {}

/**
 * Slash commands in Claude Code's format: `*.md` files (optional YAML front matter, then the
 * prompt) in the project's `.custom-agent/commands/` and `.claude/commands/` and in the user's
 * own folders. A malformed file is reported and skipped, never fatal; a project's command
 * shadows a user's of the same name. A command's body is only text a person chose to send:
 * nothing in it runs, and nothing in its front matter changes what the agent may do.
 */
export interface SlashCommandsShape {
  /** The commands of the workspace `cwd` and of the user, by name, with the files that cannot be used. */
  readonly list: (cwd: string) => Effect.Effect<SlashCommandList>
  /** The named command with its whole body, read now (it may have changed since it was listed). */
  readonly load: (cwd: string, name: string) => Effect.Effect<{ readonly command: SlashCommandInfo; readonly body: string }, SlashCommandNotFound>
}

export class SlashCommands extends Context.Tag("custom-agent/SlashCommands")<SlashCommands, SlashCommandsShape>() {}
