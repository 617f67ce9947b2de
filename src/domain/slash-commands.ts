import * as Schema from "effect/Schema"
import { SessionId } from "./ids.js"

/**
 * Slash commands in Claude Code's format: a Markdown file whose name is the command (`review.md`
 * is `/review`) and whose body is the prompt it sends. What is here is what every client and
 * the log share: the listing's shape, the record of a command on a user message, and the pure
 * rules for reading `/name args` and expanding a body.
 */

/** Where a command's file lies: the project's folders, or the user's own. */
export const CommandSource = Schema.Literal("project", "user")
export type CommandSource = typeof CommandSource.Type

/** A command's name: its file's name without `.md`. Letters, digits, `-`, `_` and `.`, starting with a letter or digit, at most 64. */
export const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export const isCommandName = (name: string): boolean => COMMAND_NAME.test(name)

/** One command as clients list it. */
export const SlashCommandInfo = Schema.Struct({
  name: Schema.String,
  /** The front matter's `description`, else the body's first line. */
  description: Schema.String,
  /** The front matter's `argument-hint`, as written (`[pr-number] [priority]`). */
  argumentHint: Schema.optional(Schema.String),
  /** The subfolders it lies in, joined by `:` (`frontend` for `commands/frontend/x.md`): a label, not part of the name. */
  namespace: Schema.optional(Schema.String),
  source: CommandSource,
  path: Schema.String,
  /** Claude Code front matter keys the file sets that this agent reads and does not apply (`allowed-tools`, `model`, ...). */
  ignored: Schema.optional(Schema.Array(Schema.String))
})
export type SlashCommandInfo = typeof SlashCommandInfo.Type

/** A command file that could not be used, and why. */
export const CommandProblem = Schema.Struct({ path: Schema.String, message: Schema.String })
export type CommandProblem = typeof CommandProblem.Type

export const SlashCommandList = Schema.Struct({
  commands: Schema.Array(SlashCommandInfo),
  problems: Schema.Array(CommandProblem)
})
export type SlashCommandList = typeof SlashCommandList.Type

/** Whose commands to list: a session's workspace, or a folder before any session exists there. */
export const CommandsTarget = Schema.Union(Schema.Struct({ sessionId: SessionId }), Schema.Struct({ cwd: Schema.String.pipe(Schema.minLength(1)) }))
export type CommandsTarget = typeof CommandsTarget.Type

/**
 * A user message that ran a command: what was typed (`/name` and its arguments) and the file
 * whose body became the message's content. Recorded on `user.message` (and on an inbox entry),
 * so the log keeps both what the person sent and what the model was given.
 */
export const CommandInvocation = Schema.Struct({
  name: Schema.String,
  /** Everything typed after the name, trimmed (`$ARGUMENTS`). */
  arguments: Schema.String,
  source: CommandSource,
  path: Schema.String
})
export type CommandInvocation = typeof CommandInvocation.Type

/** What a prompt that looks like a command names: `/name`, then (after whitespace) its arguments. */
export interface TypedCommand {
  readonly name: string
  readonly arguments: string
}

/**
 * `/name args` as a command call; undefined when the text does not start with `/` followed by a
 * command name and whitespace or its end (`/etc/hosts is odd` names no command: `/` is not in a name).
 */
export const parseTypedCommand = (content: string): TypedCommand | undefined => {
  const match = /^\/([^\s]+)(?:\s+([\s\S]*))?$/.exec(content)
  if (match === null) return undefined
  const name = match[1] ?? ""
  if (!isCommandName(name)) return undefined
  return { name, arguments: (match[2] ?? "").trim() }
}

/** The line a person typed to run a command, as the log records it. */
export const typedLine = (command: TypedCommand): string => (command.arguments === "" ? `/${command.name}` : `/${command.name} ${command.arguments}`)

/**
 * The positional arguments (`$1`, `$2`, ...): words separated by whitespace; a double- or
 * single-quoted run is one word, without its quotes (`"fix the bug" high` is two).
 */
export const positionalArguments = (text: string): ReadonlyArray<string> => {
  const words: Array<string> = []
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g
  for (const match of text.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? "")
  return words
}

const PLACEHOLDER = /\$ARGUMENTS(?![A-Za-z0-9_])|\$([1-9][0-9]*)/g

/**
 * The prompt a command sends: its body with `$ARGUMENTS` replaced by the whole argument text
 * and `$1`, `$2`, ... by the positional arguments (empty past the last one), in one pass, so
 * an argument's own `$1` stays as typed. A body with no placeholder gets the arguments after
 * it (`ARGUMENTS: ...`), as Claude Code does, so they are never dropped. Nothing else in the
 * body is interpreted: Claude Code's `` !`command` `` and `@file` stay text.
 */
export const expandCommand = (body: string, args: string): string => {
  const words = positionalArguments(args)
  let placeholders = 0
  const expanded = body.replace(PLACEHOLDER, (_whole, index: string | undefined) => {
    placeholders++
    if (index === undefined) return args
    return words[Number(index) - 1] ?? ""
  })
  if (placeholders > 0 || args === "") return expanded
  return `${expanded}\n\nARGUMENTS: ${args}`
}
