import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk/unstable"
import { isAbsolute, resolve } from "node:path"

const kinds: Readonly<Record<string, ToolKind>> = {
  read_file: "read",
  list_files: "read",
  load_skill: "read",
  write_file: "edit",
  edit_file: "edit",
  grep: "search",
  shell: "execute",
  exit_plan_mode: "switch_mode"
}

/** The icon class an editor shows for a tool, by its name. */
export const kindOf = (name: string): ToolKind => kinds[name] ?? (/(^|_)fetch($|_)/.test(name) ? "fetch" : "other")

const field = (input: unknown, key: string): string | undefined => {
  if (typeof input !== "object" || input === null || !(key in input)) return undefined
  const value: unknown = Reflect.get(input, key)
  return typeof value === "string" && value !== "" ? value : undefined
}

const firstLine = (text: string) => {
  const line = text.split("\n", 1)[0] ?? ""
  return line.length < text.length ? `${line} …` : line
}

/** One line naming what the call does, before anything decided or ran it. */
export const titleOf = (name: string, input: unknown): string => {
  const path = field(input, "path")
  switch (name) {
    case "read_file":
      return `Read ${path ?? "a file"}`
    case "write_file":
      return `Write ${path ?? "a file"}`
    case "edit_file":
      return `Edit ${path ?? "a file"}`
    case "list_files":
      return `List ${path ?? "the workspace"}`
    case "grep": {
      const pattern = field(input, "pattern")
      return `Search ${pattern === undefined ? "" : `/${pattern}/ `}in ${path ?? "the workspace"}`
    }
    case "shell": {
      const command = field(input, "command")
      return command === undefined ? "Run a command" : `Run ${firstLine(command)}`
    }
    case "exit_plan_mode":
      return "Propose a plan"
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name)
  if (mcp !== null) return `${mcp[1]}: ${mcp[2]}`
  return name
}

/** An absolute path for the editor: ACP paths are absolute, tool inputs may be relative to the workspace. */
export const absolutePath = (cwd: string, path: string): string => (isAbsolute(path) ? path : resolve(cwd, path))

/** The file a call works on, for editors that follow the agent around. */
export const locationsOf = (cwd: string, input: unknown): Array<ToolCallLocation> => {
  const path = field(input, "path")
  return path === undefined ? [] : [{ path: absolutePath(cwd, path) }]
}
