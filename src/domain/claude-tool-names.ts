/**
 * Claude Code's names for the built-in tools that have a counterpart here. Agent definitions
 * (and hooks' matchers) written for Claude Code name tools this way; both spellings are accepted.
 */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = {
  Bash: "shell",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Write: "write_file",
  Read: "read_file",
  Grep: "grep",
  Glob: "list_files",
  LS: "list_files"
}

/** Our name for a tool named either way (a name we do not know stays as it is). */
export const ourToolName = (name: string): string => CLAUDE_TOOL_NAMES[name] ?? name
