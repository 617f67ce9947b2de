import type { SlashCommandInfo } from "../../domain/slash-commands.js"
import { closest } from "../suggest.js"
import { safeInline } from "./safe-text.js"

export interface SlashCommandSpec {
  readonly name: string
  readonly description: string
  /** What it takes after its name, as help shows it (`[id]`). */
  readonly argumentHint?: string
  /** Set for a command file (Claude Code's format): sent to the host, which expands it. */
  readonly source?: "project" | "user"
}

/** The session's own commands: each runs here and is never sent to the model. */
export const builtinCommands: ReadonlyArray<SlashCommandSpec> = [
  { name: "help", description: "Keys and commands" },
  { name: "model", description: "Show the session's model, or make another its model now", argumentHint: "[model]" },
  { name: "mode", description: "Show the permission mode, or set it", argumentHint: "[default|plan|accept-edits|bypass]" },
  { name: "new", description: "Start a new session in this workspace" },
  { name: "resume", description: "Pick another session to resume (this workspace's first)" },
  { name: "rewind", description: "Restore files, conversation or both to before a turn" },
  { name: "redo", description: "Undo the last rewind" },
  { name: "fork", description: "Go on in a copy of this session (the original stays as it is)" },
  { name: "compact", description: "Summarize the earlier turns to free the context" },
  { name: "context", description: "What the model sees now: summaries, task list, the last request's size" },
  { name: "cost", description: "Tokens and cost of the last turn and of the session" },
  { name: "tasks", description: "The agent's task list" },
  { name: "permissions", description: "Answers remembered for this workspace; revoke one by id", argumentHint: "[revoke ID]" },
  { name: "memory", description: "Memories and candidates waiting for review; approve or reject one", argumentHint: "[approve|reject ID]" },
  { name: "mcp", description: "The session's MCP servers and their tools" },
  { name: "agents", description: "The subagents the task tool can start" },
  { name: "hooks", description: "The configured hooks and whether they run" },
  { name: "export", description: "Write the session's events, with its subagents' sessions, to a JSONL file", argumentHint: "[--no-subagents] [file]" },
  { name: "quit", description: "Leave (the session stays; custom-agent -c resumes it)" }
]

/**
 * The commands the session knows: its own, then the workspace's command files (a file named
 * like one of the session's own is left out: the session's runs).
 */
export const knownCommands = (files: ReadonlyArray<SlashCommandInfo>): ReadonlyArray<SlashCommandSpec> => {
  const own = new Set(builtinCommands.map((command) => command.name))
  return [
    ...builtinCommands,
    ...files
      .filter((file) => !own.has(file.name))
      // A file's words are content: the completion list draws them as given, so they are made safe here.
      .map((file) => ({
        name: file.name,
        description: safeInline(file.description),
        source: file.source,
        ...(file.argumentHint === undefined ? {} : { argumentHint: safeInline(file.argumentHint) })
      }))
  ]
}

/** What a line typed into the editor is. */
export type Typed =
  | { readonly _tag: "Prompt" }
  | { readonly _tag: "Command"; readonly name: string; readonly args: string }
  | { readonly _tag: "Unknown"; readonly name: string; readonly suggestion: string | undefined }

/** A command's name: as Claude Code's command files are named (no `/` in it, so a path is not a command; see `domain/slash-commands.ts`). */
const COMMAND = /^\/([A-Za-z0-9][A-Za-z0-9._-]{0,63})(?:\s+([\s\S]*))?$/

/**
 * `/name args` is a command when `name` is one of `known`; a name nobody knows is refused (never
 * sent to the model), with the nearest known name; anything else (`/etc/hosts is odd`, plain
 * text) is a prompt.
 */
export const parseTyped = (text: string, known: ReadonlyArray<string>): Typed => {
  const match = COMMAND.exec(text.trim())
  if (match === null) return { _tag: "Prompt" }
  const name = match[1] ?? ""
  const args = (match[2] ?? "").trim()
  const found = known.find((candidate) => candidate === name) ?? known.find((candidate) => candidate.toLowerCase() === name.toLowerCase())
  if (found !== undefined) return { _tag: "Command", name: found, args }
  return { _tag: "Unknown", name, suggestion: closest(name, known) }
}
