import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { taskCounts, TodoStatus } from "../../domain/tasks.js"
import type { Tool } from "../../services/ToolRouter.js"
import { makeTool } from "./make-tool.js"
import { okResult } from "./tool-results.js"

/** Bounds that keep the list a list: it is sent with every request. */
const MAX_TODOS = 100
const MAX_TODO_CHARS = 500
export const MAX_LIST_CHARS = 12_000

const Input = Schema.Struct({
  todos: Schema.Array(
    Schema.Struct({
      // One line: a task's text then always sits after its number and mark in the system
      // prompt, so nothing the model copies into it can pose as a heading of its own.
      content: Schema.String.pipe(
        Schema.minLength(1),
        Schema.maxLength(MAX_TODO_CHARS),
        Schema.filter((text) => !/[\r\n\u2028\u2029]/.test(text) || "must be one line (no line breaks)"),
        Schema.filter((text) => text.trim() !== "" || "must not be blank")
      ).annotations({ description: "What the task is, as one imperative sentence on one line." }),
      status: TodoStatus.annotations({ description: "pending, in_progress (one at a time) or completed." })
    })
  ).pipe(
    Schema.maxItems(MAX_TODOS),
    Schema.filter(
      (todos) => todos.reduce((sum, todo) => sum + todo.content.length, 0) <= MAX_LIST_CHARS || `the whole list must stay under ${MAX_LIST_CHARS} characters: shorten or merge tasks`
    )
  ).annotations({ description: "The whole task list, in order: it replaces the previous one." })
})

/**
 * The agent's task list (Claude Code's TodoWrite input). It changes only the session's own
 * state, so it is a read-class call the PermissionEngine allows by default in every mode; the
 * engine records the list as `task.updated` and carries it verbatim in every later request.
 */
export const todoWriteTool: Tool = makeTool({
  name: "todo_write",
  description:
    "Keep a task list for multi-step work: send the whole list each time (it replaces the previous one). " +
    "Mark a task in_progress before starting it and completed as soon as it is done; keep one in_progress at a time. " +
    "The current list is shown to you with every request, also after older turns are summarized, so use it to keep track of the plan.",
  input: Input,
  prepare: (input) =>
    Effect.succeed({
      risk: "read",
      summary: `task list: ${input.todos.length} task(s)`,
      paths: [],
      outsideWorkspace: false,
      harmlessBecause: "todo_write changes only the session's task list",
      execute: Effect.sync(() => {
        const counts = taskCounts(input.todos)
        const output = input.todos.length === 0
          ? "Task list cleared."
          : `Task list updated: ${counts.completed} of ${input.todos.length} completed, ${counts.in_progress} in progress, ${counts.pending} pending.`
        return okResult(output, { _tag: "todos", todos: input.todos })
      })
    })
})
