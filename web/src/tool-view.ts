import { Option, Schema } from "effect"
import { TodoItem } from "../../src/domain/tasks.js"
import type { ToolBlock } from "./timeline.js"

/**
 * What the page shows of a tool call, per tool: the facts a person looks for (the file and
 * lines read, the diff, the command with its exit code, an MCP call's server, tool and
 * arguments) instead of the call's raw JSON. Built from the call's input and its result's data.
 */
export interface Arg {
  readonly key: string
  readonly value: string
}

export interface ShellExit {
  readonly exitCode: number | null
  readonly signal: string | undefined
  readonly timedOut: boolean
  readonly truncated: boolean
}

export type ToolView =
  | { readonly _tag: "read"; readonly path: string; readonly lines: string | undefined }
  | { readonly _tag: "edit"; readonly path: string; readonly verb: string; readonly diff: string | undefined }
  | { readonly _tag: "shell"; readonly command: string; readonly description: string | undefined; readonly exit: ShellExit | undefined }
  | { readonly _tag: "mcp"; readonly server: string; readonly tool: string; readonly args: ReadonlyArray<Arg> }
  | { readonly _tag: "tasks"; readonly todos: ReadonlyArray<TodoItem> }
  /** A delegation (`task`): the subagent, its prompt, and its answer (the call's output). */
  | { readonly _tag: "subagent"; readonly agent: string; readonly prompt: string }
  | { readonly _tag: "other"; readonly args: ReadonlyArray<Arg> }

const ReadInput = Schema.Struct({ path: Schema.String, offset: Schema.optional(Schema.Number), limit: Schema.optional(Schema.Number) })
const PathInput = Schema.Struct({ path: Schema.String })
const ShellInput = Schema.Struct({ command: Schema.String, description: Schema.optional(Schema.String) })
const decodeRead = Schema.decodeUnknownOption(ReadInput)
const decodePath = Schema.decodeUnknownOption(PathInput)
const decodeShell = Schema.decodeUnknownOption(ShellInput)
const decodeTodos = Schema.decodeUnknownOption(Schema.Struct({ todos: Schema.Array(TodoItem) }))
const decodeTask = Schema.decodeUnknownOption(Schema.Struct({ agent: Schema.String, prompt: Schema.String }))

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An argument as a person reads it: text as it is, anything else as compact JSON. */
const argText = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)))

export const argsOf = (input: unknown): ReadonlyArray<Arg> => {
  if (input === undefined || input === null) return []
  if (!isRecord(input)) return [{ key: "input", value: argText(input) }]
  return Object.entries(input).map(([key, value]) => ({ key, value: argText(value) }))
}

/** `mcp__<server>__<tool>` (see src/layers/tools/mcp-names.ts); undefined for any other name. */
export const mcpNameOf = (name: string): { readonly server: string; readonly tool: string } | undefined => {
  const match = /^mcp__(.+?)__(.+)$/.exec(name)
  return match?.[1] === undefined || match[2] === undefined ? undefined : { server: match[1], tool: match[2] }
}

/**
 * The lines a read returned, from the numbered rows of its output (`cat -n` style) and its
 * "[Showing lines a-b of n ...]" note; before the result, the range the input asked for.
 */
export const readLines = (input: { readonly offset?: number | undefined; readonly limit?: number | undefined }, output: string | undefined): string | undefined => {
  const numbers = (output ?? "").split("\n").flatMap((line) => {
    const match = /^ *(\d+)\t/.exec(line)
    return match?.[1] === undefined ? [] : [Number(match[1])]
  })
  const first = numbers[0]
  const last = numbers.at(-1)
  if (first !== undefined && last !== undefined) {
    const total = /\[Showing lines \d+-\d+ of (\d+)/.exec(output ?? "")?.[1]
    return `lines ${first}–${last}${total === undefined ? "" : ` of ${total}`}`
  }
  if (input.offset === undefined && input.limit === undefined) return undefined
  const from = input.offset ?? 1
  return input.limit === undefined ? `from line ${from}` : `lines ${from}–${from + input.limit - 1}`
}

const editVerb = (tool: ToolBlock): string => {
  const data = tool.result?.data
  if (data?._tag === "edit" && data.before === null) return "created"
  if (tool.result === undefined || tool.result.isError) return tool.name === "write_file" ? "write" : "edit"
  return tool.name === "write_file" ? "wrote" : "edited"
}

export const toolViewOf = (tool: ToolBlock): ToolView => {
  const data = tool.result?.data
  switch (tool.name) {
    case "read_file": {
      const input = Option.getOrUndefined(decodeRead(tool.input))
      if (input === undefined) break
      const output = tool.result?.isError === false ? tool.result.output : undefined
      return { _tag: "read", path: input.path, lines: readLines(input, output) }
    }
    case "edit_file":
    case "write_file": {
      const path = data?._tag === "edit" ? data.path : Option.getOrUndefined(decodePath(tool.input))?.path
      if (path === undefined) break
      return { _tag: "edit", path, verb: editVerb(tool), diff: data?._tag === "edit" ? data.diff : undefined }
    }
    case "shell": {
      const input = Option.getOrUndefined(decodeShell(tool.input))
      const command = data?._tag === "shell" ? data.command : input?.command
      if (command === undefined) break
      const exit: ShellExit | undefined =
        data?._tag === "shell" ? { exitCode: data.exitCode, signal: data.signal, timedOut: data.timedOut, truncated: data.truncated } : undefined
      return { _tag: "shell", command, description: input?.description, exit }
    }
    case "todo_write": {
      // The list as recorded when the call succeeded, else as the model sent it (if it has the shape).
      const todos = data?._tag === "todos" ? data.todos : Option.getOrUndefined(decodeTodos(tool.input))?.todos
      if (todos === undefined) break
      return { _tag: "tasks", todos }
    }
    case "task": {
      const input = Option.getOrUndefined(decodeTask(tool.input))
      if (input === undefined) break
      return { _tag: "subagent", agent: input.agent, prompt: input.prompt }
    }
  }
  const mcp = mcpNameOf(tool.name)
  if (mcp !== undefined) return { _tag: "mcp", ...mcp, args: argsOf(tool.input) }
  return { _tag: "other", args: argsOf(tool.input) }
}

/** What an exit looks like in a line: "exit code 0", "exit code 1 · output truncated", "signal SIGKILL · timed out". */
export const exitText = (exit: ShellExit): string =>
  [
    exit.exitCode === null ? undefined : `exit code ${exit.exitCode}`,
    exit.signal === undefined ? undefined : `signal ${exit.signal}`,
    exit.timedOut ? "timed out" : undefined,
    exit.truncated ? "output truncated" : undefined
  ]
    .filter((fact) => fact !== undefined)
    .join(" · ")

/**
 * The detail a permission card shows under its question, unless the call's own view already
 * shows it: a shell call's detail is its command, an MCP call's its arguments. An edit's
 * detail is the diff it proposes, which only the card shows before the call runs.
 */
export const cardDetail = (view: ToolView, detail: string | undefined): string | undefined =>
  view._tag === "shell" || view._tag === "mcp" ? undefined : detail
