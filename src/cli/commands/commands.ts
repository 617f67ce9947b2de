import { Command } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { join, resolve } from "node:path"
import { resolveClaudeDir, resolveConfigDir } from "../../app/locations.js"
import type { SlashCommandInfo } from "../../domain/slash-commands.js"
import * as CommandFolders from "../../layers/commands/folders.js"
import { SlashCommands } from "../../services/SlashCommands.js"
import { stderr, stdout } from "../io.js"
import * as shared from "../options.js"

/** One command: its name and where it is from (`project:frontend` for a subfolder), then what it says. */
const describe = (command: SlashCommandInfo): string => {
  const from = command.namespace === undefined ? command.source : `${command.source}:${command.namespace}`
  const lines = [
    `/${command.name} (${from})`,
    `  ${command.description}`,
    ...(command.argumentHint === undefined ? [] : [`  arguments: ${command.argumentHint}`]),
    ...(command.ignored === undefined ? [] : [`  not applied: ${command.ignored.join(", ")}`]),
    `  ${command.path}`
  ]
  return `${lines.join("\n")}\n`
}

const list = Command.make("list", { cwd: shared.projectToList }, (args) => {
  const configDir = resolveConfigDir()
  const claudeDir = resolveClaudeDir()
  return Effect.gen(function* () {
    const commands = yield* SlashCommands
    const dir = resolve(Option.getOrElse(args.cwd, () => process.cwd()))
    const found = yield* commands.list(dir)
    if (found.commands.length === 0) {
      yield* stdout(
        `no commands found (looked in the project's .custom-agent/commands and .claude/commands, and in ${join(configDir, "commands")} and ${join(claudeDir, "commands")})\n`
      )
    }
    for (const command of found.commands) yield* stdout(describe(command))
    for (const problem of found.problems) yield* stderr(`${problem.path}: ${problem.message}\n`)
  }).pipe(Effect.provide(CommandFolders.layer({ configDir, claudeDir })))
}).pipe(Command.withDescription("List the slash commands of a project and of the user, and the command files that could not be read"))

export const commandsCommand = Command.make("commands").pipe(
  Command.withDescription("Slash commands: prompts in Markdown files, run by sending /name and its arguments"),
  Command.withSubcommands([list])
)
