import type { AvailableCommand, SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import type { SlashCommandInfo } from "../domain/slash-commands.js"

/** Where a command comes from, as Claude Code labels it: `project`, `user`, `project:frontend`. */
const label = (command: SlashCommandInfo) => (command.namespace === undefined ? command.source : `${command.source}:${command.namespace}`)

/**
 * The session's slash commands as ACP advertises them: the editor offers `/name`, shows the
 * argument hint while nothing is typed after it, and sends the line as a prompt (which the host
 * expands).
 */
export const availableCommands = (commands: ReadonlyArray<SlashCommandInfo>): SessionUpdate => ({
  sessionUpdate: "available_commands_update",
  availableCommands: commands.map(
    (command): AvailableCommand => ({
      name: command.name,
      description: `${command.description} (${label(command)})`,
      ...(command.argumentHint === undefined ? {} : { input: { hint: command.argumentHint } })
    })
  )
})
