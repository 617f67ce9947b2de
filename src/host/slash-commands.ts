import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type CommandInvocation, expandCommand, parseTypedCommand, type SlashCommandList } from "../domain/slash-commands.js"
import type { SlashCommandsShape } from "../services/SlashCommands.js"

/** A prompt as the session records it: the content the model is given, and the command it came from. */
export interface ExpandedPrompt {
  readonly content: string
  readonly command?: CommandInvocation
}

const noCommands: SlashCommandList = { commands: [], problems: [] }

/** The commands of a workspace; none where the host was given no commands service. */
export const listCommandsIn = (commands: Option.Option<SlashCommandsShape>, cwd: string): Effect.Effect<SlashCommandList> =>
  Option.match(commands, { onNone: () => Effect.succeed(noCommands), onSome: (service) => service.list(cwd) })

/**
 * A prompt that is `/name args` for a command of the workspace becomes the command's body with
 * its arguments put in; anything else is the prompt as sent. A `/` that names no usable command
 * (`/etc/hosts is odd`, a command whose file is broken) is a prompt too: refusing unknown
 * commands is the interactive client's to do, before it sends.
 */
export const expandPrompt = (commands: Option.Option<SlashCommandsShape>, cwd: string, content: string): Effect.Effect<ExpandedPrompt> => {
  const typed = parseTypedCommand(content)
  if (typed === undefined || Option.isNone(commands)) return Effect.succeed({ content })
  return commands.value.load(cwd, typed.name).pipe(
    Effect.map(({ command, body }): ExpandedPrompt => ({
      content: expandCommand(body, typed.arguments),
      command: { name: command.name, arguments: typed.arguments, source: command.source, path: command.path }
    })),
    Effect.catchTag("SlashCommandNotFound", (missing) => Effect.as(Effect.logDebug(`"/${typed.name}" is sent as it is: ${missing.message}`), { content }))
  )
}
