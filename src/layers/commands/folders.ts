import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as path from "node:path"
import { isCommandName, type CommandProblem, type CommandSource, type SlashCommandInfo } from "../../domain/slash-commands.js"
import { SlashCommandNotFound, SlashCommands, type SlashCommandsShape } from "../../services/SlashCommands.js"
import { projectRoot } from "../context/instructions-paths.js"
import { readTextPrefix } from "../context/instructions-read.js"
import type { ProjectFileBounds } from "../context/project-file-bounds.js"
import { collectListed, type FoundDefinition, unreadableDefinition } from "../definition-folders.js"
import { currentHome, fixedPlaces, type PlacesNow, privatePlaces } from "../private-places.js"
import { formatBytes } from "../tools/format-bytes.js"
import { isWithin } from "../tools/workspace-paths.js"
import { commandFiles } from "./command-files.js"
import { type ParsedCommandFile, parseCommandFile } from "./command-file.js"

export interface SlashCommandsOptions {
  /** The user's config directory (see `resolveConfigDir`); its commands are in `commands/`. */
  readonly configDir: string
  /** Claude Code's user folder (`CLAUDE_CONFIG_DIR`, else `~/.claude`); its commands are in `commands/`. Default: `~/.claude`. */
  readonly claudeDir?: string
  /**
   * Where a project's command file may never lead (private-places.ts). Default: the config
   * directory and the secret stores of this home; the agent passes its whole list.
   */
  readonly privatePlaces?: PlacesNow
}

/** Listing reads only this much of each file: front matter is short, bodies may not be. */
export const COMMAND_HEAD_BYTES = 16 * 1024
/** A command file larger than this is refused: its body becomes a user message. */
export const COMMAND_MAX_BYTES = 256 * 1024

interface CommandFolder {
  readonly folder: string
  readonly source: CommandSource
  readonly project?: ProjectFileBounds
}

/**
 * Where commands live, strongest first: the project's (`.custom-agent` over `.claude`) over the
 * user's (the config directory over Claude Code's own folder). A project's command shadows a
 * user's of the same name, as in Claude Code.
 */
const commandFolders = (cwd: string, options: SlashCommandsOptions, places: PlacesNow): Effect.Effect<ReadonlyArray<CommandFolder>> =>
  Effect.zipWith(projectRoot(cwd), places, (root, current) => {
    // A project's commands are read only from inside the workspace, or as the repository holds them (a link out is refused).
    const project: ProjectFileBounds = { workspaceRoot: cwd, lookedIn: root, privatePlaces: current }
    return [
      { folder: path.join(root, ".custom-agent", "commands"), source: "project", project },
      { folder: path.join(root, ".claude", "commands"), source: "project", project },
      { folder: path.join(path.resolve(options.configDir), "commands"), source: "user" },
      { folder: path.join(path.resolve(options.claudeDir ?? path.join(currentHome(), ".claude")), "commands"), source: "user" }
    ]
  })

/** The command a file is, from where it lies and what it says. */
const commandOf = (file: string, at: CommandFolder, parsed: ParsedCommandFile): SlashCommandInfo => {
  const namespace = path.relative(at.folder, path.dirname(file)).split(path.sep).filter((part) => part !== "").join(":")
  return {
    name: path.basename(file, ".md"),
    description: parsed.description,
    ...(parsed.argumentHint === undefined ? {} : { argumentHint: parsed.argumentHint }),
    ...(namespace === "" ? {} : { namespace }),
    source: at.source,
    path: file,
    ...(parsed.ignored.length === 0 ? {} : { ignored: parsed.ignored })
  }
}

const problem = (file: string, message: string): ReadonlyArray<FoundDefinition<SlashCommandInfo>> => [{ _tag: "problem", problem: { path: file, message } }]

/** Reads one file's start: its command, or what is wrong with it. */
const readCommand = (file: string, at: CommandFolder): Effect.Effect<ReadonlyArray<FoundDefinition<SlashCommandInfo>>> => {
  const name = path.basename(file, ".md")
  if (!isCommandName(name)) {
    return Effect.succeed(problem(file, `"${name}" is not a command name: letters, digits, "-", "_" and "." only, starting with a letter or digit, at most 64`))
  }
  return readTextPrefix(file, COMMAND_HEAD_BYTES, at.project).pipe(
    Effect.map((read): ReadonlyArray<FoundDefinition<SlashCommandInfo>> => {
      if (read.size > COMMAND_MAX_BYTES) return problem(file, `it is ${formatBytes(read.size)}, over the ${formatBytes(COMMAND_MAX_BYTES)} limit`)
      return Either.match(parseCommandFile(read.text, read.truncated ? COMMAND_HEAD_BYTES : undefined), {
        onLeft: (message) => problem(file, message),
        onRight: (parsed) => [{ _tag: "definition", folder: at.folder, definition: commandOf(file, at, parsed) }]
      })
    }),
    Effect.catchAll(unreadableDefinition<SlashCommandInfo>(file))
  )
}

/** Why there is no usable command of that name: the file named like it, when one could not be used. */
const notFound = (name: string, problems: ReadonlyArray<CommandProblem>): SlashCommandNotFound => {
  const own = problems.find((candidate) => path.basename(candidate.path) === `${name}.md`)
  const message = own === undefined ? `no command named "${name}"` : `command "${name}" (${own.path}) cannot be used: ${own.message}`
  return new SlashCommandNotFound({ name, message })
}

export const make = (options: SlashCommandsOptions): SlashCommandsShape => {
  const places = options.privatePlaces ?? fixedPlaces(privatePlaces({ home: currentHome(), configDir: options.configDir }))
  const foldersOf = (cwd: string) => commandFolders(cwd, options, places)

  const list: SlashCommandsShape["list"] = (cwd) =>
    Effect.gen(function* () {
      const { definitions, problems } = yield* collectListed("command", yield* foldersOf(cwd), (at) => commandFiles(at.folder), readCommand)
      return { commands: definitions, problems }
    }).pipe(Effect.withSpan("SlashCommands.list"))

  const load: SlashCommandsShape["load"] = (cwd, name) =>
    Effect.gen(function* () {
      const listing = yield* list(cwd)
      const listed = listing.commands.find((candidate) => candidate.name === name)
      if (listed === undefined) return yield* notFound(name, listing.problems)
      const unusable = (why: string) => new SlashCommandNotFound({ name, message: `command "${name}" (${listed.path}) cannot be used: ${why}` })
      const at = (yield* foldersOf(cwd)).find((folder) => folder.source === listed.source && isWithin(folder.folder, listed.path))
      if (at === undefined) return yield* unusable("its folder is no longer one commands are read from")
      const read = yield* readTextPrefix(listed.path, COMMAND_MAX_BYTES, at.project).pipe(Effect.mapError((error) => unusable(error.message)))
      if (read.truncated) return yield* unusable(`it is ${formatBytes(read.size)}, over the ${formatBytes(COMMAND_MAX_BYTES)} limit`)
      // Read again in full: the file may have changed since it was listed.
      const parsed = parseCommandFile(read.text)
      if (Either.isLeft(parsed)) return yield* unusable(parsed.left)
      return { command: commandOf(listed.path, at, parsed.right), body: parsed.right.body }
    }).pipe(Effect.withSpan("SlashCommands.load"))

  return { list, load }
}

export const layer = (options: SlashCommandsOptions) => Layer.succeed(SlashCommands, make(options))
