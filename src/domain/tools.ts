import * as Schema from "effect/Schema"
import { TodoItem } from "./tasks.js"

/** What a tool call may do to the world; the PermissionEngine's defaults key on it. */
export const RiskClass = Schema.Literal("read", "write", "execute", "network")
export type RiskClass = typeof RiskClass.Type

/** A call the model asked for, as recorded and routed. */
export const ToolCall = Schema.Struct({
  toolCallId: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})
export type ToolCall = typeof ToolCall.Type

/** Structured facts about a result that clients render (diffs, exit codes) beside the text. */
export const EditData = Schema.TaggedStruct("edit", {
  path: Schema.String,
  /** `null` when the file did not exist before. */
  before: Schema.NullOr(Schema.String),
  after: Schema.String,
  diff: Schema.String
})
export const ShellData = Schema.TaggedStruct("shell", {
  command: Schema.String,
  exitCode: Schema.NullOr(Schema.Finite),
  signal: Schema.optional(Schema.String),
  timedOut: Schema.Boolean,
  truncated: Schema.Boolean
})
export const JsonData = Schema.TaggedStruct("json", { value: Schema.Unknown })
/** A skill's body, loaded on demand: the engine records `skill.loaded`. */
export const SkillData = Schema.TaggedStruct("skill", { name: Schema.String, path: Schema.String })
/**
 * Something the model asked to remember: the engine records `memory.candidate_proposed`;
 * nothing is remembered until a person approves it.
 */
export const MemoryCandidateData = Schema.TaggedStruct("memory_candidate", {
  text: Schema.String,
  scope: Schema.Literal("project", "user"),
  fromSequence: Schema.optional(Schema.Finite),
  toSequence: Schema.optional(Schema.Finite)
})
/** The agent's whole task list after a `todo_write` call: the engine records `task.updated`. */
export const TodosData = Schema.TaggedStruct("todos", { todos: Schema.Array(TodoItem) })
export const ToolResultData = Schema.Union(EditData, ShellData, JsonData, SkillData, MemoryCandidateData, TodosData)
export type ToolResultData = typeof ToolResultData.Type

/** What an executed (or refused) call gives back to the model. */
export const ToolResult = Schema.Struct({
  output: Schema.String,
  isError: Schema.Boolean,
  data: Schema.optional(ToolResultData)
})
export type ToolResult = typeof ToolResult.Type
